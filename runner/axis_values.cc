// Per-axis value checkers for campaign specs (see axis_values.h).
#include "runner/axis_values.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "runner/features_axis.h"
#include "runner/run_config.h"

namespace ctte::runner::internal {

using nlohmann::json;

const char* JsonTypeName(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "number";
  return v.type_name();
}

namespace {

constexpr uint64_t kMaxMhz = 1000;

ValueChecker EnumChecker(std::vector<std::string> allowed) {
  return [allowed](const json& v, std::string* canonical, std::string* reason) {
    if (!v.is_string()) {
      *reason = std::string("wrong type: expected string, got ") + JsonTypeName(v);
      return false;
    }
    const std::string s = v.get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      *reason = "unknown axis value \"" + s + "\" (expected one of: " + list + ")";
      return false;
    }
    *canonical = s;
    return true;
  };
}

bool CheckBackpressureValue(const json& v, std::string* canonical, std::string* reason) {
  if (!v.is_string()) {
    *reason = std::string("wrong type: expected string, got ") + JsonTypeName(v);
    return false;
  }
  std::string why;
  auto bp = ParseBackpressure(v.get<std::string>(), &why);
  if (!bp) {
    *reason = "unknown axis value " + QuoteForMessage(v.get<std::string>()) + ": " + why;
    return false;
  }
  switch (bp->kind) {
    case Backpressure::Kind::kNone: *canonical = "none"; break;
    case Backpressure::Kind::kUniform:
      *canonical = "uniform:" + std::to_string(bp->ready_percent);
      break;
    case Backpressure::Kind::kBursty:
      *canonical = "bursty:" + std::to_string(bp->burst_min) + "-" +
                   std::to_string(bp->burst_max);
      break;
  }
  return true;
}

bool CheckSyncValue(const json& v, std::string* canonical, std::string* reason) {
  if (!v.is_string()) {
    *reason = std::string("wrong type: expected string, got ") + JsonTypeName(v);
    return false;
  }
  std::string why;
  auto sync = ParseSyncPolicy(v.get<std::string>(), &why);
  if (!sync) {
    *reason = "unknown axis value " + QuoteForMessage(v.get<std::string>()) + ": " + why;
    return false;
  }
  switch (sync->kind) {
    case SyncPolicy::Kind::kOff: *canonical = "off"; break;
    case SyncPolicy::Kind::kMessages:
      *canonical = "messages:" + std::to_string(sync->period_log2);
      break;
    case SyncPolicy::Kind::kHalfwords:
      *canonical = "halfwords:" + std::to_string(sync->period_log2);
      break;
  }
  return true;
}

bool CheckMhzValue(const json& v, std::string* canonical, std::string* reason) {
  if (!v.is_number_integer()) {
    *reason = std::string("wrong type: expected integer (MHz), got ") + JsonTypeName(v);
    return false;
  }
  if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > kMaxMhz) {
    *reason = "unknown axis value " + v.dump() + ": clock must be 1.." +
              std::to_string(kMaxMhz) + " MHz";
    return false;
  }
  *canonical = std::to_string(v.get<uint64_t>());
  return true;
}

}  // namespace

bool CheckImageName(const json& v, std::string* canonical, std::string* reason) {
  if (!v.is_string()) {
    *reason = std::string("wrong type: expected string, got ") + JsonTypeName(v);
    return false;
  }
  const std::string s = v.get<std::string>();
  const bool good = !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (!good) {
    *reason = "bad image name \"" + s + "\" (1-64 of a-z 0-9 - _)";
    return false;
  }
  *canonical = s;
  return true;
}

const std::vector<AxisDef>& AxisDefs() {
  static const std::vector<AxisDef> defs = {
      {"overflow_regime", "none", EnumChecker({"none", "sparse", "moderate", "saturating"})},
      {"backpressure", "none", CheckBackpressureValue},
      {"mode", "htm", EnumChecker({"htm", "btm"})},
      {"sync", "off", CheckSyncValue},
      {"workload", "loop",
       EnumChecker({"loop", "calls", "ptrchase", "sort", "switch", "traps", "random"})},
      {"window", "full", EnumChecker({"full", "late_start", "pause_resume", "early_stop"})},
      {"interrupts", "none", EnumChecker({"none", "sparse", "storm"})},
      {"features", "none", CheckFeaturesValue},
      {"fabric_mhz", "", CheckMhzValue},
  };
  return defs;
}

}  // namespace ctte::runner::internal
