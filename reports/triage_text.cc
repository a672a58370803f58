// Text of bisections, pairs and nights (see triage_text.h).
#include "reports/triage_text.h"

#include <cinttypes>
#include <cstdio>
#include <set>

namespace ctte::reports {
namespace {

std::string Pct(double x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * x);
  return buf;
}

}  // namespace

std::string RateCell(uint64_t red, uint64_t judged, double lo, double hi) {
  const double rate = judged ? static_cast<double>(red) / static_cast<double>(judged) : 0.0;
  return std::to_string(red) + "/" + std::to_string(judged) + " (" + Pct(rate) + ", 95% " +
         Pct(lo) + "-" + Pct(hi) + ")";
}

std::string FormatBisection(const db::BisectionRecord& b) {
  std::string s = "bisection " + std::to_string(b.id) + " (" + b.kind + ", " +
                  std::to_string(b.repeats) + " repeats, " + b.created_at + "): " + b.verdict;
  if (!b.culprits.empty()) s += " [" + b.culprits + "]";
  s += "\n  " + b.summary + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-3s %-11s %-32s %-28s %-7s %s\n", "leg", "kind",
                "reverted", "red/judged", "unsound", "verdict");
  s += line;
  for (const db::BisectionLegRecord& l : b.legs) {
    std::snprintf(line, sizeof line, "  %-3u %-11s %-32s %-28s %-7" PRIu64 " %s\n", l.ordinal,
                  l.kind.c_str(), l.factors.empty() ? "(original)" : l.factors.c_str(),
                  RateCell(l.red, l.judged, l.lo, l.hi).c_str(), l.unsound, l.verdict.c_str());
    s += line;
  }
  if (!b.minimal_command.empty()) s += "  minimal red configuration: " + b.minimal_command + "\n";
  return s;
}

std::string FormatPairs(const std::vector<db::PairRate>& pairs, size_t limit) {
  std::string s;
  char line[320];
  std::snprintf(line, sizeof line, "  %-36s %-36s %6s %5s %7s %13s %7s %7s %8s %8s\n",
                "factor=value", "factor=value", "runs", "red", "pair", "pair 95%", "first",
                "second", "excess", "at least");
  s += line;
  size_t n = 0;
  for (const db::PairRate& p : pairs) {
    if (limit && n++ >= limit) break;
    const std::string a = p.factor_a + "=" + p.value_a, b = p.factor_b + "=" + p.value_b;
    std::snprintf(line, sizeof line,
                  "  %-36s %-36s %6" PRIu64 " %5" PRIu64
                  " %6.1f%% %5.1f%%-%5.1f%% %6.1f%% %6.1f%% %+7.1f%% %+7.1f%%\n",
                  a.c_str(), b.c_str(), p.runs, p.red, 100 * p.rate, 100 * p.lo, 100 * p.hi,
                  100 * p.rate_a, 100 * p.rate_b, 100 * p.excess, 100 * p.excess_lo);
    s += line;
  }
  if (pairs.empty()) s += "  (no pair with enough judged runs)\n";
  return s;
}

std::string FormatNights(const std::vector<db::NightRow>& nights) {
  std::set<std::string> verdicts;
  for (const db::NightRow& n : nights) {
    for (const auto& [v, c] : n.verdicts) verdicts.insert(v);
  }
  std::string s = "  campaign  seed                created               judged   red";
  for (const std::string& v : verdicts) s += "  " + v;
  s += "\n";
  for (const db::NightRow& n : nights) {
    char line[160];
    std::snprintf(line, sizeof line, "  %8" PRId64 "  0x%016" PRIx64 "  %-20s %7" PRIu64
                  " %5" PRIu64, n.campaign.id, n.campaign.seed, n.campaign.created_at.c_str(),
                  n.judged(), n.campaign.red);
    s += line;
    for (const std::string& v : verdicts) {
      auto it = n.verdicts.find(v);
      const uint64_t fail = it == n.verdicts.end() ? 0 : it->second.second;
      std::snprintf(line, sizeof line, "  %*" PRIu64, static_cast<int>(v.size()), fail);
      s += line;
    }
    s += "\n";
  }
  if (nights.empty()) s += "  (no campaign of that name)\n";
  return s;
}

}  // namespace ctte::reports
