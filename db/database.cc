// Opening, migrating and writing the lab database.
//
// What and how: Open() sets the busy timeout first (so every later step waits for other
// writers), switches to WAL, enables foreign keys, then applies the migrations of db/schema.cc
// one transaction each, re-reading user_version under the write lock so two processes opening
// the same new file never apply a migration twice. Writes use BEGIN IMMEDIATE transactions
// (statement.h) and roll back on any failure.
#include "db/database.h"

#include "base/sha256.h"
#include "base/text.h"
#include "db/schema.h"
#include "db/statement.h"

namespace ctte::db {

using internal::SqliteError;
using internal::Statement;
using internal::Transaction;

namespace {

constexpr const char* kRunColumns =
    "campaign_id, idx, seed, config_json, status, image_name, image_sha256, board_id, "
    "fabric_hz_requested, fabric_hz_programmed, fabric_hz_read_back, "
    "sink_hz_requested, sink_hz_programmed, sink_hz_read_back, started_at, wall_ms, "
    "stream_sha256, stream_size, counters_json, metrics_json, replay_of";
constexpr const char* kRunParams =
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
    "?21";

/// Binds the 21 run columns in kRunColumns order.
void BindRun(Statement& s, const RunRecord& r) {
  s.Bind(1, r.campaign_id);
  s.BindU64(2, r.index);
  s.Bind(3, Hex64(r.seed));
  s.Bind(4, r.config_json);
  s.Bind(5, RunStatusName(r.status));
  s.BindOpt(6, r.image_name);
  s.BindOpt(7, r.image_sha256);
  s.BindOpt(8, r.board_id);
  s.BindOpt(9, r.fabric.requested_hz);
  s.BindOpt(10, r.fabric.programmed_hz);
  s.BindOpt(11, r.fabric.read_back_hz);
  s.BindOpt(12, r.sink.requested_hz);
  s.BindOpt(13, r.sink.programmed_hz);
  s.BindOpt(14, r.sink.read_back_hz);
  s.BindOpt(15, r.started_at);
  s.BindOpt(16, r.wall_ms);
  s.BindOpt(17, r.stream_sha256);
  s.BindOpt(18, r.stream_size);
  s.BindOpt(19, r.counters_json);
  s.BindOpt(20, r.metrics_json);
  s.BindOpt(21, r.replay_of);
}

Result<int> ReadUserVersion(sqlite3* db) {
  Statement s(db, "PRAGMA user_version");
  auto row = s.Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Internal("PRAGMA user_version returned no row");
  return static_cast<int>(s.Int(0));
}

}  // namespace

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kPlanned: return "planned";
    case RunStatus::kGreen: return "green";
    case RunStatus::kRed: return "red";
    case RunStatus::kInvalid: return "invalid";
    case RunStatus::kInfra: return "infra";
  }
  return "?";
}

std::optional<RunStatus> ParseRunStatus(std::string_view text) {
  for (RunStatus s : {RunStatus::kPlanned, RunStatus::kGreen, RunStatus::kRed,
                      RunStatus::kInvalid, RunStatus::kInfra}) {
    if (text == RunStatusName(s)) return s;
  }
  return std::nullopt;
}

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kNotApplicable: return "n/a";
  }
  return "?";
}

std::optional<Outcome> ParseOutcome(std::string_view text) {
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kNotApplicable}) {
    if (text == OutcomeName(o)) return o;
  }
  return std::nullopt;
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                 const Options& options) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    Status st = Status::IOError("open database " + path + ": " +
                                (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    sqlite3_close(raw);
    return st;
  }
  std::unique_ptr<Database> db(new Database(raw));
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  {
    Statement wal(raw, "PRAGMA journal_mode=WAL");
    auto row = wal.Step();
    if (!row.ok()) return Status::IOError(path + ": " + row.status().message());
  }
  CTTE_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  CTTE_RETURN_IF_ERROR(db->Migrate());
  return db;
}

Database::~Database() { sqlite3_close(db_); }

int Database::LatestSchemaVersion() { return static_cast<int>(Migrations().size()); }

Result<int> Database::SchemaVersion() const { return ReadUserVersion(db_); }

Result<std::string> Database::JournalMode() const {
  Statement s(db_, "PRAGMA journal_mode");
  auto row = s.Step();
  if (!row.ok()) return row.status();
  return s.Text(0);
}

Status Database::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return Status::IOError(std::string("exec: ") + msg);
  }
  return Status::Ok();
}

Status Database::Migrate() {
  const int latest = LatestSchemaVersion();
  auto current = ReadUserVersion(db_);
  if (!current.ok()) return current.status();
  if (*current > latest) {
    return Status::InvalidArgument("database schema version " + std::to_string(*current) +
                                   " is newer than this build's " + std::to_string(latest));
  }
  while (*current < latest) {
    Transaction tx(db_);
    CTTE_RETURN_IF_ERROR(tx.status());
    current = ReadUserVersion(db_);  // another process may have migrated meanwhile
    if (!current.ok()) return current.status();
    if (*current >= latest) break;
    const int next = *current + 1;
    Status st = Exec(Migrations()[static_cast<size_t>(next - 1)]);
    if (!st.ok()) return Status::Internal("migration " + std::to_string(next) + ": " +
                                          st.message());
    CTTE_RETURN_IF_ERROR(Exec(("PRAGMA user_version = " + std::to_string(next)).c_str()));
    CTTE_RETURN_IF_ERROR(tx.Commit());
    current = next;
  }
  return Status::Ok();
}

namespace {
// The id a SELECT finds right after an upsert in transaction `tx`; commits on success.
Result<int64_t> IdAfterUpsert(Statement& sel, Transaction& tx, const char* what) {
  auto row = sel.Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Internal(std::string(what) + " row vanished after insert");
  const int64_t id = sel.Int(0);
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return id;
}
}  // namespace

Result<int64_t> Database::UpsertCampaign(const CampaignRecord& c) {
  const std::string sha = Sha256Hex(c.spec_json);
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  Statement ins(db_,
                "INSERT INTO campaigns (name, description, seed, spec_json, spec_sha256, "
                "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                "ON CONFLICT (name, spec_sha256) DO NOTHING");
  ins.Bind(1, c.name);
  ins.Bind(2, c.description);
  ins.Bind(3, Hex64(c.seed));
  ins.Bind(4, c.spec_json);
  ins.Bind(5, sha);
  ins.Bind(6, c.created_at);
  CTTE_RETURN_IF_ERROR(ins.Run());
  Statement sel(db_, "SELECT id FROM campaigns WHERE name = ?1 AND spec_sha256 = ?2");
  sel.Bind(1, c.name);
  sel.Bind(2, sha);
  return IdAfterUpsert(sel, tx, "campaign");
}

Result<int64_t> Database::UpsertImage(const ImageRecord& image) {
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  Statement ins(db_,
                "INSERT INTO images (name, sha256, build_id, manifest_json) "
                "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (sha256) DO NOTHING");
  ins.Bind(1, image.name);
  ins.Bind(2, image.sha256);
  ins.Bind(3, image.build_id);
  ins.BindOpt(4, image.manifest_json);
  CTTE_RETURN_IF_ERROR(ins.Run());
  Statement sel(db_, "SELECT id FROM images WHERE sha256 = ?1");
  sel.Bind(1, image.sha256);
  return IdAfterUpsert(sel, tx, "image");
}

Result<int64_t> Database::UpsertBoard(const BoardRecord& board) {
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  Statement ins(db_,
                "INSERT INTO boards (kind, serial, info_json) VALUES (?1, ?2, ?3) "
                "ON CONFLICT (kind, serial) DO UPDATE SET info_json = excluded.info_json");
  ins.Bind(1, board.kind);
  ins.Bind(2, board.serial);
  ins.BindOpt(3, board.info_json);
  CTTE_RETURN_IF_ERROR(ins.Run());
  Statement sel(db_, "SELECT id FROM boards WHERE kind = ?1 AND serial = ?2");
  sel.Bind(1, board.kind);
  sel.Bind(2, board.serial);
  return IdAfterUpsert(sel, tx, "board");
}

Result<uint64_t> Database::PlanRuns(const std::vector<RunRecord>& runs) {
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  uint64_t inserted = 0;
  const std::string sql = std::string("INSERT INTO runs (") + kRunColumns + ") VALUES (" +
                          kRunParams +
                          ") ON CONFLICT (campaign_id, idx) WHERE replay_of IS NULL DO NOTHING";
  for (const RunRecord& r : runs) {
    if (r.status != RunStatus::kPlanned || r.replay_of) {
      return Status::InvalidArgument("PlanRuns: run " + std::to_string(r.index) +
                                     " is not a planned original run");
    }
    Statement ins(db_, sql.c_str());
    BindRun(ins, r);
    CTTE_RETURN_IF_ERROR(ins.Run());
    inserted += static_cast<uint64_t>(sqlite3_changes(db_));
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return inserted;
}

Result<int64_t> Database::RecordRun(const RunRecord& run,
                                    const std::vector<VerdictRecord>& verdicts,
                                    const std::vector<uint8_t>* stream_bytes) {
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
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
    const std::string sql = std::string("UPDATE runs SET (") + kRunColumns + ") = (" +
                            kRunParams + ") WHERE id = ?22";
    Statement up(db_, sql.c_str());
    BindRun(up, run);
    up.Bind(22, *planned_id);
    CTTE_RETURN_IF_ERROR(up.Run());
    run_id = *planned_id;
  } else {
    const std::string sql =
        std::string("INSERT INTO runs (") + kRunColumns + ") VALUES (" + kRunParams + ")";
    Statement ins(db_, sql.c_str());
    BindRun(ins, run);
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
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return run_id;
}

}  // namespace ctte::db
