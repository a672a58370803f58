// The triage, pairs and trend sections of the HTML report (see triage_html.h).
#include "reports/triage_html.h"

#include <cstdio>
#include <set>

#include "reports/text_format.h"
#include "reports/triage_text.h"

namespace ctte::reports {
namespace {

std::string E(const std::string& s) { return XmlEscape(s); }

std::string Pct(double x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

double FailRate(const db::NightRow& n, const std::string& verdict) {
  auto it = n.verdicts.find(verdict);
  if (it == n.verdicts.end()) return 0.0;
  const uint64_t judged = it->second.first + it->second.second;
  return judged ? static_cast<double>(it->second.second) / static_cast<double>(judged) : 0.0;
}

std::string NightLabel(const db::NightRow& n) {
  return "campaign " + std::to_string(n.campaign.id) + " (seed " + Hex64(n.campaign.seed) +
         ", " + n.campaign.created_at + ")";
}

std::string BisectCommand(int64_t run_id, const std::string& db_path) {
  return "ctte-lab bisect " + std::to_string(run_id) + (db_path.empty() ? "" : " --db " + db_path);
}

}  // namespace

StreakBounds RedStreak(const std::vector<db::NightRow>& nights, const std::string& verdict) {
  StreakBounds b;
  auto red = [&](size_t i) {
    auto it = nights[i].verdicts.find(verdict);
    return it != nights[i].verdicts.end() && it->second.second > 0;
  };
  auto green = [&](size_t i) {
    auto it = nights[i].verdicts.find(verdict);
    return it != nights[i].verdicts.end() && it->second.second == 0 && it->second.first > 0;
  };
  if (nights.empty() || !red(nights.size() - 1)) return b;
  size_t i = nights.size() - 1;
  while (i > 0 && red(i - 1)) --i;
  b.first_red = static_cast<int>(i);
  for (size_t j = i; j-- > 0;) {
    if (green(j)) {
      b.last_green = static_cast<int>(j);
      break;
    }
  }
  return b;
}

std::string TriageSection(const ReportModel& m) {
  std::vector<const ReportRun*> red = m.RedRuns();
  if (red.empty() && m.bisections.empty()) return "";
  std::string h = "<section id=\"triage\"><h2>Triage of red runs</h2><p>Bisection legs revert "
                  "factors to a green baseline and run each leg with fresh model seeds; "
                  "red/judged with its 95% interval; legs are judged by exact paired tests "
                  "(docs/triage.md).</p>\n";
  for (const ReportRun* r : red) {
    h += "<div class=\"triage-run\" id=\"triage-run-" + std::to_string(r->id) + "\"><h3>Run " +
         std::to_string(r->id) + " (index " + std::to_string(r->index) + ")</h3>";
    bool any = false;
    for (const db::BisectionRecord& b : m.bisections) {
      if (b.run_id != r->id) continue;
      any = true;
      h += "<p class=\"bisection-verdict\" id=\"bisection-" + std::to_string(b.id) + "\"><b>" +
           E(b.kind) + " " + E(b.verdict) + "</b>" +
           (b.culprits.empty() ? "" : " culprit <b class=\"culprit\">" + E(b.culprits) + "</b>") +
           ": " + E(b.summary) + "</p>";
      h += "<table class=\"legs\"><thead><tr><th>leg</th><th>kind</th><th>reverted</th>"
           "<th>red / judged</th><th>unsound</th><th>verdict</th></tr></thead><tbody>";
      for (const db::BisectionLegRecord& l : b.legs) {
        h += "<tr class=\"leg leg-" + E(l.verdict) + "\"><td>" + std::to_string(l.ordinal) +
             "</td><td>" + E(l.kind) + "</td><td>" +
             E(l.factors.empty() ? "(original)" : l.factors) + "</td><td>" +
             E(RateCell(l.red, l.judged, l.lo, l.hi)) + "</td><td>" + std::to_string(l.unsound) +
             "</td><td>" + E(l.verdict) + "</td></tr>";
      }
      h += "</tbody></table>";
      if (!b.minimal_command.empty()) {
        h += "<p>minimal red configuration: <code class=\"minimal\">" + E(b.minimal_command) +
             "</code></p>";
      }
    }
    if (!any) {
      h += "<p class=\"not-bisected\">not bisected yet: <code>" +
           E(BisectCommand(r->id, m.db_path)) + "</code></p>";
    }
    h += "</div>\n";
  }
  return h + "</section>\n";
}

std::string PairsSection(const ReportModel& m) {
  if (m.pairs.empty()) return "";
  std::string h = "<section id=\"pairs\"><h2>Cross terms</h2><p>Fail rate of each pair of "
                  "factor values seen together in at least " +
                  std::to_string(ReportModel::kPairMinRuns) +
                  " judged draws; excess = pair rate minus the larger single-value rate.</p>"
                  "<table id=\"pairs-table\"><thead><tr><th>first</th><th>second</th>"
                  "<th>runs</th><th>red</th><th>pair</th><th>first alone</th>"
                  "<th>second alone</th><th>excess</th></tr></thead><tbody>";
  size_t n = 0;
  for (const db::PairRate& p : m.pairs) {
    if (n++ >= kPairRows) break;
    h += "<tr class=\"pair\"><td>" + E(p.factor_a + "=" + p.value_a) + "</td><td>" +
         E(p.factor_b + "=" + p.value_b) + "</td><td>" + std::to_string(p.runs) + "</td><td>" +
         std::to_string(p.red) + "</td><td>" + Pct(p.rate) + "</td><td>" + Pct(p.rate_a) +
         "</td><td>" + Pct(p.rate_b) + "</td><td>" + Pct(p.excess) + "</td></tr>";
  }
  return h + "</tbody></table></section>\n";
}

std::string TrendSection(const ReportModel& m) {
  if (m.nights.size() < 2) return "";  // one night is not a trend
  std::set<std::string> failing;
  for (const db::NightRow& n : m.nights) {
    for (const auto& [v, c] : n.verdicts) {
      if (c.second > 0) failing.insert(v);
    }
  }
  const double w = 560, ht = 240, left = 50, right = 170, top = 30, bottom = 40;
  const double pw = w - left - right, ph = ht - top - bottom;
  const size_t count = m.nights.size();
  auto x = [&](size_t i) { return left + (count > 1 ? pw * static_cast<double>(i) / (count - 1) : pw / 2); };
  auto y = [&](double rate) { return top + ph * (1.0 - rate); };
  std::string s = "<svg class=\"plot\" id=\"plot-trend\" width=\"" + Num(w) + "\" height=\"" +
                  Num(ht) + "\" viewBox=\"0 0 " + Num(w) + " " + Num(ht) +
                  "\" xmlns=\"http://www.w3.org/2000/svg\"><text class=\"plot-title\" x=\"" +
                  Num(left) + "\" y=\"18\">Fail rate per verdict, last " + std::to_string(count) +
                  " night(s)</text>";
  for (double t : {0.0, 0.5, 1.0}) {
    s += "<line x1=\"" + Num(left) + "\" x2=\"" + Num(left + pw) + "\" y1=\"" + Num(y(t)) +
         "\" y2=\"" + Num(y(t)) + "\" stroke=\"#eee\"/><text class=\"tick\" x=\"" +
         Num(left - 6) + "\" y=\"" + Num(y(t) + 4) + "\" text-anchor=\"end\">" +
         std::to_string(static_cast<int>(t * 100)) + "%</text>";
  }
  for (size_t i = 0; i < count; ++i) {
    s += "<text class=\"tick\" x=\"" + Num(x(i)) + "\" y=\"" + Num(top + ph + 16) +
         "\" text-anchor=\"middle\">" + std::to_string(m.nights[i].campaign.id) + "</text>";
  }
  static const char* kColours[] = {"#c62828", "#1565c0", "#2e7d32", "#ef6c00",
                                   "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#455a64"};
  size_t k = 0;
  for (const std::string& v : failing) {
    const char* colour = kColours[k % 9];
    std::string pts;
    for (size_t i = 0; i < count; ++i) pts += Num(x(i)) + "," + Num(y(FailRate(m.nights[i], v))) + " ";
    s += "<polyline class=\"trend-line\" data-verdict=\"" + E(v) + "\" fill=\"none\" stroke=\"" +
         colour + "\" points=\"" + pts + "\"/>";
    for (size_t i = 0; i < count; ++i) {
      s += "<circle class=\"dot trend\" cx=\"" + Num(x(i)) + "\" cy=\"" +
           Num(y(FailRate(m.nights[i], v))) + "\" r=\"3\" fill=\"" + colour + "\"><title>" +
           E(v + ": " + Pct(FailRate(m.nights[i], v)) + " in " + NightLabel(m.nights[i])) +
           "</title></circle>";
    }
    s += "<text class=\"tick\" x=\"" + Num(left + pw + 8) + "\" y=\"" + Num(top + 14.0 * k + 4) +
         "\" fill=\"" + colour + "\">" + E(v) + "</text>";
    ++k;
  }
  if (failing.empty()) {
    s += "<text class=\"nodata\" x=\"" + Num(left + pw / 2) + "\" y=\"" + Num(top + ph / 2) +
         "\" text-anchor=\"middle\">no verdict failed in these nights</text>";
  }
  s += "</svg>";
  std::string h = "<section id=\"trend\"><h2>Night over night</h2><p>Campaigns named " +
                  E(m.campaign.name) + " up to this one (x: campaign id).</p>" + s +
                  "<table id=\"trend-table\"><thead><tr><th>verdict</th><th>fail rate now</th>"
                  "<th>first red night (current streak)</th><th>last green night</th></tr>"
                  "</thead><tbody>";
  for (const std::string& v : failing) {
    const StreakBounds b = RedStreak(m.nights, v);
    h += "<tr class=\"trend-verdict\"><td>" + E(v) + "</td><td>" +
         Pct(FailRate(m.nights.back(), v)) + "</td><td class=\"first-red\">" +
         (b.first_red < 0 ? "green now" : E(NightLabel(m.nights[static_cast<size_t>(b.first_red)]))) +
         "</td><td class=\"last-green\">" +
         (b.last_green < 0 ? (b.first_red < 0 ? "this night" : "none in these nights")
                           : E(NightLabel(m.nights[static_cast<size_t>(b.last_green)]))) +
         "</td></tr>";
  }
  return h + "</tbody></table></section>\n";
}

}  // namespace ctte::reports
