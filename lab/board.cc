// Board helpers: clock domain names, backpressure specs.
#include "lab/board.h"

#include <cstdio>
#include <cstdlib>

namespace ctte::lab {

namespace {
bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Parses "A-B" (or "A") into two unsigned integers.
bool ParseRange(const std::string& s, uint32_t* lo, uint32_t* hi) {
  const size_t dash = s.find('-');
  const std::string a = s.substr(0, dash);
  const std::string b = dash == std::string::npos ? a : s.substr(dash + 1);
  if (a.empty() || b.empty()) return false;
  char* end = nullptr;
  const unsigned long va = std::strtoul(a.c_str(), &end, 10);
  if (*end != '\0') return false;
  const unsigned long vb = std::strtoul(b.c_str(), &end, 10);
  if (*end != '\0' || va > vb || vb > 0xFFFFFFFFul) return false;
  *lo = static_cast<uint32_t>(va);
  *hi = static_cast<uint32_t>(vb);
  return true;
}
}  // namespace

const char* ClockDomainName(ClockDomain d) {
  return d == ClockDomain::kFabric ? "fabric" : "sink";
}

Result<ClockDomain> ParseClockDomain(const std::string& name) {
  if (name == "fabric") return ClockDomain::kFabric;
  if (name == "sink") return ClockDomain::kSink;
  return Status::InvalidArgument("unknown clock domain '" + name + "' (fabric|sink)");
}

Result<BackpressureProfile> ParseBackpressure(const std::string& spec) {
  BackpressureProfile p;
  const auto bad = [&](const char* why) {
    return Status::InvalidArgument("backpressure spec '" + spec + "': " + why +
                                   " (none | uniform:P | bursty:R1-R2:S1-S2)");
  };
  if (spec == "none" || spec.empty()) return p;
  if (StartsWith(spec, "uniform:")) {
    const std::string v = spec.substr(8);
    char* end = nullptr;
    const double prob = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(prob > 0.0) || prob > 1.0) {
      return bad("accept probability must be in (0, 1]");
    }
    p.kind = BackpressureKind::kUniform;
    p.accept_den = 1'000'000;
    p.accept_num = static_cast<uint32_t>(prob * 1'000'000.0 + 0.5);
    if (p.accept_num == 0) p.accept_num = 1;
    return p;
  }
  if (StartsWith(spec, "bursty:")) {
    const std::string v = spec.substr(7);
    const size_t colon = v.find(':');
    if (colon == std::string::npos) return bad("missing stall range");
    p.kind = BackpressureKind::kBursty;
    if (!ParseRange(v.substr(0, colon), &p.ready_min, &p.ready_max) || p.ready_min == 0) {
      return bad("ready range must be A-B with 1 <= A <= B");
    }
    if (!ParseRange(v.substr(colon + 1), &p.stall_min, &p.stall_max)) {
      return bad("stall range must be A-B with A <= B");
    }
    return p;
  }
  return bad("unknown kind");
}

std::string FormatBackpressure(const BackpressureProfile& p) {
  char buf[96];
  switch (p.kind) {
    case BackpressureKind::kNone:
      return "none";
    case BackpressureKind::kUniform:
      std::snprintf(buf, sizeof buf, "uniform:%g",
                    static_cast<double>(p.accept_num) / static_cast<double>(p.accept_den));
      return buf;
    case BackpressureKind::kBursty:
      std::snprintf(buf, sizeof buf, "bursty:%u-%u:%u-%u", p.ready_min, p.ready_max,
                    p.stall_min, p.stall_max);
      return buf;
  }
  return "?";
}

}  // namespace ctte::lab
