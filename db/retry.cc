// Database::RequeueInfraRuns (soak --retry-infra, docs/soak.md): a campaign's infra runs go back
// to "planned" in place, each keeping its failed outcome as its latest earlier attempt in
// run_attempts, so the next soak session runs the same index (same seed, same config) again and
// RecordRun completes the same row. One transaction: a kill leaves all of them requeued or none.
#include <sqlite3.h>

#include "db/database.h"
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
    for (;;) {
      Result<bool> more = sel.Step();
      if (!more.ok()) return more.status();
      if (!*more) break;
      if (include && !include(sel.U64(1))) continue;
      rows.push_back({sel.Int(0), sel.U64(1)});
    }
  }
  std::vector<uint64_t> requeued;
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
    for (const char* sql : {"DELETE FROM verdicts WHERE run_id = ?1",
                            "DELETE FROM streams WHERE run_id = ?1",
                            "UPDATE runs SET status = 'planned', infra_cause = NULL, "
                            "image_name = NULL, image_sha256 = NULL, board_id = NULL, "
                            "fabric_hz_requested = NULL, fabric_hz_programmed = NULL, "
                            "fabric_hz_read_back = NULL, sink_hz_requested = NULL, "
                            "sink_hz_programmed = NULL, sink_hz_read_back = NULL, "
                            "started_at = NULL, wall_ms = NULL, stream_sha256 = NULL, "
                            "stream_size = NULL, counters_json = NULL, metrics_json = NULL "
                            "WHERE id = ?1"}) {
      Statement st(db_, sql);
      st.Bind(1, r.id);
      CTTE_RETURN_IF_ERROR(st.Run());
    }
    requeued.push_back(r.index);
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return requeued;
}

}  // namespace ctte::db
