// RunConfigFromFlags (see cli_config.h).
#include "runner/cli_config.h"

#include <cmath>
#include <filesystem>

#include "base/random.h"
#include "lab/image_manifest.h"
#include "lab/pll.h"
#include "oracle/config_message.h"
#include "oracle/features.h"
#include "runner/feature_table.h"
#include "runner/plan.h"

namespace ctte::runner {
namespace {


std::string SyncText(const SyncPolicy& sp) {
  switch (sp.kind) {
    case SyncPolicy::Kind::kOff: return "off";
    case SyncPolicy::Kind::kMessages: return "messages:" + std::to_string(sp.period_log2);
    case SyncPolicy::Kind::kHalfwords: return "halfwords:" + std::to_string(sp.period_log2);
  }
  return "off";
}

std::string BackpressureText(const Backpressure& bp) {
  switch (bp.kind) {
    case Backpressure::Kind::kNone: return "none";
    case Backpressure::Kind::kUniform: return "uniform:" + std::to_string(bp.ready_percent);
    case Backpressure::Kind::kBursty:
      return "bursty:" + std::to_string(bp.burst_min) + "-" + std::to_string(bp.burst_max);
  }
  return "none";
}

// A clock flag in MHz -> Hz: finite, not negative, and (unless 0 is allowed and given) a
// frequency the board's PLL can program (lab/pll.h). Errors name the flag.
Result<uint64_t> ClockFlagHz(const char* flag, double mhz, bool zero_ok) {
  if (!std::isfinite(mhz) || mhz < 0 || mhz > 1e6) {
    return Status::InvalidArgument(std::string(flag) + ": '" + std::to_string(mhz) +
                                   "' is not a clock in MHz");
  }
  const uint64_t hz = static_cast<uint64_t>(std::llround(mhz * 1e6));
  if (hz == 0 && zero_ok) return hz;
  if (Result<uint64_t> set = lab::PllModel().Set(hz); !set.ok()) {
    return Status::InvalidArgument(std::string(flag) + ": " + set.status().message());
  }
  return hz;
}

}  // namespace

Result<SyncPolicy> SyncFromFlags(std::string_view sync_mode, uint64_t sync_period) {
  SyncPolicy sp;
  if (sync_mode == "off" || sync_mode == "0") {
    sp.kind = SyncPolicy::Kind::kOff;
  } else if (sync_mode == "messages" || sync_mode == "1") {
    sp.kind = SyncPolicy::Kind::kMessages;
  } else if (sync_mode == "halfwords" || sync_mode == "3") {
    sp.kind = SyncPolicy::Kind::kHalfwords;
  } else {
    return Status::InvalidArgument("--sync-mode: expected off|messages|halfwords (0|1|3), got '" +
                                   std::string(sync_mode) + "'");
  }
  uint32_t log2 = 4;
  if (sync_period != 0) {
    log2 = 0;
    while ((1ull << log2) < sync_period) ++log2;
    if ((1ull << log2) != sync_period || log2 < 4 || log2 > 19) {
      return Status::InvalidArgument(
          "--sync-period: must be a power of two in [16, 524288], got " +
          std::to_string(sync_period));
    }
  }
  if (sp.kind != SyncPolicy::Kind::kOff) sp.period_log2 = log2;
  return sp;
}

void PlanOptionsFromFlags(const CliRunFlags& f, PlanOptions* o) {
  if (!f.manifest.empty()) o->manifest_path = f.manifest;
  if (!f.workload.empty()) o->workload_path = f.workload;
  o->max_instructions = f.max_instructions;
  o->ring_bytes = f.ring_bytes;
  o->drain_budget_sink_cycles = f.drain_budget;
  o->fst_path = f.waves;
}

Result<RunConfig> RunConfigFromFlags(const CliRunFlags& f, PlanOptions* o) {
  if (f.manifest.empty() || f.workload.empty()) {
    return Status::InvalidArgument("--image and --workload are required without --config");
  }
  Result<lab::ImageManifest> m = lab::ImageManifest::Load(f.manifest);
  if (!m.ok()) return m.status();
  RunConfig c;
  c.campaign = "cli";
  c.seed = f.seed;
  c.image = m->name;
  c.workload = std::filesystem::path(f.workload).stem().string();
  if (Result<uint8_t> mode = InstModeRegister(f.mode); !mode.ok() || f.mode.empty()) {
    return Status::InvalidArgument("--mode: expected htm or btm, got '" + f.mode + "'");
  }
  c.mode = f.mode;
  {
    const uint32_t depth =
        m->return_stack_depth > 0 ? m->return_stack_depth : oracle::kMaxReturnStackDepth;
    Result<oracle::FeatureSet> features = oracle::ParseFeatures(f.features, "--features", depth);
    if (!features.ok()) return features.status();
    if (features->implicit_return_depth > 0 &&
        features->implicit_return_depth != m->return_stack_depth) {
      return Status::InvalidArgument(
          "--features: image " + m->name +
          (m->return_stack_depth == 0 ? std::string(" does not compile implicit-return "
                                                    "(ctteFeatureCaps bit 0 clear)")
                                      : " has a return stack of " +
                                            std::to_string(m->return_stack_depth)));
    }
    CTTE_RETURN_IF_ERROR(CheckFeaturesCompiled(*features, *m, "--features"));
    if (!features->empty()) c.features = oracle::FormatFeatures(*features);
  }
  Result<SyncPolicy> sync = SyncFromFlags(f.sync_mode, f.sync_period);
  if (!sync.ok()) return sync.status();
  c.sync_params = *sync;
  c.sync = SyncText(c.sync_params);
  std::string why;
  std::optional<Backpressure> bp = ParseBackpressure(f.backpressure, &why);
  if (!bp) return Status::InvalidArgument("--backpressure '" + f.backpressure + "': " + why);
  c.backpressure_params = *bp;
  c.backpressure = BackpressureText(*bp);
  c.sink_seed = DeriveSeed(f.seed, "backpressure");
  const long stall_percent = std::lround((1.0 - f.ipc) * 100.0);
  if (!(f.ipc > 0.0) || f.ipc > 1.0 || stall_percent > 99) {
    return Status::InvalidArgument("--ipc: must be in [0.01, 1]");
  }
  c.core_stall_percent = static_cast<uint32_t>(stall_percent);
  c.stall_seed = DeriveSeed(f.seed, "stall");
  Result<uint64_t> fabric_hz = ClockFlagHz("--fabric-mhz", f.fabric_mhz, /*zero_ok=*/true);
  if (!fabric_hz.ok()) return fabric_hz.status();
  Result<uint64_t> sink_hz = ClockFlagHz("--sink-mhz", f.sink_mhz, /*zero_ok=*/false);
  if (!sink_hz.ok()) return sink_hz.status();
  c.fabric_mhz = static_cast<uint32_t>(f.fabric_mhz);
  c.fabric_hz = *fabric_hz;
  c.sink_hz = *sink_hz;
  c.interrupt_every = f.interrupt_every;
  c.interrupts = f.interrupt_every ? "storm" : "none";
  c.window_start = f.window_start;
  c.window = "full";
  if (f.pause != 0 || f.resume != 0) {
    c.window_pause = f.pause;
    c.window_resume = f.resume;
    c.window = "pause_resume";
  }
  if (f.stop != 0) {
    c.window_stop = f.stop;
    c.window = "early_stop";
  }
  if (f.window_start != 0) c.window = "late_start";
  c.overflow_regime = "none";  // not drawn: the flags give the clocks and the sink directly
  PlanOptionsFromFlags(f, o);
  return c;
}

}  // namespace ctte::runner
