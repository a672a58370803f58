// Judge captures as golden files (docs/test-captures.md): a CapturedRun is a prepared run (its
// reference, from the ISS) and the board's captures of it (main and determinism twin). The judge
// tests (tests/judge) load them from tests/judge/captures/, so they need no encoder image and run
// in the unit tier and under ASan; integration_test's JudgeCapturesTest captures every golden file
// again on the current images and fails when a byte or a counter differs (and rewrites them under
// CTTE_RECORD_CAPTURES=1, scripts/record-captures).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "lab/board.h"
#include "oracle/judges.h"
#include "runner/execute.h"
#include "runner/plan.h"
#include "runner/run_config.h"

namespace ctte::testing {

/// The folder of the golden captures (in the source tree).
inline const std::string kCaptureDir = CTTE_SOURCE_DIR "/tests/judge/captures";
inline const std::string kImageDir = CTTE_BINARY_DIR "/images";
inline const std::string kWorkloadDir = CTTE_BINARY_DIR "/workloads";

inline runner::ExecuteOptions TestOptions(uint64_t max_instructions) {
  runner::ExecuteOptions o;
  o.image_dir = kImageDir;
  o.workload_dir = kWorkloadDir;
  o.max_instructions = max_instructions;
  return o;
}

/// A base configuration (slim image, HTM, no pressure); tests change fields.
runner::RunConfig BaseConfig(const std::string& image, const std::string& workload);

/// The lossy configuration of the judges' negative tests: `sort` under 30 % ready at a 25 MHz
/// sink, no core stalls, paused from retirement 4000 to 6000 (loss episodes on a shallow image).
runner::RunConfig LossyPauseResumeConfig(const std::string& image);

/// One captured run: the prepared run (with its reference), the board captures, the facts.
struct CapturedRun {
  runner::PreparedRun run;
  lab::Capture capture;
  lab::Capture twin_capture;
  bool has_twin = false;

  oracle::Observed Observe() const;
  /// Observed for manipulated main bytes (counters adjusted by the caller).
  oracle::Observed ObserveBytes(const std::vector<uint8_t>& bytes) const;
};

/// What a golden file is keyed by: the run configuration and the instruction budget.
/// "<image>.<workload>.<12 hex digits of SHA-256 over the config JSON and the budget>.json".
std::string CaptureFileName(const runner::RunConfig& config, uint64_t max_instructions);

/// SHA-256 over what the reference depends on in a workload ELF: its entry point and its
/// loadable segments (address, size, bytes). Not the file's hash: the ELF's debug sections name
/// the build tree, which differs between clones and between build/ and build-asan/.
std::string ProgramDigest(const oracle::ProgramImage& program);

/// The golden file for (config, options.max_instructions) in `dir`: the stored manifest, the
/// workload from options.workload_dir (its ProgramDigest must equal the recorded one), the
/// reference computed again, the stored captures. A missing file is written as a request
/// ({"pending": true, config, budget}) and reported, naming scripts/record-captures.
Result<std::unique_ptr<CapturedRun>> LoadCapturedRun(const std::string& dir,
                                                     const runner::RunConfig& config,
                                                     const runner::ExecuteOptions& options,
                                                     bool twin);

/// A golden file's request: its configuration and budget (also of a pending file).
struct CaptureRequest {
  runner::RunConfig config;
  uint64_t max_instructions = 0;
  bool pending = false;
};
Result<CaptureRequest> ReadCaptureRequest(const std::string& path);

/// Writes `run` as the golden file `path` (config, budget, manifest text, program digest,
/// captures with their bytes in hex).
Status WriteCapturedRun(const std::string& path, const CapturedRun& run,
                        uint64_t max_instructions);

/// The differences between two captures a golden file pins (bytes and every fact but the
/// host's wall time), one per line; empty when they agree.
std::string CaptureDifferences(const lab::Capture& golden, const lab::Capture& fresh);

}  // namespace ctte::testing
