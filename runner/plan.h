// Planning one run: RunConfig -> PreparedRun (the board's RunPlan plus the reference).
//
// Contract:
//  - PrepareRun touches no board. It finds the image manifest and the workload ELF (writing the
//    generated program of workload "random" once into a cache directory), maps the config to
//    the board plan, and builds the reference (ISS + reference encoder). A bad config or a
//    missing file is an InvalidArgument / NotFound naming the field or the file, never a lab
//    failure.
//  - This file is the one place where the config's mode, sync policy and backpressure become
//    register and board values (reg::kInstMode*, reg::kSyncMode*, lab::BackpressureProfile).
//  - Plan defaults (beat budget, capture ring, drain budget, sink clock) are lab/board.h's.
//  - The plan needs the reference model: trace-window edges are given as retirement indices and
//    the board applies them between beats, so the ISS is run once to convert them (and once more
//    inside BuildExpected). The board then runs the same ISS as its core. This common-mode risk
//    is covered by the ISS-vs-QEMU differential test (tests/oracle/iss_qemu_test.cc).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "lab/board.h"
#include "lab/image_manifest.h"
#include "oracle/features.h"
#include "oracle/program_image.h"
#include "oracle/run_facts.h"
#include "runner/run_config.h"

namespace ctte::runner {

struct PlanOptions {
  std::string image_dir;      ///< holds <image>.manifest.json (+ the .so it names)
  std::string workload_dir;   ///< holds <workload>.elf
  std::string scratch_dir;    ///< cache of generated workloads ("random"); "" = /tmp
  std::string manifest_path;  ///< overrides image_dir lookup
  /// Image name -> its manifest path, looked up before image_dir (a stored run's image, from the
  /// build tree or the artifact store: runner/stored_run.h).
  std::map<std::string, std::string> image_manifests;
  /// Image name -> the SHA-256 its manifest must name (a stored run's image): another digest is
  /// an InvalidArgument naming both.
  std::map<std::string, std::string> image_sha256;
  std::string workload_path;  ///< overrides workload_dir lookup
  /// The campaign's user workloads ($.workloads): name -> ELF path; looked up before
  /// workload_dir.
  std::map<std::string, std::string> user_workloads;
  uint64_t max_instructions = lab::kDefaultMaxInstructions;  ///< beat budget of the core
  uint64_t ring_bytes = lab::kDefaultRingBytes;
  uint64_t drain_budget_sink_cycles = lab::kDefaultDrainBudgetSinkCycles;
  std::string fst_path;       ///< "" = no waveform
  /// False: plan only, no reference (PreparedRun::expected stays empty). Only for configs
  /// without window edges (`ctte-lab capture`); InvalidArgument otherwise.
  bool build_reference = true;
  /// Campaign runs (soak, its controls, bisect legs): config.features, as drawn, is first
  /// clamped to the features the image compiles (ClampFeatures, runner/features_axis.h), and the
  /// clamped set is what PreparedRun::config records. Off (`run`, `replay`): a feature the
  /// image lacks is an InvalidArgument.
  bool clamp_features = false;
};

/// A run ready for a board: the plan (window edges as beat indices) and the reference.
struct PreparedRun {
  RunConfig config;
  lab::ImageManifest manifest;
  std::string workload_path;
  std::string workload_sha256;    ///< of the ELF file the run loads (content pin)
  std::string generator_version;  ///< oracle::kProgramGenVersion for "random", else empty
  lab::RunPlan plan;
  uint64_t fabric_hz = 0, sink_hz = 0;  ///< requested
  std::unique_ptr<oracle::ProgramImage> program;
  oracle::Expected expected;  ///< points into *program
};

Result<PreparedRun> PrepareRun(const RunConfig& config, const PlanOptions& options);

/// Writes the reference PC sequence of `run` (the ISS under the plan's budget and interrupts),
/// one "0x80000000" per retired instruction per line.
Status WriteReferencePcs(const PreparedRun& run, const std::string& path);

/// The board-level sink pattern of a campaign backpressure value (docs/campaign-spec.md):
/// uniform:P is ready with probability P/100; bursty:A-B alternates ready and stall blocks whose
/// lengths are drawn in [A, B] sink cycles.
lab::BackpressureProfile SinkProfile(const Backpressure& backpressure, uint64_t seed);

/// trTeInstMode for a mode axis value ("htm" or "" -> kInstModeHtm, "btm" -> kInstModeBtm).
Result<uint8_t> InstModeRegister(std::string_view mode);
/// trTeInstSyncMode for a sync policy.
uint8_t SyncModeRegister(SyncPolicy::Kind kind);

}  // namespace ctte::runner
