// Database::RequeueInfraRuns (soak --retry-infra, docs/soak.md): a campaign's infra runs go back
// to "planned" in place, each keeping its failed outcome as its latest earlier attempt in
// run_attempts, so the next soak session runs the same index (same seed, same config) again and
// RecordRun completes the same row. One transaction: a kill leaves all of them requeued or none.
#include <sqlite3.h>

#include "db/database.h"
#include "db/run_columns.h"
#include "db/statement.h"

namespace ctte::db {

using internal::Statement;
using internal::Transaction;

Result<std::vector<uint64_t>> Database::RequeueInfraRuns(
    int64_t campaign_id, const std::function<bool(uint64_t index)>& include) {
  CTTE_RETURN_IF_ERROR(Writable());
  if (!Has(2)) {
    return Status::InvalidArgument(path_ + ": schema version " + std::to_string(schema_version_) +
                                   " has no run_attempts to keep the infra attempts in");
  }
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  struct Infra {
    int64_t id;
    uint64_t index;
  };
  std::vector<Infra> rows;
  {
    Statement sel(db_,
                  "SELECT id, idx FROM runs WHERE campaign_id = ?1 AND status = 'infra' "
                  "AND replay_of IS NULL ORDER BY idx");
    sel.Bind(1, campaign_id);
    CTTE_RETURN_IF_ERROR(sel.ForEachRow([&]() -> Status {
      if (include && !include(sel.U64(1))) return Status::Ok();
      rows.push_back({sel.Int(0), sel.U64(1)});
      return Status::Ok();
    }));
  }
  std::vector<uint64_t> requeued;
  // Every outcome column of run_columns.h, so a column a migration adds cannot be left behind.
  const std::string reset = internal::RunOutcomeResetList(schema_version_);
  for (const Infra& r : rows) {
    // The failed outcome becomes the newest earlier attempt (its cause: "other" for a row
    // stored before causes were).
    Statement keep(db_,
                   "INSERT INTO run_attempts (run_id, attempt, board_id, status, infra_cause, "
                   "reason, respawned, started_at, wall_ms) "
                   "SELECT id, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM run_attempts "
                   "            WHERE run_id = ?1), "
                   "board_id, 'infra', COALESCE(infra_cause, 'other'), "
                   "COALESCE(json_extract(metrics_json, '$.status_reason'), ''), 0, started_at, "
                   "wall_ms FROM runs WHERE id = ?1");
    keep.Bind(1, r.id);
    CTTE_RETURN_IF_ERROR(keep.Run());
    for (const std::string& sql :
         {std::string("DELETE FROM verdicts WHERE run_id = ?1"),
          std::string("DELETE FROM streams WHERE run_id = ?1"),
          "UPDATE runs SET status = 'planned', " + reset + " WHERE id = ?1"}) {
      Statement st(db_, sql.c_str());
      st.Bind(1, r.id);
      CTTE_RETURN_IF_ERROR(st.Run());
    }
    requeued.push_back(r.index);
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return requeued;
}

}  // namespace ctte::db
