// Opening, migrating and writing the lab database.
//
// What and how: Open() looks at the path first (a directory, a missing folder or a refused
// permission is named as such, from errno), sets the busy timeout (so every later step waits for
// other writers), refuses a file it could only open read-only, runs PRAGMA quick_check before
// anything is written (so a damaged file is never appended to, nor switched to WAL), then
// switches to WAL, enables foreign keys and applies the migrations of db/schema.cc one
// transaction each, re-reading user_version under the write lock so two processes opening the
// same new file never apply a migration twice. OpenReadOnly() opens with SQLITE_OPEN_READONLY and
// falls back to an immutable open when a WAL file's -shm cannot be created (read-only folder)
// and no -wal holds changes. Writes use BEGIN IMMEDIATE transactions (statement.h) and roll back
// on any failure.
#include "db/database.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

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
// Schema 2's column, written when the file has it (TEST_OpenAtVersion makes files without).
constexpr const char* kRunColumns2 = ", infra_cause";
constexpr const char* kRunParams2 = ", ?22";

/// Binds the run columns in kRunColumns (and kRunColumns2 when `schema2`) order.
void BindRun(Statement& s, const RunRecord& r, bool schema2) {
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
  if (schema2) s.BindOpt(22, r.infra_cause);
}

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

// The Status for an error the operating system gave for `path`: errno decides the code.
Status FileError(const std::string& path, int err, const std::string& doing) {
  const std::string why = std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR: return Status::NotFound(path + ": " + doing + ": " + why);
    case EISDIR: return Status::InvalidArgument(path + " is a directory, not a database file");
    default: return Status::IOError(path + ": " + doing + ": " + why);  // EACCES, EROFS, EIO...
  }
}

// What SQLite said on `db` after a failure, labelled by its result code and, for a refused file
// operation, by the errno behind it.
Status OpenError(sqlite3* db, int rc, const std::string& path, const std::string& doing) {
  const int primary = (db ? sqlite3_extended_errcode(db) : rc) & 0xff;
  const std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    return Status::Corruption(path + ": database is damaged: " + msg);
  }
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    return Status::Unavailable(path + ": " + doing + ": " + msg);
  }
  const int err = db ? sqlite3_system_errno(db) : 0;
  if (err != 0 && (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR ||
                   primary == SQLITE_READONLY || primary == SQLITE_PERM)) {
    return FileError(path, err, doing);
  }
  return Status::IOError(path + ": " + doing + ": " + msg + " (sqlite " +
                         std::to_string(db ? sqlite3_extended_errcode(db) : rc) + ")");
}

bool IsSpecialPath(const std::string& path) {
  return path.empty() || path == ":memory:" || path.starts_with("file:");
}

// Before SQLite sees the path: a directory, a missing folder, a refused permission. `creating`:
// a missing file is fine (Open creates it) when its folder exists.
Status CheckPath(const std::string& path, bool creating) {
  if (IsSpecialPath(path)) return Status::Ok();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(path + " is a directory, not a database file");
    }
    if (!S_ISREG(st.st_mode)) {  // /dev/zero, a FIFO, a socket: SQLite would fail obscurely
      const char* what = S_ISCHR(st.st_mode)    ? "a character device"
                         : S_ISBLK(st.st_mode)  ? "a block device"
                         : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISSOCK(st.st_mode) ? "a socket"
                                                : "not a regular file";
      return Status::InvalidArgument(path + " is " + what + ", not a database file");
    }
    return Status::Ok();
  }
  const int err = errno;
  if (err != ENOENT) return FileError(path, err, "cannot open");
  if (!creating) return Status::NotFound("no database at " + path);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return Status::Ok();
  if (::stat(parent.c_str(), &st) != 0) {
    const int perr = errno;
    if (perr == ENOENT) {
      return Status::NotFound("cannot create database " + path + ": folder " + parent.string() +
                              " does not exist");
    }
    return FileError(path, perr, "cannot create");
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::NotFound("cannot create database " + path + ": " + parent.string() +
                            " is not a folder");
  }
  return Status::Ok();
}

// "file:/abs/path?immutable=1" with the bytes URI syntax reserves percent-encoded.
std::string ImmutableUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).string();
  if (ec) abs = path;
  std::string uri = "file:";
  for (const char ch : abs) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += ch;
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri + "?immutable=1";
}

// Reads the schema (the first real read of the file). Ok, or the error with its SQLite code.
int ProbeSchema(sqlite3* db) {
  return sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
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

const char* InfraCauseName(InfraCause cause) {
  switch (cause) {
    case InfraCause::kBoardDied: return "board_died";
    case InfraCause::kBoardTimeout: return "board_timeout";
    case InfraCause::kDeploy: return "deploy";
    case InfraCause::kClosureGate: return "closure_gate";
    case InfraCause::kPrepare: return "prepare";
    case InfraCause::kProtocol: return "protocol";
    case InfraCause::kDatabase: return "database";
    case InfraCause::kInterrupted: return "interrupted";
    case InfraCause::kOther: return "other";
  }
  return "other";
}

std::optional<InfraCause> ParseInfraCause(std::string_view text) {
  for (InfraCause c : {InfraCause::kBoardDied, InfraCause::kBoardTimeout, InfraCause::kDeploy,
                       InfraCause::kClosureGate, InfraCause::kPrepare, InfraCause::kProtocol,
                       InfraCause::kDatabase, InfraCause::kInterrupted, InfraCause::kOther}) {
    if (text == InfraCauseName(c)) return c;
  }
  return std::nullopt;
}

bool IsBoardDeath(std::string_view infra_cause) {
  return infra_cause == InfraCauseName(InfraCause::kBoardDied) ||
         infra_cause == InfraCauseName(InfraCause::kBoardTimeout);
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                 const Options& options) {
  return OpenForWriting(path, options, LatestSchemaVersion());
}

Result<std::unique_ptr<Database>> Database::TEST_OpenAtVersion(const std::string& path,
                                                               int version) {
  return OpenForWriting(path, Options{}, version);
}

Result<std::unique_ptr<Database>> Database::OpenForWriting(const std::string& path,
                                                           const Options& options,
                                                           int version) {
  CTTE_RETURN_IF_ERROR(CheckPath(path, /*creating=*/true));
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    Status st = OpenError(raw, rc, path, "cannot open database");
    sqlite3_close(raw);
    return st;
  }
  std::unique_ptr<Database> db(new Database(raw, path, /*read_only=*/false));
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  // SQLite fell back to O_RDONLY (permissions, read-only mount). A file already at `version`
  // is still read as before (history, show and report used Open() before OpenReadOnly existed);
  // every write then fails with this Status, naming the file and the errno.
  if (sqlite3_db_readonly(raw, "main") == 1) {
    const int err = ::access(path.c_str(), W_OK) == 0 ? EACCES : errno;
    const Status refused = FileError(path, err, "cannot open for writing");
    db.reset();
    auto ro = OpenReadOnly(path, options);  // also reads a WAL file in a read-only folder
    if (!ro.ok()) {
      return ro.status().code() == Status::Code::kCorruption
                 ? Status::Corruption(ro.status().message() + "; it was not modified")
                 : ro.status();
    }
    if ((*ro)->schema_version_ < version) return refused;  // it would need a migration
    (*ro)->write_refusal_ = refused;
    return ro;
  }
  // Nothing has been written yet: a damaged file stays exactly as it was.
  if (options.check_integrity) {
    if (Status st = db->CheckIntegrity(); !st.ok()) {
      return st.code() == Status::Code::kCorruption
                 ? Status::Corruption(st.message() + "; it was not modified")
                 : st;
    }
  }
  {
    Statement wal(raw, "PRAGMA journal_mode=WAL");
    if (auto row = wal.Step(); !row.ok()) {
      return OpenError(raw, SQLITE_ERROR, path, "cannot switch to WAL");
    }
  }
  CTTE_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  CTTE_RETURN_IF_ERROR(db->Migrate(version));
  Result<int> now = ReadUserVersion(raw);
  if (!now.ok()) return now.status();
  db->schema_version_ = *now;
  return db;
}

Result<std::unique_ptr<Database>> Database::OpenReadOnly(const std::string& path,
                                                         const Options& options) {
  CTTE_RETURN_IF_ERROR(CheckPath(path, /*creating=*/false));
  const auto open = [&path](const std::string& name, int flags, sqlite3** raw) -> Status {
    const int rc = sqlite3_open_v2(name.c_str(), raw, flags, nullptr);
    if (rc == SQLITE_OK) return Status::Ok();
    Status st = OpenError(*raw, rc, path, "cannot open database");
    sqlite3_close(*raw);
    *raw = nullptr;
    return st;
  };
  sqlite3* raw = nullptr;
  CTTE_RETURN_IF_ERROR(open(path, SQLITE_OPEN_READONLY, &raw));
  std::unique_ptr<Database> db(new Database(raw, path, /*read_only=*/true));
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  if (int rc = ProbeSchema(raw); rc != SQLITE_OK) {
    const int primary = sqlite3_extended_errcode(raw) & 0xff;
    if (primary != SQLITE_READONLY && primary != SQLITE_CANTOPEN) {
      return OpenError(raw, rc, path, "cannot read");
    }
    // A WAL file in a folder we cannot write: its -shm cannot be created. With no changes
    // waiting in -wal the main file is the whole database, so read it as immutable.
    std::error_code ec;
    const auto wal_size = std::filesystem::file_size(path + "-wal", ec);
    if (!ec && wal_size > 0) {
      return Status::IOError(path + ": cannot read: " + path + "-wal holds changes not yet in " +
                             path + " and " + path +
                             "-shm cannot be created (read-only folder?); open it once for "
                             "writing, or copy the three files to a writable folder");
    }
    db.reset();
    CTTE_RETURN_IF_ERROR(open(ImmutableUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, &raw));
    db.reset(new Database(raw, path, /*read_only=*/true));
    sqlite3_extended_result_codes(raw, 1);
    if (int rc2 = ProbeSchema(raw); rc2 != SQLITE_OK) {
      return OpenError(raw, rc2, path, "cannot read");
    }
  }
  Result<int> version = ReadUserVersion(raw);
  if (!version.ok()) return OpenError(raw, SQLITE_ERROR, path, "cannot read schema version");
  const int latest = LatestSchemaVersion();
  if (*version > latest) {
    return Status::InvalidArgument(path + ": database schema version " +
                                   std::to_string(*version) + " is newer than this build's " +
                                   std::to_string(latest) + " (use a newer ctte-lab)");
  }
  if (*version == 0) {
    return Status::InvalidArgument(path + ": not a CTTE Lab database (schema version 0, "
                                   "no tables; nothing was recorded in it)");
  }
  if (options.check_integrity) CTTE_RETURN_IF_ERROR(db->CheckIntegrity());
  db->schema_version_ = *version;
  return db;
}

Status Database::CheckIntegrity() const {
  Statement s(db_, "PRAGMA quick_check(20)");
  std::vector<std::string> problems;
  while (true) {
    auto more = s.Step();
    if (!more.ok()) return OpenError(db_, SQLITE_ERROR, path_, "cannot check");
    if (!*more) break;
    problems.push_back(s.Text(0));
  }
  if (problems.empty()) return Status::Internal(path_ + ": PRAGMA quick_check returned no row");
  if (problems.size() == 1 && problems[0] == "ok") return Status::Ok();
  std::string first = problems[0];
  size_t count = problems.size();
  if (first.starts_with("*** in database") && problems.size() > 1) {
    first = problems[1];  // the header line names the schema, the next one the problem
    --count;
  }
  first = first.substr(0, first.find('\n'));
  return Status::Corruption(path_ + ": database is damaged: " + first +
                            (count > 1 ? " (and more problems)" : ""));
}

Status Database::Writable() const {
  if (!read_only_) return Status::Ok();
  if (!write_refusal_.ok()) return write_refusal_;
  return Status::InvalidArgument(path_ + ": opened read-only; cannot write");
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

Status Database::Migrate(int target) {
  const int latest = LatestSchemaVersion();
  auto current = ReadUserVersion(db_);
  if (!current.ok()) return current.status();
  if (*current > latest) {
    return Status::InvalidArgument(path_ + ": database schema version " +
                                   std::to_string(*current) + " is newer than this build's " +
                                   std::to_string(latest));
  }
  while (*current < target) {
    Transaction tx(db_);
    CTTE_RETURN_IF_ERROR(tx.status());
    current = ReadUserVersion(db_);  // another process may have migrated meanwhile
    if (!current.ok()) return current.status();
    if (*current >= target) break;
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
  CTTE_RETURN_IF_ERROR(Writable());
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
  CTTE_RETURN_IF_ERROR(Writable());
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
  CTTE_RETURN_IF_ERROR(Writable());
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
  CTTE_RETURN_IF_ERROR(Writable());
  Transaction tx(db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  uint64_t inserted = 0;
  const std::string sql = std::string("INSERT INTO runs (") + kRunColumns +
                          (Has(2) ? kRunColumns2 : "") + ") VALUES (" + kRunParams +
                          (Has(2) ? kRunParams2 : "") +
                          ") ON CONFLICT (campaign_id, idx) WHERE replay_of IS NULL DO NOTHING";
  for (const RunRecord& r : runs) {
    if (r.status != RunStatus::kPlanned || r.replay_of) {
      return Status::InvalidArgument("PlanRuns: run " + std::to_string(r.index) +
                                     " is not a planned original run");
    }
    Statement ins(db_, sql.c_str());
    BindRun(ins, r, Has(2));
    CTTE_RETURN_IF_ERROR(ins.Run());
    inserted += static_cast<uint64_t>(sqlite3_changes(db_));
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return inserted;
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
    const std::string sql = std::string("UPDATE runs SET (") + kRunColumns +
                            (Has(2) ? kRunColumns2 : "") + ") = (" + kRunParams +
                            (Has(2) ? kRunParams2 : "") + ") WHERE id = ?23";
    Statement up(db_, sql.c_str());
    BindRun(up, run, Has(2));
    up.Bind(23, *planned_id);
    CTTE_RETURN_IF_ERROR(up.Run());
    run_id = *planned_id;
  } else {
    const std::string sql = std::string("INSERT INTO runs (") + kRunColumns +
                            (Has(2) ? kRunColumns2 : "") + ") VALUES (" + kRunParams +
                            (Has(2) ? kRunParams2 : "") + ")";
    Statement ins(db_, sql.c_str());
    BindRun(ins, run, Has(2));
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
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return run_id;
}

}  // namespace ctte::db
