// The lab database: one SQLite file (schema and migrations: docs/db-schema.md).
//
// Contract: Open() creates or migrates the file to the latest schema (PRAGMA user_version), turns
// on WAL and foreign keys, and sets a busy timeout so several processes may write at once. Every
// write method is one transaction: it either commits completely or leaves the file unchanged.
// A Database is used from one thread at a time; use one Database per thread or process.
// Timestamps are stored exactly as the caller gives them.
#pragma once

#include <cstdint>
#include <memory>
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
  };

  /// Opens (creating if absent) and migrates. ":memory:" gives a private in-memory database.
  static Result<std::unique_ptr<Database>> Open(const std::string& path, const Options& options);
  static Result<std::unique_ptr<Database>> Open(const std::string& path) {
    return Open(path, Options{});
  }
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  /// The schema version this build writes; Open() migrates older files up to it.
  static int LatestSchemaVersion();
  Result<int> SchemaVersion() const;
  Result<std::string> JournalMode() const;

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

  // ---- Queries (read only) ----------------------------------------------------------------
  // A run is *judged* (its verdicts count in totals) when it is an original run (replay_of IS
  // NULL) whose status is green or red: invalid runs may carry verdict rows (a wrapped ring is
  // judged, then overridden), but those verdicts do not count; infra runs have none; a replay
  // repeats a run already counted. One SQL predicate in db/queries.cc decides it, both for
  // OutcomeCounts() and for RunRow::judged, so every total (history, reports) agrees.

  /// Campaigns with run counts by status; `name` empty = all. Ordered by id.
  Result<std::vector<CampaignSummary>> Campaigns(const std::string& name = "") const;
  /// Runs of one campaign row, ordered by index then id.
  Result<std::vector<RunRow>> RunsOfCampaign(int64_t campaign_id) const;
  /// Red runs (of campaigns named `campaign_name`, or all), ordered by campaign id and index.
  Result<std::vector<RunRow>> RedRuns(const std::string& campaign_name = "") const;
  /// Pass / fail / n/a counts per verdict code over judged runs, ordered by verdict.
  Result<std::vector<OutcomeCount>> OutcomeCounts(const std::string& campaign_name = "") const;
  /// Runs per value of `factor` (an axis name, read from config_json's "axes" with
  /// json_extract), ordered by value. Runs whose config lacks the factor are left out.
  Result<std::vector<FactorRate>> FailRateByFactor(const std::string& factor,
                                                   const std::string& campaign_name = "") const;
  /// One run row by runs.id; NotFound when there is none.
  Result<RunRow> RunById(int64_t run_id) const;
  Result<std::vector<VerdictRecord>> VerdictsOfRun(int64_t run_id) const;
  Result<std::vector<uint8_t>> StreamOfRun(int64_t run_id) const;

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  Status Migrate();
  Status Exec(const char* sql);
  Result<std::vector<RunRow>> SelectRuns(const char* where_sql, const std::string& arg,
                                         int64_t int_arg) const;

  sqlite3* db_;
};

}  // namespace ctte::db
