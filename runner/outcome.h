// RunOutcome: everything the runner learnt about one run, and the rules that classify it.
//
// Status rules (DESIGN.md section 5, docs/verdicts.md), applied by the functions below:
//   green   no verdict failed;
//   red     a verdict failed, or the design fired an RTL assertion (verdict rtl_assertion,
//           built by RtlAssertionVerdict: the one place the runner issues a verdict);
//   invalid the measurement was unsound: the capture ring wrapped, or a clock read back outside
//           tolerance of what the board said it programmed;
//   infra   the lab failed (InfraCause says where: deploy, identity, clocks, closure gate, board
//           death or timeout, protocol error), or the config could not be planned (kPrepare).
// Invalid and infra runs still carry whatever was measured; they are never green.
//
// The outcome stays typed (capture counters, metrics, verdicts) until an edge serialises it:
// ToRunRecord / VerdictRecords / StoredRunRecord for the database, ToJson for `--json`. Each
// JSON text is built once, in outcome.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/records.h"
#include "lab/board.h"
#include "oracle/judges.h"
#include "runner/board_session.h"
#include "runner/run_config.h"
#include "runner/run_status.h"

namespace ctte::runner {

struct RunOutcome {
  RunConfig config;
  RunStatus status = RunStatus::kInfra;
  InfraCause cause = InfraCause::kNone;  ///< why infra; kNone for the other statuses
  std::string status_reason;       ///< why not green: the first failure, or the lab error
  std::string image_name;
  std::string image_sha256;        ///< as computed at the target by the deploy
  std::string build_id;            ///< read back from the design, "0x..."
  /// What the run ran, by content (the ELF and its digest, the generator version); the tool
  /// version is added by ToRunRecord. Empty when the run could not be prepared.
  db::RunPins pins;
  std::string board_kind, board_serial;
  db::ClockReading fabric, sink;
  std::vector<oracle::Verdict> verdicts;  ///< the eight (or rtl_assertion), in code order
  oracle::RunMetrics metrics;
  std::vector<uint8_t> stream;
  std::string stream_sha256;
  uint64_t stream_size = 0;
  std::string twin_stream_sha256;  ///< "" without a twin
  /// The judged capture's counters, status and timing (its bytes are in `stream`); nullopt when
  /// the run ended before judging.
  std::optional<lab::Capture> capture;
  double wall_seconds = 0;         ///< host time (informational)

  /// One verdict row per verdict: code name, outcome, evidence text, metrics JSON.
  std::vector<db::VerdictRecord> VerdictRecords() const;
  /// The run row (the caller sets campaign_id, board_id, started_at, replay_of).
  db::RunRecord ToRunRecord() const;
  /// Everything above as one JSON document (ctte-lab run --json).
  std::string ToJson(int indent = 2) const;
};

/// One earlier attempt of a run: an outcome the lab gave up on and tried again (the soak's
/// retry). Maps field for field onto the database's run_attempts rows (db::AttemptRecord,
/// infra_cause as InfraCauseName()); the run row itself holds the last attempt.
struct RunAttempt {
  int64_t board_id = 0;                  ///< boards.id it ran on
  RunStatus status = RunStatus::kInfra;
  InfraCause cause = InfraCause::kNone;
  std::string reason;                    ///< the attempt's status reason
  bool respawned = false;                ///< the board process was replaced after it
  std::string started_at;                ///< ISO-8601 UTC
  int64_t wall_ms = 0;
  bool operator==(const RunAttempt&) const = default;
};

/// The attempt record of `outcome`, run on board `board_id` from `started_at`.
RunAttempt AttemptOf(const RunOutcome& outcome, int64_t board_id, const std::string& started_at,
                     bool respawned);

/// The database's cause token for a runner cause (several runner causes share one token:
/// identity and manifest mismatches are "deploy", a board error is "protocol").
db::InfraCause ToDbInfraCause(InfraCause cause);
/// The run_attempts rows of a run's earlier attempts (RecordRun's `earlier_attempts`).
db::AttemptRecord ToAttemptRecord(const RunAttempt& attempt);
std::vector<db::AttemptRecord> ToAttemptRecords(const std::vector<RunAttempt>& attempts);

/// An infra outcome for a config that could not be planned (cause kPrepare).
RunOutcome PrepareFailedOutcome(const RunConfig& config, const Status& why);

/// Copies what the session learnt (image, board, clocks) into `out` and, when the session ended
/// before a capture, classifies the run from it. `prefix` ("" or "twin: ") goes in front of the
/// reason and of the rtl_assertion evidence.
void ApplySession(const BoardSession& session, const std::string& prefix, RunOutcome* out);

/// Classifies a judged run from its verdicts (green or red), then the capture ring: a wrapped
/// ring (in the main or the twin capture) makes it invalid.
void ClassifyJudged(bool ring_wrapped, uint64_t bytes_received, uint64_t ring_bytes,
                    RunOutcome* out);

/// The rtl_assertion verdict (fail) with `message` as its evidence.
oracle::Verdict RtlAssertionVerdict(const std::string& message);

/// The text-level status the database stores for a run status.
db::RunStatus ToDbStatus(RunStatus status);
/// Its inverse, the one conversion back: nullopt for a planned row (not run yet).
std::optional<RunStatus> FromDbStatus(db::RunStatus status);

/// How many loss episodes a stored run row keeps in metrics_json "episodes" (the first ones);
/// "loss_episodes" counts them all, "episodes_omitted" the ones left out, "episode_summary"
/// totals and log2 histograms over all of them (docs/db-schema.md#bounded-metrics). The full
/// list is what a replay recomputes (`ctte-lab replay RUN --json`).
inline constexpr size_t kStoredEpisodes = 16;

/// The run row stored for an outcome: ToRunRecord() with the status reason added to
/// metrics_json as "status_reason" (the run row has no column of its own for it), and the
/// config's image name when the deploy never said. The caller sets campaign_id, board_id,
/// started_at and replay_of.
db::RunRecord StoredRunRecord(const RunOutcome& outcome);

/// The stored (bounded) form of a metrics_json text that lists every episode (a row written
/// before the bound, or `run --json`'s "metrics"): the text StoredRunRecord writes for the same
/// run. A text already bounded, or without episodes, is returned as it is. bench/db_bytes uses
/// it to measure the bound on an existing database.
Result<std::string> BoundMetricsJson(const std::string& full_metrics_json);

/// "decode_integrity pass: ..." lines, one per verdict, then the status line.
std::string FormatOutcome(const RunOutcome& outcome);

}  // namespace ctte::runner
