// Writing the lab database: upserts of campaigns, images and boards, planned runs, and a run with
// its verdicts, stream and earlier attempts, each in one BEGIN IMMEDIATE transaction
// (statement.h) that rolls back on any failure. The run columns are db/run_columns.h's list.
#include <cstring>

#include "base/sha256.h"
#include "base/text.h"
#include "db/database.h"
#include "db/pins.h"
#include "db/schema.h"
#include "db/run_columns.h"
#include "db/statement.h"

namespace ctte::db {

using internal::BindRun;
using internal::RunColumnList;
using internal::RunColumnsAt;
using internal::RunParamList;
using internal::Statement;
using internal::Transaction;

namespace {

// A cause as written: a known token (records.h), only where the status is infra.
Status CheckCause(const std::string& cause, RunStatus status, const std::string& what) {
  if (cause.empty()) {
    if (status == RunStatus::kInfra && what.starts_with("attempt")) {
      return Status::InvalidArgument(what + ": an infra attempt needs an infra cause");
    }
    return Status::Ok();
  }
  if (status != RunStatus::kInfra) {
    return Status::InvalidArgument(what + ": infra cause \"" + cause + "\" on a " +
                                   RunStatusName(status) + " outcome");
  }
  if (!ParseInfraCause(cause)) {
    return Status::InvalidArgument(what + ": unknown infra cause \"" + cause + "\"");
  }
  return Status::Ok();
}

// Inserts a row (`ins_sql`, an INSERT ... ON CONFLICT) and selects its id (`sel_sql`, by the
// row's key) in one transaction, committed when both succeed: the id of the row made or already
// there. `bind_ins` and `bind_sel` bind the two statements' parameters; `what` names the table's
// row in the error when the SELECT finds none.
template <class BindIns, class BindSel>
Result<int64_t> UpsertRow(sqlite3* db, const char* what, const char* ins_sql,
                          const BindIns& bind_ins, const char* sel_sql, const BindSel& bind_sel) {
  Transaction tx(db);
  CTTE_RETURN_IF_ERROR(tx.status());
  Statement ins(db, ins_sql);
  bind_ins(ins);
  CTTE_RETURN_IF_ERROR(ins.Run());
  Statement sel(db, sel_sql);
  bind_sel(sel);
  auto row = sel.Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Internal(std::string(what) + " row vanished after insert");
  const int64_t id = sel.Int(0);
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return id;
}

}  // namespace

Result<int64_t> Database::UpsertCampaign(const CampaignRecord& c) {
  CTTE_RETURN_IF_ERROR(Writable());
  const std::string sha = Sha256Hex(c.spec_json);
  return UpsertRow(
      db_, "campaign",
      "INSERT INTO campaigns (name, description, seed, spec_json, spec_sha256, created_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (name, spec_sha256) DO NOTHING",
      [&](Statement& ins) {
        ins.Bind(1, c.name);
        ins.Bind(2, c.description);
        ins.Bind(3, Hex64(c.seed));
        ins.Bind(4, c.spec_json);
        ins.Bind(5, sha);
        ins.Bind(6, c.created_at);
      },
      "SELECT id FROM campaigns WHERE name = ?1 AND spec_sha256 = ?2",
      [&](Statement& sel) {
        sel.Bind(1, c.name);
        sel.Bind(2, sha);
      });
}

Result<int64_t> Database::UpsertImage(const ImageRecord& image) {
  CTTE_RETURN_IF_ERROR(Writable());
  return UpsertRow(
      db_, "image",
      "INSERT INTO images (name, sha256, build_id, manifest_json) "
      "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (sha256) DO NOTHING",
      [&](Statement& ins) {
        ins.Bind(1, image.name);
        ins.Bind(2, image.sha256);
        ins.Bind(3, image.build_id);
        ins.BindOpt(4, image.manifest_json);
      },
      "SELECT id FROM images WHERE sha256 = ?1",
      [&](Statement& sel) { sel.Bind(1, image.sha256); });
}

Result<int64_t> Database::UpsertBoard(const BoardRecord& board) {
  CTTE_RETURN_IF_ERROR(Writable());
  return UpsertRow(
      db_, "board",
      "INSERT INTO boards (kind, serial, info_json) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (kind, serial) DO UPDATE SET info_json = excluded.info_json",
      [&](Statement& ins) {
        ins.Bind(1, board.kind);
        ins.Bind(2, board.serial);
        ins.BindOpt(3, board.info_json);
      },
      "SELECT id FROM boards WHERE kind = ?1 AND serial = ?2",
      [&](Statement& sel) {
        sel.Bind(1, board.kind);
        sel.Bind(2, board.serial);
      });
}

Result<uint64_t> Database::PlanRuns(const std::vector<RunRecord>& runs) {
  CTTE_RETURN_IF_ERROR(Writable());
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  uint64_t inserted = 0;
  const std::string sql = "INSERT INTO runs (" + RunColumnList(schema_version_, "", false) +
                          ") VALUES (" + RunParamList(schema_version_) +
                          ") ON CONFLICT (campaign_id, idx) WHERE replay_of IS NULL DO NOTHING";
  for (const RunRecord& r : runs) {
    if (r.status != RunStatus::kPlanned || r.replay_of) {
      return Status::InvalidArgument("PlanRuns: run " + std::to_string(r.index) +
                                     " is not a planned original run");
    }
    Statement ins(db_, sql.c_str());
    BindRun(ins, r, schema_version_);
    CTTE_RETURN_IF_ERROR(ins.Run());
    inserted += static_cast<uint64_t>(sqlite3_changes(db_));
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return inserted;
}

Status Database::CheckRun(const RunRecord& run,
                          const std::vector<AttemptRecord>& earlier_attempts) const {
  const std::string what = "run " + std::to_string(run.index);
  CTTE_RETURN_IF_ERROR(CheckCause(run.infra_cause, run.status, what));
  if (!Has(2) && (!run.infra_cause.empty() || !earlier_attempts.empty())) {
    return Status::InvalidArgument(path_ + ": schema version " +
                                   std::to_string(schema_version_) +
                                   " cannot store infra causes or attempts");
  }
  for (size_t k = 0; k < earlier_attempts.size(); ++k) {
    const AttemptRecord& a = earlier_attempts[k];
    const std::string which = "attempt " + std::to_string(k + 1) + " of " + what;
    if (a.status != RunStatus::kInfra && a.status != RunStatus::kInvalid) {
      return Status::InvalidArgument(which + ": an earlier attempt is infra or invalid, not " +
                                     RunStatusName(a.status));
    }
    CTTE_RETURN_IF_ERROR(CheckCause(a.infra_cause, a.status, which));
  }
  return Status::Ok();
}

Result<int64_t> Database::RecordRun(const RunRecord& run,
                                    const std::vector<VerdictRecord>& verdicts,
                                    const std::vector<uint8_t>* stream_bytes) {
  return RecordRun(run, verdicts, stream_bytes, {});
}

Result<int64_t> Database::RecordRun(const RunRecord& run,
                                    const std::vector<VerdictRecord>& verdicts,
                                    const std::vector<uint8_t>* stream_bytes,
                                    const std::vector<AttemptRecord>& earlier_attempts) {
  CTTE_RETURN_IF_ERROR(Writable());
  CTTE_RETURN_IF_ERROR(CheckRun(run, earlier_attempts));
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  auto id = WriteRun(run, verdicts, stream_bytes, earlier_attempts);
  if (!id.ok()) return id.status();
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return *id;
}

Result<std::vector<int64_t>> Database::RecordRuns(const std::vector<RunWrite>& runs) {
  CTTE_RETURN_IF_ERROR(Writable());
  for (const RunWrite& w : runs) CTTE_RETURN_IF_ERROR(CheckRun(w.run, w.earlier_attempts));
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  std::vector<int64_t> ids;
  ids.reserve(runs.size());
  for (const RunWrite& w : runs) {
    auto id = WriteRun(w.run, w.verdicts, w.stream ? &*w.stream : nullptr, w.earlier_attempts);
    if (!id.ok()) return id.status();
    ids.push_back(*id);
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return ids;
}

Result<int64_t> Database::WriteRun(const RunRecord& run,
                                   const std::vector<VerdictRecord>& verdicts,
                                   const std::vector<uint8_t>* stream_bytes,
                                   const std::vector<AttemptRecord>& earlier_attempts) {
  std::optional<int64_t> planned_id;
  if (!run.replay_of) {
    Statement sel(db_,
                  "SELECT id, status FROM runs "
                  "WHERE campaign_id = ?1 AND idx = ?2 AND replay_of IS NULL");
    sel.Bind(1, run.campaign_id);
    sel.BindU64(2, run.index);
    auto row = sel.Step();
    if (!row.ok()) return row.status();
    if (*row) {
      if (sel.Text(1) != "planned") {
        return Status::InvalidArgument("run " + std::to_string(run.index) + " of campaign " +
                                       std::to_string(run.campaign_id) +
                                       " is already recorded (status " + sel.Text(1) + ")");
      }
      planned_id = sel.Int(0);
    }
  }
  int64_t run_id = 0;
  if (planned_id) {
    const int id_param = RunColumnsAt(schema_version_) + 1;
    const std::string sql = "UPDATE runs SET (" + RunColumnList(schema_version_, "", false) +
                            ") = (" + RunParamList(schema_version_) + ") WHERE id = ?" +
                            std::to_string(id_param);
    Statement up(db_, sql.c_str());
    BindRun(up, run, schema_version_);
    up.Bind(id_param, *planned_id);
    CTTE_RETURN_IF_ERROR(up.Run());
    run_id = *planned_id;
  } else {
    const std::string sql = "INSERT INTO runs (" + RunColumnList(schema_version_, "", false) +
                            ") VALUES (" + RunParamList(schema_version_) + ")";
    Statement ins(db_, sql.c_str());
    BindRun(ins, run, schema_version_);
    CTTE_RETURN_IF_ERROR(ins.Run());
    run_id = sqlite3_last_insert_rowid(db_);
  }
  for (const VerdictRecord& v : verdicts) {
    Statement ins(db_,
                  "INSERT INTO verdicts (run_id, verdict, outcome, evidence, metrics_json) "
                  "VALUES (?1, ?2, ?3, ?4, ?5)");
    ins.Bind(1, run_id);
    ins.Bind(2, v.verdict);
    ins.Bind(3, OutcomeName(v.outcome));
    ins.Bind(4, v.evidence);
    ins.BindOpt(5, v.metrics_json);
    Status st = ins.Run();
    if (!st.ok()) {
      return Status(st.code() == Status::Code::kInvalidArgument
                        ? Status::InvalidArgument("verdict " + v.verdict + ": " + st.message())
                        : st);
    }
  }
  if (stream_bytes) {
    Statement ins(db_, "INSERT INTO streams (run_id, bytes) VALUES (?1, ?2)");
    ins.Bind(1, run_id);
    ins.BindBlob(2, *stream_bytes);
    CTTE_RETURN_IF_ERROR(ins.Run());
  }
  // A requeued run (RequeueInfraRuns) already holds attempts: number the new ones after them.
  int64_t first_attempt = 1;
  if (planned_id && !earlier_attempts.empty()) {
    Statement max(db_, "SELECT COALESCE(MAX(attempt), 0) FROM run_attempts WHERE run_id = ?1");
    max.Bind(1, *planned_id);
    auto row = max.Step();
    if (!row.ok()) return row.status();
    if (*row) first_attempt = max.Int(0) + 1;
  }
  for (size_t k = 0; k < earlier_attempts.size(); ++k) {
    const AttemptRecord& a = earlier_attempts[k];
    Statement ins(db_,
                  "INSERT INTO run_attempts (run_id, attempt, board_id, status, infra_cause, "
                  "reason, respawned, started_at, wall_ms) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    ins.Bind(1, run_id);
    ins.Bind(2, first_attempt + static_cast<int64_t>(k));
    ins.BindOpt(3, a.board_id);
    ins.Bind(4, RunStatusName(a.status));
    ins.BindOpt(5, a.infra_cause);
    ins.Bind(6, a.reason);
    ins.Bind(7, int64_t{a.respawned ? 1 : 0});
    ins.BindOpt(8, a.started_at);
    ins.BindOpt(9, a.wall_ms);
    if (Status st = ins.Run(); !st.ok()) {
      return Status(st.code() == Status::Code::kInvalidArgument
                        ? Status::InvalidArgument("attempt " + std::to_string(k + 1) + ": " +
                                                  st.message())
                        : st);
    }
  }
  if (Has(ContentPinsSchemaVersion())) {
    CTTE_RETURN_IF_ERROR(internal::WritePins(db_, run_id, run.pins));  // db/pins.cc
  }
  return run_id;
}

}  // namespace ctte::db
