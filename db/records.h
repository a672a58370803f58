// The typed rows of the lab database (docs/db-schema.md). No SQLite types leak out of db/:
// writers fill these structs, queries return them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctte::db {

/// The text of runs.status, as the column holds it: "planned" rows are drawn but not yet run;
/// the others are run outcomes. This is the storage vocabulary only: the run classification
/// itself (and its rules) belongs to the runner (runner/run_status.h), which maps to this at
/// the db edge.
enum class RunStatus { kPlanned, kGreen, kRed, kInvalid, kInfra };
const char* RunStatusName(RunStatus status);
std::optional<RunStatus> ParseRunStatus(std::string_view text);

/// verdicts.outcome. The stored text ("pass", "fail", "n/a") is the vocabulary this enum shares
/// with oracle::Outcome (oracle/verdict.h): map an oracle outcome to a row with
/// ParseOutcome(oracle::OutcomeName(o)), so db/ needs no oracle/ edge.
enum class Outcome { kPass, kFail, kNotApplicable };
const char* OutcomeName(Outcome outcome);  ///< "pass", "fail", "n/a"
/// Inverse of OutcomeName; nullopt for any other text.
std::optional<Outcome> ParseOutcome(std::string_view text);

/// Why a lab attempt failed (runs.infra_cause, run_attempts.infra_cause): a short stable token.
/// Never rename or reuse a token; add new ones at the end (docs/db-schema.md#infra-causes).
enum class InfraCause {
  kBoardDied,     ///< "board_died": the board process exited or was killed mid-run
  kBoardTimeout,  ///< "board_timeout": the board stopped answering within its deadline
  kDeploy,        ///< "deploy": image digest or identity mismatch, or loading failed
  kClosureGate,   ///< "closure_gate": the requested clock exceeds the image's fmax
  kPrepare,       ///< "prepare": the run could not be prepared (image, workload, plan)
  kProtocol,      ///< "protocol": a malformed or unexpected board-protocol message
  kDatabase,      ///< "database": the lab could not store the result
  kInterrupted,   ///< "interrupted": the soak was stopped (signal, budget) mid-run
  kOther,         ///< "other": anything not above (no cause of today's runner is stored so)
  // The runner's causes (runner/run_status.h InfraCause), each under the runner's own token, so
  // that the soak's log, `replay`, `show`, `history` and the reports say the same. Rows written
  // before these tokens existed say "deploy" for identity and manifest_mismatch, "protocol" for
  // board_error and "other" for clock and ring_capacity; they are read as they are.
  kIdentity,          ///< "identity": the board reports another image than the one deployed
  kClock,             ///< "clock": setting or reading back a clock failed
  kBoardError,        ///< "board_error": another failure the board or its protocol reported
  kManifestMismatch,  ///< "manifest_mismatch": identity registers disagree with the manifest
  kRingCapacity,      ///< "ring_capacity": the plan's ring is larger than the board can hold
};
const char* InfraCauseName(InfraCause cause);
/// Inverse of InfraCauseName; nullopt for any other text.
std::optional<InfraCause> ParseInfraCause(std::string_view text);
/// Whether a stored cause is a board death (board_died or board_timeout).
bool IsBoardDeath(std::string_view infra_cause);

/// The reason a run row gives for its status: metrics_json's "status_reason" when that is a
/// string (runner::StoredRunRecord writes it so), else "". The one reader of it: `show`,
/// `replay` and the reports call this, so a row holding anything else there reads as no reason.
std::string StatusReasonOf(std::string_view metrics_json);

struct CampaignRecord {
  std::string name;
  std::string description;
  uint64_t seed = 0;
  std::string spec_json;     ///< the spec as given (its SHA-256 identifies the campaign row)
  std::string created_at;    ///< caller's timestamp, ISO 8601 UTC
};

struct ImageRecord {
  std::string name;
  std::string sha256;
  std::string build_id;
  std::string manifest_json;  ///< empty = NULL
};

struct BoardRecord {
  std::string kind;     ///< how the lab reaches the board, e.g. "remote:sim" (lab::Identity)
  std::string serial;
  std::string info_json;  ///< empty = NULL
};

/// One clock domain: what the runner asked for, what the board programmed, what it read back.
struct ClockReading {
  std::optional<uint64_t> requested_hz;
  std::optional<uint64_t> programmed_hz;
  std::optional<uint64_t> read_back_hz;
  bool operator==(const ClockReading&) const = default;
};

/// What a run ran, by content (run_pins, the content-pins migration; docs/db-schema.md): the
/// exact ELF (its name on the workload axis, the file read, its SHA-256), the program
/// generator's version for workload "random", and the tool version that planned and judged it.
struct RunPins {
  std::string workload;            ///< the workload axis value
  std::string workload_path;       ///< the ELF file the run loaded
  std::string workload_sha256;     ///< SHA-256 of that file
  std::string generator_version;   ///< oracle::kProgramGenVersion for "random"; else empty
  std::string tool_version;        ///< ctte::ToolVersion() of the tool that ran it
  bool empty() const { return workload_sha256.empty() && tool_version.empty(); }
  bool operator==(const RunPins&) const = default;
};

/// A run as written. Empty strings and empty optionals are stored as NULL.
struct RunRecord {
  int64_t campaign_id = 0;
  uint64_t index = 0;
  uint64_t seed = 0;
  std::string config_json;     ///< RunConfig JSON (runner/run_config.h)
  RunStatus status = RunStatus::kPlanned;
  std::string image_name;
  std::string image_sha256;
  std::optional<int64_t> board_id;
  ClockReading fabric;
  ClockReading sink;
  std::string started_at;      ///< caller's timestamp
  std::optional<int64_t> wall_ms;
  std::string stream_sha256;
  std::optional<uint64_t> stream_size;
  std::string counters_json;
  std::string metrics_json;
  std::optional<int64_t> replay_of;  ///< runs.id of the run this one replays
  /// InfraCauseName() of why the run is infra (schema 2); empty = NULL. Only for infra runs.
  std::string infra_cause;
  /// Content pins (run_pins); none stored when empty() (e.g. a run that failed to prepare).
  RunPins pins;
};

/// An earlier attempt of a run: one the lab gave up on and tried again (run_attempts, schema 2).
/// The run row holds the last attempt; these are the ones before it, in order.
struct AttemptRecord {
  std::optional<int64_t> board_id;          ///< the board it ran on (boards.id)
  RunStatus status = RunStatus::kInfra;     ///< infra or invalid
  std::string infra_cause;                  ///< InfraCauseName(); required for infra
  std::string reason;                       ///< the attempt's status reason
  /// The lab replaced the board process after this attempt (before trying again).
  bool respawned = false;
  std::string started_at;                   ///< caller's timestamp; empty = NULL
  std::optional<int64_t> wall_ms;
  bool operator==(const AttemptRecord&) const = default;
};

/// A run as read back.
struct RunRow {
  int64_t id = 0;
  std::string campaign_name;
  RunRecord run;
  /// Whether the run's verdicts count in totals (see "judged" in db/database.h); computed by
  /// the query, not stored.
  bool judged = false;
  /// How many earlier attempts the run has (run_attempts rows; 0 on a schema-1 file).
  uint64_t earlier_attempts = 0;
};

/// A control run as stored (docs/campaign-spec.md "Controls"): its marker in config_json
/// ("control": name, round, shard, expect_red; "image") and its result in metrics_json
/// ("control": passed, observed_red, reason; runner/controls.cc writes it). The one reader of
/// both, for the runner's resume and the reports: a field of the wrong type reads as absent.
struct StoredControl {
  std::string name;
  std::string image;
  uint32_t round = 0;
  std::string shard;                    ///< "I/N", or "" unsharded
  std::vector<std::string> expect_red;  ///< empty: the clean control
  std::string board;                    ///< the board that ran it ("" before boards were named)
  bool has_result = false;              ///< metrics_json holds a control result
  bool passed = false;
  std::vector<std::string> observed_red;
  std::string reason;
};
/// nullopt when the row is not an original control run (a draw, a replay, no marker).
std::optional<StoredControl> StoredControlOf(const RunRow& row);

/// The name a board row was registered under (info_json "name", runner/board_worker.h), or ""
/// (rows from before names, or an info of another shape).
std::string StoredBoardName(const BoardRecord& board);

struct VerdictRecord {
  std::string verdict;         ///< verdict code name, e.g. "decode_integrity" (docs/verdicts.md)
  Outcome outcome = Outcome::kNotApplicable;
  std::string evidence;
  std::string metrics_json;    ///< empty = NULL
};

/// One run for Database::RecordRuns: what one RecordRun call takes.
struct RunWrite {
  RunRecord run;
  std::vector<VerdictRecord> verdicts;
  std::optional<std::vector<uint8_t>> stream;  ///< stored stream bytes, if kept
  std::vector<AttemptRecord> earlier_attempts;
};

struct CampaignSummary {
  int64_t id = 0;
  std::string name;
  std::string description;
  uint64_t seed = 0;
  std::string spec_sha256;
  std::string created_at;
  uint64_t planned = 0, green = 0, red = 0, invalid = 0, infra = 0;
  uint64_t total() const { return planned + green + red + invalid + infra; }
  /// Original runs that needed more than one attempt (schema 2; 0 before).
  uint64_t retried = 0;
  /// Attempts of original runs that ended infra: earlier attempts plus runs stored as infra.
  uint64_t infra_attempts = 0;
};

/// Infrastructure on one board over original, finished runs (Database::InfraByBoard). An
/// attempt belongs to the board it ran on; a run to the board of its last attempt.
struct BoardInfraCounts {
  std::optional<int64_t> board_id;  ///< nullopt: runs stored without a board
  std::string kind, serial;
  uint64_t runs = 0;            ///< runs whose last attempt ran here
  uint64_t infra_attempts = 0;  ///< attempts here that ended infra (earlier or last)
  uint64_t retries = 0;         ///< earlier attempts here: the run was tried again afterwards
  uint64_t deaths = 0;          ///< infra attempts here caused by board_died or board_timeout
  uint64_t respawns = 0;        ///< earlier attempts here after which the board was replaced
};

struct OutcomeCount {
  std::string verdict;
  uint64_t pass = 0, fail = 0, not_applicable = 0;
};

/// Runs grouped by the value one factor (axis) took in their config.
struct FactorRate {
  std::string factor;
  std::string value;
  uint64_t runs = 0;   ///< all runs with this value
  uint64_t green = 0;
  uint64_t red = 0;
  /// red / (green + red): the share of judged runs that went red; 0 when none was judged.
  double fail_rate() const {
    return green + red == 0 ? 0.0 : static_cast<double>(red) / static_cast<double>(green + red);
  }
};

}  // namespace ctte::db
