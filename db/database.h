// The lab database: one SQLite file (schema and migrations: docs/db-schema.md).
//
// Contract: Open() opens for writing: it checks the file (PRAGMA quick_check) and refuses a damaged
// one before anything is written, then creates or migrates it to the latest schema (PRAGMA
// user_version), turns on WAL and foreign keys, and sets a busy timeout so several processes may
// write at once. OpenReadOnly() never writes, never migrates (an older schema is read as it is, a
// newer one is refused) and works on a read-only file or folder. Every write method is one
// transaction: it either commits completely or leaves the file unchanged. Errors name the file and
// match the cause: a missing file is NotFound, permission denied and other system errors are
// IOError (with the system's message), a damaged file is Corruption, a directory or a foreign
// file is InvalidArgument or Corruption.
// A Database is used from one thread at a time; use one Database per thread or process.
// Timestamps are stored exactly as the caller gives them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/records.h"

struct sqlite3;

namespace ctte::db {

class Database {
 public:
  struct Options {
    int busy_timeout_ms = 10'000;  ///< wait this long for another writer's lock
    /// Open(): run CheckIntegrity() when opening, before anything is written or read. A damaged
    /// file is then refused ("F: database is damaged: ...; it was not modified").
    bool check_integrity = true;
    /// OpenReadOnly(): run the same check when opening. Off by default: PRAGMA quick_check reads
    /// every page of the file (1.5 CPU s on a month of nights, more than `history` itself), and
    /// a read-only open writes nothing a damaged file could be harmed by. Without it a garbage
    /// header is still refused at open, and a damaged page is a Corruption "F: database is
    /// damaged: ..." from the query that reads it (docs/db-schema.md#opening-and-migrations).
    bool check_integrity_read_only = false;
  };

  /// Opens for writing (creating if absent), checks the file, then migrates. ":memory:" gives a
  /// private in-memory database. A file that cannot be written (permission, read-only mount) is
  /// refused here when it would need a migration; otherwise it opens read-only (read_only()),
  /// so reads work as before, and every write fails with IOError "F: cannot open for writing:
  /// Permission denied" instead of SQLite's "attempt to write a readonly database".
  static Result<std::unique_ptr<Database>> Open(const std::string& path, const Options& options);
  static Result<std::unique_ptr<Database>> Open(const std::string& path) {
    return Open(path, Options{});
  }
  /// Opens an existing file for reading only (SQLITE_OPEN_READONLY): no migration, no journal
  /// mode change, no file created. Works when the file or its folder is read-only: a WAL file
  /// whose -shm cannot be created is opened immutable when no -wal holds changes (otherwise the
  /// error says so). Schema versions 1 .. LatestSchemaVersion() are read (tables added by later
  /// migrations read as empty); a newer file is refused naming both versions. Write methods
  /// fail on a read-only Database.
  static Result<std::unique_ptr<Database>> OpenReadOnly(const std::string& path,
                                                        const Options& options);
  static Result<std::unique_ptr<Database>> OpenReadOnly(const std::string& path) {
    return OpenReadOnly(path, Options{});
  }
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  /// The schema version this build writes; Open() migrates older files up to it.
  static int LatestSchemaVersion();
  Result<int> SchemaVersion() const;
  Result<std::string> JournalMode() const;
  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  /// PRAGMA quick_check. Corruption "F: database is damaged: <first problem>" when the file is
  /// damaged (or not a database at all); Ok otherwise.
  Status CheckIntegrity() const;

  // ---- Writes (each one transaction) -------------------------------------------------------
  /// Returns the id of the campaign row with this name and spec (inserting it if new).
  Result<int64_t> UpsertCampaign(const CampaignRecord& campaign);
  Result<int64_t> UpsertImage(const ImageRecord& image);
  Result<int64_t> UpsertBoard(const BoardRecord& board);
  /// Inserts planned runs; runs already present (same campaign and index) are left alone.
  /// Returns how many were new.
  Result<uint64_t> PlanRuns(const std::vector<RunRecord>& runs);
  /// Writes a run, its verdicts and (optionally) its stream bytes in one transaction. A run that
  /// was planned is completed in place; a finished run with the same index is an error (a
  /// replay is a new run with replay_of set). Returns runs.id.
  Result<int64_t> RecordRun(const RunRecord& run, const std::vector<VerdictRecord>& verdicts,
                            const std::vector<uint8_t>* stream_bytes = nullptr);
  /// The same, and the run's earlier attempts (run_attempts), in the same transaction: attempt
  /// k+1 is earlier_attempts[k]; the run row itself is attempt earlier_attempts.size() + 1.
  Result<int64_t> RecordRun(const RunRecord& run, const std::vector<VerdictRecord>& verdicts,
                            const std::vector<uint8_t>* stream_bytes,
                            const std::vector<AttemptRecord>& earlier_attempts);

  /// Many runs as RecordRun writes them, in one transaction (bulk imports, the synthetic
  /// history of bench/history_db): all are written or none. Returns each one's runs.id.
  Result<std::vector<int64_t>> RecordRuns(const std::vector<RunWrite>& runs);

  /// soak --retry-infra: every original infra run of `campaign_id` whose index `include`
  /// accepts (all when empty) goes back to "planned" in place: its failed outcome is appended to
  /// its run_attempts (cause "other" when the row has none), its verdicts and stream bytes are
  /// dropped, its outcome columns cleared. RecordRun then completes the same row, and its
  /// earlier attempts are numbered after the ones kept. One transaction. Returns the indices.
  Result<std::vector<uint64_t>> RequeueInfraRuns(
      int64_t campaign_id, const std::function<bool(uint64_t index)>& include = nullptr);

  // ---- Queries (read only) ----------------------------------------------------------------
  // A run is *judged* (its verdicts count in totals) when it is an original run (replay_of IS
  // NULL) whose status is green or red: invalid runs may carry verdict rows (a wrapped ring is
  // judged, then overridden), but those verdicts do not count; infra runs have none; a replay
  // repeats a run already counted. One SQL predicate in db/queries.cc decides it, both for
  // OutcomeCounts() and for RunRow::judged, so every total (history, reports) agrees.

  /// Campaigns with run counts by status (and retried runs, infra attempts); `name` empty = all.
  /// Ordered by id.
  Result<std::vector<CampaignSummary>> Campaigns(const std::string& name = "") const;
  /// The one rule for "a campaign by id or name" (`soak --resume`, `report`, docs/db-schema.md
  /// "Naming a campaign"): all digits = the campaign with that id; "name:NAME" = the newest
  /// campaign row named NAME (a name that is all digits is reached only so); anything else = the
  /// newest row named so. NotFound names what was asked and in which rule.
  Result<CampaignSummary> CampaignByIdOrName(const std::string& which) const;
  /// Runs of one campaign row, ordered by index then id.
  Result<std::vector<RunRow>> RunsOfCampaign(int64_t campaign_id) const;
  /// The campaign's control runs (config_json "control", runner/controls.h; originals only),
  /// ordered by index: what history and show need of a campaign without reading every run.
  Result<std::vector<RunRow>> ControlRunsOfCampaign(int64_t campaign_id) const;
  /// Red runs (of campaigns named `campaign_name`, or all), ordered by campaign id and index.
  Result<std::vector<RunRow>> RedRuns(const std::string& campaign_name = "") const;
  /// Pass / fail / n/a counts per verdict code over judged runs, ordered by verdict.
  Result<std::vector<OutcomeCount>> OutcomeCounts(const std::string& campaign_name = "") const;
  /// Runs per value of `factor` (an axis name, read from config_json's "axes" with
  /// json_extract), ordered by value. Runs whose config lacks the factor are left out.
  Result<std::vector<FactorRate>> FailRateByFactor(const std::string& factor,
                                                   const std::string& campaign_name = "") const;
  /// FailRateByFactor for every factor the configs name (one pass over the runs), ordered by
  /// factor, then value.
  Result<std::vector<FactorRate>> FailRatesByFactor(const std::string& campaign_name = "") const;
  /// One run row by runs.id; NotFound when there is none.
  Result<RunRow> RunById(int64_t run_id) const;
  Result<std::vector<VerdictRecord>> VerdictsOfRun(int64_t run_id) const;
  /// VerdictsOfRun of every run of one campaign row (replays and controls too) in one query:
  /// by run id. What `report` reads instead of a query per run.
  Result<std::map<int64_t, std::vector<VerdictRecord>>> VerdictsOfCampaign(
      int64_t campaign_id) const;
  Result<std::vector<uint8_t>> StreamOfRun(int64_t run_id) const;
  /// The earlier (failed) attempts of one run, by attempt number; empty for a run that
  /// succeeded at its first attempt (and for every run of a schema-1 file).
  Result<std::vector<AttemptRecord>> AttemptsOfRun(int64_t run_id) const;
  /// Infrastructure per board over original, finished runs of campaigns named `campaign_name`
  /// (or all): runs, infra attempts, retries, deaths, respawns (records.h). Ordered by board id,
  /// runs without a board last.
  Result<std::vector<BoardInfraCounts>> InfraByBoard(const std::string& campaign_name = "") const;
  /// The same for one campaign row (the report model).
  Result<std::vector<BoardInfraCounts>> InfraByBoardOfCampaign(int64_t campaign_id) const;
  /// The boards row `id` (kind, serial, info_json); NotFound naming the id.
  Result<BoardRecord> BoardById(int64_t id) const;

  // ---- Content pins and artifacts (db/pins.cc) --------------------------------------------
  /// The content pins of a run; nullopt when none were stored (a run recorded before the
  /// content-pins migration, or one that never got its ELF).
  Result<std::optional<RunPins>> PinsOfRun(int64_t run_id) const;
  /// Every SHA-256 a run refers to: runs.image_sha256 and run_pins.workload_sha256 (what
  /// `db gc` keeps in the artifact store).
  Result<std::vector<std::string>> ReferencedDigests() const;

  // Extra methods (for testing)
  /// Open() that migrates only up to schema `version` (to make files as an older build did).
  static Result<std::unique_ptr<Database>> TEST_OpenAtVersion(const std::string& path,
                                                              int version);

 private:
  friend class TriageStore;  // db/triage_store.h: the triage tables (migration "triage")
  static Result<std::unique_ptr<Database>> OpenForWriting(const std::string& path,
                                                          const Options& options, int version);
  Database(sqlite3* db, std::string path, bool read_only)
      : db_(db), path_(std::move(path)), read_only_(read_only) {}
  Status Migrate(int target);
  Status Exec(const char* sql);
  Status Writable() const;  ///< InvalidArgument on a read-only Database
  /// RecordRun's checks of a run and its attempts (causes, statuses, schema).
  Status CheckRun(const RunRecord& run, const std::vector<AttemptRecord>& earlier_attempts) const;
  /// RecordRun's writes, inside the caller's transaction.
  Result<int64_t> WriteRun(const RunRecord& run, const std::vector<VerdictRecord>& verdicts,
                           const std::vector<uint8_t>* stream_bytes,
                           const std::vector<AttemptRecord>& earlier_attempts);
  Result<std::vector<RunRow>> SelectRuns(const std::string& where_sql, const std::string& arg,
                                         int64_t int_arg) const;
  Result<std::vector<BoardInfraCounts>> SelectInfra(const std::string& campaign_name,
                                                    int64_t campaign_id) const;
  /// Whether the file has migration `version` (tables it adds may be read).
  bool Has(int version) const { return schema_version_ >= version; }

  sqlite3* db_;
  std::string path_;
  bool read_only_ = false;
  int schema_version_ = 0;  ///< user_version after opening (and migrating)
  Status write_refusal_;    ///< why writes fail on a file Open() could only open read-only
};

}  // namespace ctte::db
