// Flags shared by the commands that run one configuration on a simulated board (`capture`,
// `run`): their names, help texts and the conversion to a board plan, in one place.
// Header-only (tools/ctte-lab globs cmd_*.cc; helpers live in headers).
#pragma once

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cmath>
#include <string>

#include "base/random.h"
#include "base/status.h"
#include "lab/board.h"

namespace ctte::cli {

struct PlanFlags {
  std::string manifest, workload, waves;
  std::string mode = "htm", sync_mode = "off", backpressure = "none";
  uint64_t sync_period = 0;
  double fabric_mhz = 0, sink_mhz = 100, ipc = 1.0;
  uint64_t interrupt_every = 0, seed = 1, max_instructions = 5'000'000;
  uint64_t ring_bytes = 1u << 20, drain_budget = 1'000'000;
  bool json = false;
};

/// Registers the capture options on `sub` (--image and --workload required when `required`).
inline void AddPlanOptions(CLI::App& sub, PlanFlags& f, bool required) {
  auto* image = sub.add_option("--image", f.manifest, "image manifest JSON");
  auto* workload = sub.add_option("--workload", f.workload, "RV64 workload ELF");
  if (required) {
    image->required();
    workload->required();
  }
  sub.add_option("--mode", f.mode, "htm (default) or btm");
  sub.add_option("--sync-mode", f.sync_mode, "periodic sync: off|messages|halfwords");
  sub.add_option("--sync-period", f.sync_period, "sync period (power of two >= 16)");
  sub.add_option("--fabric-mhz", f.fabric_mhz, "fabric clock (default: the image's fmax)");
  sub.add_option("--sink-mhz", f.sink_mhz, "sink clock (default 100)");
  sub.add_option("--backpressure", f.backpressure,
                 "none | uniform:P | bursty:R1-R2:S1-S2 (sink cycles)");
  sub.add_option("--interrupt-every", f.interrupt_every,
                 "machine software interrupt every N retired instructions");
  sub.add_option("--ipc", f.ipc, "core IPC in (0, 1]: seeded idle cycles between beats");
  sub.add_option("--seed", f.seed, "run seed (stall pattern, sink pattern, model X init)");
  sub.add_option("--max-instructions", f.max_instructions, "ISS instruction budget");
  sub.add_option("--ring-bytes", f.ring_bytes, "capture ring size (default 1 MiB)");
  sub.add_option("--drain-budget", f.drain_budget, "sink cycles allowed for the drain");
  sub.add_option("--waves", f.waves, "write an FST waveform here");
  sub.add_flag("--json", f.json, "print the result as JSON");
}

/// trTeInstMode for --mode.
inline Result<uint8_t> ParseModeFlag(const std::string& mode) {
  if (mode == "htm") return uint8_t{6};
  if (mode == "btm") return uint8_t{3};
  return Status::InvalidArgument("--mode: expected htm or btm, got '" + mode + "'");
}

/// trTeInstSyncMode for --sync-mode.
inline Result<uint8_t> ParseSyncModeFlag(const std::string& s) {
  if (s == "off" || s == "0") return uint8_t{0};
  if (s == "messages" || s == "1") return uint8_t{1};
  if (s == "halfwords" || s == "3") return uint8_t{3};
  return Status::InvalidArgument("--sync-mode: expected off|messages|halfwords (0|1|3), got '" +
                                 s + "'");
}

/// log2 of --sync-period (0 when not given); must be a power of two in [16, 2^19].
inline Result<uint32_t> ParseSyncPeriodFlag(uint64_t period) {
  if (period == 0) return uint32_t{0};
  uint32_t log2 = 0;
  while ((1ull << log2) < period) ++log2;
  if ((1ull << log2) != period || log2 < 4 || log2 > 19) {
    return Status::InvalidArgument("--sync-period: must be a power of two in [16, 524288], got " +
                                   std::to_string(period));
  }
  return log2;
}

/// The sink pattern of --backpressure, seeded from --seed.
inline Result<lab::BackpressureProfile> SinkFromFlags(const PlanFlags& f) {
  Result<lab::BackpressureProfile> bp = lab::ParseBackpressure(f.backpressure);
  if (!bp.ok()) return Status::InvalidArgument("--backpressure: " + bp.status().message());
  bp->seed = DeriveSeed(f.seed, "backpressure");
  return bp;
}

/// The core stall pattern of --ipc, seeded from --seed.
inline Result<lab::StallPlan> StallFromFlags(const PlanFlags& f) {
  if (!(f.ipc > 0.0) || f.ipc > 1.0) return Status::InvalidArgument("--ipc: must be in (0, 1]");
  lab::StallPlan s;
  s.seed = DeriveSeed(f.seed, "stall");
  s.ipc_den = 1'000'000;
  s.ipc_num = static_cast<uint32_t>(std::lround(f.ipc * 1e6));
  return s;
}

/// ctte-board next to this executable.
inline std::string BoardPathNextToSelf() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "ctte-board";
  std::string self(buf, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/') + 1) + "ctte-board";
}

}  // namespace ctte::cli
