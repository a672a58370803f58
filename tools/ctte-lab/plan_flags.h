// Flags shared by the commands that run one configuration on a simulated board (`capture`,
// `run`): their names and help texts, in one place. The values go to runner/cli_config.h,
// which turns them into a RunConfig (the conversion lives in the library, not here).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "runner/cli_config.h"
#include "tools/ctte-lab/flag_checks.h"
#include "tools/ctte-lab/install_paths.h"

namespace ctte::cli {

struct PlanFlags : runner::CliRunFlags {
  bool json = false;
};

/// Registers the capture options on `sub` (--image and --workload required when `required`).
inline void AddPlanOptions(CLI::App& sub, PlanFlags& f, bool required) {
  auto* image = sub.add_option("--image", f.manifest, "image manifest JSON");
  auto* workload = sub.add_option("--workload", f.workload, "workload ELF (RV64 or RV32: its class must be the image's XLEN)");
  if (required) {
    image->required();
    workload->required();
  }
  AddTraceModeOptions(sub, &f.mode, &f.sync_mode, &f.sync_period);
  sub.add_option("--features", f.features,
                 "optional features: none (default) or a comma list of implicit-return[:DEPTH], "
                 "repeated-history, repeat-branch, sequential-jump, full-address, "
                 "config-message; "
                 "the image must compile them (manifest \"features\", ctteFeatureCaps), "
                 "DEPTH defaults to the image's; docs/encoder-behaviour.md section 11");
  sub.add_option("--fabric-mhz", f.fabric_mhz,
                 "fabric clock, 0..1500 MHz (default 0: the image's fmax)")
      ->check(FiniteIn(0, kMaxClockMhz));
  sub.add_option("--sink-mhz", f.sink_mhz, "sink clock, in the PLL range up to 1500 MHz (default 100)")
      ->check(FiniteIn(0, kMaxClockMhz));
  sub.add_option("--backpressure", f.backpressure,
                 "none | uniform:P (ready %, 1..100) | bursty:A-B (block lengths in sink "
                 "cycles); the campaign grammar, docs/campaign-spec.md");
  sub.add_option("--interrupt-every", f.interrupt_every,
                 "machine software interrupt every N retired instructions")
      ->check(Unsigned());
  sub.add_option("--ipc", f.ipc, "core IPC in [0.01, 1], steps of 0.01: seeded idle cycles")
      ->check(FiniteIn(0.01, 1));
  sub.add_option("--seed", f.seed, "run seed (stall pattern, sink pattern, model X init)")
      ->check(Unsigned());
  sub.add_option("--max-instructions", f.max_instructions,
                 "ISS instruction budget, 1..10^9")
      ->check(UnsignedIn(1, kMaxInstructionsFlag));
  sub.add_option("--ring-bytes", f.ring_bytes, "capture ring size, 1..1 GiB (default 1 MiB); more than the board holds (its identity's max_ring_bytes: sim 256 MiB, Zynq its u-dma-buf) is refused before the run")
      ->check(UnsignedIn(1, kMaxRingBytesFlag));
  sub.add_option("--drain-budget", f.drain_budget,
                 "sink cycles allowed for the drain, 1..10^10")
      ->check(UnsignedIn(1, kMaxDrainBudgetFlag));
  sub.add_option("--waves", f.waves, "write an FST waveform here")->check(OutputPathFlag());
  sub.add_flag("--json", f.json, "print the result as JSON");
}

}  // namespace ctte::cli
