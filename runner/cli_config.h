// RunConfig from the command line: what `ctte-lab run` and `ctte-lab capture` build from their
// flags (campaign "cli", index 0), so that a flag-built run is an ordinary RunConfig: planned by
// runner/plan.h like a drawn one, printed by `run --json`, and runnable again with
// `run --config`.
//
// The flags use the campaign grammar (docs/campaign-spec.md): --backpressure none | uniform:P
// (ready percentage 1..100) | bursty:A-B (block lengths in sink cycles); --mode htm|btm;
// --sync-mode off|messages|halfwords with --sync-period 2^n (16 <= 2^n <= 2^19); --ipc in steps
// of 0.01. Each random stream of the board is seeded from --seed (DeriveSeed(seed, "stall" /
// "backpressure" / "model")). Errors are InvalidArgument naming the flag.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "lab/board.h"
#include "runner/plan.h"
#include "runner/run_config.h"

namespace ctte::runner {

/// The flag values, defaults as the CLI shows them.
struct CliRunFlags {
  std::string manifest, workload, waves;
  std::string mode = "htm", sync_mode = "off", backpressure = "none";
  std::string features = "none";  ///< --features (docs/encoder-behaviour.md section 11)
  uint64_t sync_period = 0;
  double fabric_mhz = 0;  ///< 0: the image's fmax
  double sink_mhz = static_cast<double>(lab::kDefaultSinkHz) / 1e6;
  double ipc = 1.0;
  uint64_t interrupt_every = 0, seed = 1;
  uint64_t max_instructions = lab::kDefaultMaxInstructions;
  uint64_t ring_bytes = lab::kDefaultRingBytes;
  uint64_t drain_budget = lab::kDefaultDrainBudgetSinkCycles;
  uint64_t window_start = 0, pause = 0, resume = 0, stop = 0;  ///< retirement indices, 0 = none
};

/// The RunConfig of the flags (needs --image and --workload; reads the manifest for the image
/// name). Sets the plan options the flags decide: manifest and workload paths, budgets, waves.
Result<RunConfig> RunConfigFromFlags(const CliRunFlags& flags, PlanOptions* options);

/// --sync-mode (off|messages|halfwords, or 0|1|3) and --sync-period (a power of two in
/// [16, 2^19]; 0 = 16) as a SyncPolicy; the one parser `run`, `capture` and `encode` share.
Result<SyncPolicy> SyncFromFlags(std::string_view sync_mode, uint64_t sync_period);

/// The plan options of the flags alone (for `run --config`: budgets and waves, and the
/// --image / --workload paths when given).
void PlanOptionsFromFlags(const CliRunFlags& flags, PlanOptions* options);

}  // namespace ctte::runner
