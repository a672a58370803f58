// The result model of one campaign: everything the HTML, JUnit and CSV renderers show, built
// from database rows only (house style 26). Renderers never compute verdicts: a run's status and
// its verdict outcomes are what the runner stored; the model only reads them, groups runs by
// factor value and pulls the plotted numbers out of each run's metrics_json.
//
// Threading: a ReportModel is a plain value; BuildReportModel uses the Database it is given from
// the calling thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "db/database.h"
#include "db/triage_store.h"
#include "reports/control_table.h"
#include "db/records.h"

namespace ctte::reports {

struct ReportVerdict {
  std::string verdict;  ///< code name, e.g. "loss_accounting" (docs/verdicts.md#<name>)
  db::Outcome outcome = db::Outcome::kNotApplicable;
  std::string evidence;
};

/// One run of the campaign (replays are listed separately).
struct ReportRun {
  int64_t id = 0;
  uint64_t index = 0;
  uint64_t seed = 0;
  db::RunStatus status = db::RunStatus::kPlanned;
  /// Whether its verdicts count in the totals: the database's definition of a judged run
  /// (db::RunRow::judged: green or red). An invalid run may list verdicts that do not count.
  bool judged = false;
  /// Why the run is not green: the stored status_reason, else the first failed verdict.
  std::string reason;
  std::vector<std::pair<std::string, std::string>> axes;  ///< config_json "axes", in order
  std::optional<uint64_t> twin_of;
  std::string image_name, image_sha256;
  std::string started_at;
  std::optional<int64_t> wall_ms;
  std::string stream_sha256;
  std::optional<uint64_t> stream_size;
  std::optional<uint64_t> fabric_hz, sink_hz;  ///< read back (else programmed, else requested)

  // From metrics_json (absent when the run was not judged).
  std::optional<double> wire_bits_per_instruction;
  std::optional<double> payload_bits_per_instruction;
  /// The paper's Section IX figures (metrics_json, docs/verdicts.md "Run metrics"): messages per
  /// 1000 decoded instructions, the reference encoder's wire bits per instruction on the same
  /// beats, and the offered output rate's peak against its mean. Empty for older rows.
  std::optional<double> messages_per_kilo_instruction;
  std::optional<double> reference_wire_bits_per_instruction;
  std::optional<double> output_peak_to_mean;
  std::optional<uint64_t> reference_instructions;
  std::optional<uint64_t> lost_instructions;  ///< announced + silent
  /// lost / reference instructions.
  std::optional<double> loss_fraction;
  /// Sink bytes offered per fabric cycle: sink_hz / fabric_hz times the mean ready share of the
  /// backpressure profile (1 for none, p/100 for uniform:p, 1/2 for bursty).
  std::optional<double> sink_capacity;
  /// Loss episodes of the run, recovered or not (every episode, from metrics_json
  /// "episode_summary"; runs stored before it existed count their "episodes" list).
  uint64_t recovered_episodes = 0;
  uint64_t unrecovered_episodes = 0;
  /// Recovered episodes per log2 bucket of their recovery distance (Error to anchor, bytes):
  /// [k] counts distances of bit length k (0; 1; 2-3; 4-7; ...).
  std::vector<uint64_t> recovery_bytes_log2;
  /// Loss coverage (metrics_json "loss_coverage", docs/verdicts.md "Loss coverage"): episodes
  /// whose dropped beat the judge found, and of those how many dropped it with each kind of
  /// compression state present. All 0 for a drop-free run or one stored before it existed.
  struct LossCoverage {
    uint64_t drops = 0, return_stack = 0, hist = 0, held_repeat = 0, seq_jump_setter = 0;
  } loss_coverage;

  std::vector<ReportVerdict> verdicts;
  std::string replay_command;

  std::optional<int64_t> board_id;  ///< the board of the stored (last) attempt
  std::string infra_cause;          ///< why the run is infra (db::InfraCauseName), if stored
  /// The attempts before the stored one (db::Database::AttemptsOfRun): a run that went green
  /// after a board died has one here.
  std::vector<db::AttemptRecord> earlier_attempts;
  bool retried() const { return !earlier_attempts.empty(); }
  /// "attempt 1: infra (board_died) on board 3: <reason>" per earlier attempt, one per line.
  std::string AttemptsNote() const;

  std::string AxisValue(const std::string& axis) const;
  std::vector<std::string> FailedVerdicts() const;
};

/// Runs per value of one factor, by status.
struct FactorValueCounts {
  std::string factor, value;
  uint64_t green = 0, red = 0, invalid = 0, infra = 0, planned = 0;
  uint64_t runs() const { return green + red + invalid + infra + planned; }
};

/// Outcomes of one verdict over the judged runs where one factor took one value.
struct FactorVerdictCounts {
  std::string factor, value, verdict;
  uint64_t pass = 0, fail = 0, not_applicable = 0;
};

/// Outcomes of one verdict over the campaign's judged runs (the same counts as
/// db::Database::OutcomeCounts for a campaign name with one row).
struct VerdictTotals {
  std::string verdict;
  uint64_t pass = 0, fail = 0, not_applicable = 0;
};

struct ReportModel {
  db::CampaignSummary campaign;
  std::string db_path;               ///< as named in replay commands
  /// Where the verdict links point: an absolute URL of docs/verdicts.md (the HTML appends
  /// "#<code>"), so a link works wherever the report is written.
  std::string verdicts_doc_url;
  std::vector<std::string> factors;  ///< axis names, in config order
  std::vector<ReportRun> runs;       ///< by index
  std::vector<ReportRun> replays;    ///< rows with replay_of set, by id
  std::vector<FactorValueCounts> factor_counts;  ///< by factor (config order), then value
  std::vector<VerdictTotals> verdict_totals;     ///< in the order judged runs list them
  /// By factor (config order), value, then verdict (verdict_totals order).
  std::vector<FactorVerdictCounts> factor_verdicts;
  /// The campaign's control runs (never in `runs`), and whether one failed: then every draw
  /// of the campaign is marked unsound.
  std::vector<ControlRow> controls;
  bool unsound = false;
  /// Boards whose control failed: not trusted, their draws unproven (reports::UntrustedBoards).
  std::vector<UntrustedBoard> untrusted;
  /// Per board: runs, infra attempts, retries, deaths, respawns (db::Database::InfraByBoard,
  /// the same rows `ctte-lab history` shows for a campaign name with one row).
  std::vector<db::BoardInfraCounts> infrastructure;
  /// Triage (docs/triage.md): the bisections and triages of this campaign's runs, by run then
  /// id; the pairs of factor values of its judged draws by excess (db::TriageStore::PairRates,
  /// at least kPairMinRuns runs); the last nights of its name up to this row (kTrendNights).
  std::vector<db::BisectionRecord> bisections;
  std::vector<db::PairRate> pairs;
  std::vector<db::NightRow> nights;
  static constexpr uint64_t kPairMinRuns = 3;
  static constexpr size_t kTrendNights = 14;
  /// The culprit factors of the newest bisection of run `run_id` naming some ("" = none).
  std::string CulpritOf(int64_t run_id) const;
  /// Boards the soak that writes this report quarantined ("NAME (reason)"; docs/lab.md). Not in
  /// the database: set by `ctte-lab soak`, empty for `ctte-lab report`.
  std::vector<std::string> quarantined;

  uint64_t Count(db::RunStatus status) const;
  /// The sums over `infrastructure` (board_id empty).
  db::BoardInfraCounts InfraTotals() const;
  std::vector<const ReportRun*> RedRuns() const;
};

struct ReportOptions {
  /// Written into replay commands ("ctte-lab replay 17 --db out/ctte.db"); "" leaves --db out.
  std::string db_path;
  /// The docs/ folder the verdict links point into (an absolute path); "" = the docs/ of the
  /// source tree this build came from.
  std::string docs_dir;
};

/// "file:///abs/docs/verdicts.md" for docs_dir "/abs/docs" (bytes outside [A-Za-z0-9-._~/]
/// percent-encoded).
std::string VerdictsDocUrl(const std::string& docs_dir);

/// The campaign: a numeric id, or a name (the newest campaign row with that name).
/// NotFound names the database when there is no such campaign.
Result<ReportModel> BuildReportModel(const db::Database& db, const std::string& campaign,
                                     const ReportOptions& options);

/// "ctte-lab replay 17 --db out/ctte.db".
std::string ReplayCommand(int64_t run_id, const std::string& db_path);

}  // namespace ctte::reports
