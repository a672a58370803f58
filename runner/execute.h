// Executing one run: RunConfig -> RunPlan + reference -> board (deploy, clocks, run) -> decode
// -> the eight verdicts -> RunOutcome (everything the database stores about a run).
//
// Status of a run (DESIGN.md section 5):
//   green   no verdict failed;
//   red     a verdict failed, or the design fired an RTL assertion (verdict rtl_assertion);
//   invalid the measurement was unsound: the capture ring wrapped, or a clock read back outside
//           tolerance of what the board said it programmed;
//   infra   the lab failed: deploy refused (SHA-256 or build id mismatch), identity mismatch,
//           closure gate (fabric clock above the image's fmax), board death or timeout, protocol
//           error.
// Invalid and infra runs still carry whatever was measured; they are never green.
//
// Threading: ExecuteRun uses the boards it is given from the calling thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/records.h"
#include "lab/board.h"
#include "lab/image_manifest.h"
#include "oracle/judges.h"
#include "oracle/program_image.h"
#include "oracle/run_facts.h"
#include "runner/run_config.h"

namespace ctte::runner {

struct ExecuteOptions {
  std::string image_dir;      ///< holds <image>.manifest.json (+ the .so it names)
  std::string workload_dir;   ///< holds <workload>.elf
  std::string scratch_dir;    ///< where generated workloads ("random") are written; "" = /tmp
  std::string manifest_path;  ///< overrides image_dir lookup
  std::string workload_path;  ///< overrides workload_dir lookup
  uint64_t max_instructions = 5'000'000;  ///< beat budget of the core
  uint64_t ring_bytes = 1u << 20;
  uint64_t drain_budget_sink_cycles = 1'000'000;
  /// A clock whose read-back differs from what the board programmed by more than this
  /// (parts per million) makes the run invalid.
  uint64_t clock_tolerance_ppm = 1000;
  std::string fst_path;
  /// Overrides of the board plan for the CLI's capture-style flags (lab formats).
  std::optional<lab::BackpressureProfile> sink_override;
  std::optional<lab::StallPlan> stall_override;
  /// The stream of an earlier run of the same key (a determinism pair run separately, e.g. run
  /// 2k of a campaign for its twin 2k+1): judged as the twin when no twin board is given.
  std::optional<std::vector<uint8_t>> twin_stream;
};

/// A run ready for a board: the plan (window edges as beat indices) and the reference.
struct PreparedRun {
  RunConfig config;
  lab::ImageManifest manifest;
  std::string workload_path;
  lab::RunPlan plan;
  uint64_t fabric_hz = 0, sink_hz = 0;  ///< requested
  std::unique_ptr<oracle::ProgramImage> program;
  oracle::Expected expected;  ///< points into *program
};

/// Plans `config`: finds the manifest and the workload, converts retirement-index window edges
/// to beat indices by running the ISS, and builds the reference (ISS + reference encoder).
/// Errors (InvalidArgument / NotFound) name the field or file.
Result<PreparedRun> PrepareRun(const RunConfig& config, const ExecuteOptions& options);

struct RunOutcome {
  RunConfig config;
  db::RunStatus status = db::RunStatus::kInfra;
  std::string status_reason;       ///< why not green: the first failure, or the lab error
  std::string image_name;
  std::string image_sha256;        ///< as computed at the target by the deploy
  std::string build_id;            ///< read back from the design, "0x..."
  std::string board_kind, board_serial;
  db::ClockReading fabric, sink;
  std::vector<oracle::Verdict> verdicts;  ///< the eight (or rtl_assertion), in code order
  oracle::RunMetrics metrics;
  std::vector<uint8_t> stream;
  std::string stream_sha256;
  uint64_t stream_size = 0;
  std::string twin_stream_sha256;  ///< "" without a twin
  std::string counters_json;       ///< board counters and capture status
  std::string metrics_json;        ///< RunMetrics + episodes + capture timing
  double wall_seconds = 0;         ///< host time (informational)

  /// One verdict row per verdict: code name, outcome, evidence text, metrics JSON.
  std::vector<db::VerdictRecord> VerdictRecords() const;
  /// The run row (the caller sets campaign_id, board_id, started_at, replay_of).
  db::RunRecord ToRunRecord() const;
  /// Everything above as one JSON document (ctte-lab run --json).
  std::string ToJson(int indent = 2) const;
};

/// Runs a prepared run on `board` (and its determinism twin on `twin_board` when given).
/// Never fails: lab problems become an infra or invalid outcome with the reason.
RunOutcome ExecuteRun(const PreparedRun& run, lab::Board& board, lab::Board* twin_board,
                      const ExecuteOptions& options);

/// Converts the board's capture into the judges' view.
oracle::CaptureFacts ToCaptureFacts(const lab::Capture& capture, uint64_t drain_budget);

/// "decode_integrity pass: ..." lines, one per verdict, then the status line.
std::string FormatOutcome(const RunOutcome& outcome);

}  // namespace ctte::runner
