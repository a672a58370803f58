// Per-axis value checkers for campaign specs (see axis_values.h).
#include "runner/axis_values.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "oracle/features.h"
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

namespace {

// How a RunConfig holds each axis (the get / json / revert columns of the table).
template <std::string RunConfig::*kField>
std::string TextOf(const RunConfig& c) {
  return c.*kField;
}
template <std::string RunConfig::*kField>
bool SetText(RunConfig* c, const std::string& text, std::string*) {
  c->*kField = text;
  return true;
}
// An axis that draws nothing beyond its text.
template <std::string RunConfig::*kField>
void RevertText(RunConfig* to, const RunConfig& from) {
  to->*kField = from.*kField;
}

std::string FeaturesOf(const RunConfig& c) { return c.features.empty() ? "none" : c.features; }
bool SetFeatures(RunConfig* c, const std::string& text, std::string* reason) {
  // The grammar only (names, depths); whether the image compiles them is PrepareRun's.
  Result<oracle::FeatureSet> f = oracle::ParseFeatures(text, "feature");
  if (!f.ok()) {
    *reason = f.status().message();
    return false;
  }
  c->features = text;
  return true;
}

std::string MhzOf(const RunConfig& c) { return std::to_string(c.fabric_mhz); }
bool SetMhz(RunConfig* c, const std::string& text, std::string* reason) {
  uint64_t n = 0;
  const bool digits = !text.empty() && text.size() <= 10 &&
                      std::all_of(text.begin(), text.end(), [](char ch) {
                        return std::isdigit(static_cast<unsigned char>(ch)) != 0;
                      });
  if (digits) n = std::stoull(text);
  if (!digits || n > UINT32_MAX) {
    *reason = "bad clock \"" + text + "\"";
    return false;
  }
  c->fabric_mhz = static_cast<uint32_t>(n);
  return true;
}

void RevertOverflow(RunConfig* to, const RunConfig& from) {
  to->overflow_regime = from.overflow_regime;
  to->sink_hz = from.sink_hz;
  to->core_stall_percent = from.core_stall_percent;
}
void RevertBackpressure(RunConfig* to, const RunConfig& from) {
  to->backpressure = from.backpressure;
  to->backpressure_params = from.backpressure_params;
}
void RevertSync(RunConfig* to, const RunConfig& from) {
  to->sync = from.sync;
  to->sync_params = from.sync_params;
}
void RevertWorkload(RunConfig* to, const RunConfig& from) {
  to->workload = from.workload;
  if (from.workload == "random") to->program_seed = from.program_seed;
}
void RevertWindow(RunConfig* to, const RunConfig& from) {
  to->window = from.window;
  to->window_start = from.window_start;
  to->window_pause = from.window_pause;
  to->window_resume = from.window_resume;
  to->window_stop = from.window_stop;
}
void RevertInterrupts(RunConfig* to, const RunConfig& from) {
  to->interrupts = from.interrupts;
  to->interrupt_at = from.interrupt_at;
  to->interrupt_every = from.interrupt_every;
}
void RevertMhz(RunConfig* to, const RunConfig& from) {
  to->fabric_mhz = from.fabric_mhz;
  to->fabric_hz = from.fabric_hz;
}

}  // namespace

const std::vector<AxisDef>& AxisDefs() {
  using C = RunConfig;
  static const std::vector<AxisDef> defs = {
      {"overflow_regime", "none", EnumChecker({"none", "sparse", "moderate", "saturating"}),
       TextOf<&C::overflow_regime>, TextOf<&C::overflow_regime>, SetText<&C::overflow_regime>,
       false, RevertOverflow},
      {"backpressure", "none", CheckBackpressureValue, TextOf<&C::backpressure>,
       TextOf<&C::backpressure>, SetText<&C::backpressure>, false, RevertBackpressure},
      {"mode", "htm", EnumChecker({"htm", "btm"}), TextOf<&C::mode>, TextOf<&C::mode>,
       SetText<&C::mode>, false, RevertText<&C::mode>},
      {"sync", "off", CheckSyncValue, TextOf<&C::sync>, TextOf<&C::sync>, SetText<&C::sync>,
       false, RevertSync},
      {"workload", "loop",
       EnumChecker({"loop", "calls", "ptrchase", "sort", "switch", "traps", "random"}),
       TextOf<&C::workload>, TextOf<&C::workload>, SetText<&C::workload>, false,
       RevertWorkload},
      {"window", "full", EnumChecker({"full", "late_start", "pause_resume", "early_stop"}),
       TextOf<&C::window>, TextOf<&C::window>, SetText<&C::window>, false, RevertWindow},
      {"interrupts", "none", EnumChecker({"none", "sparse", "storm"}), TextOf<&C::interrupts>,
       TextOf<&C::interrupts>, SetText<&C::interrupts>, false, RevertInterrupts},
      // features draws nothing else: the executor clamps the set to the image (plan.h).
      {"features", "none", CheckFeaturesValue, FeaturesOf, TextOf<&C::features>, SetFeatures,
       true, RevertText<&C::features>},
      {"fabric_mhz", "", CheckMhzValue, MhzOf, MhzOf, SetMhz, false, RevertMhz},
  };
  return defs;
}

const AxisDef* FindAxisDef(std::string_view name) {
  for (const AxisDef& d : AxisDefs()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

}  // namespace ctte::runner::internal
