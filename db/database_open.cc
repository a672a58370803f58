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
#include "db/pins.h"
#include "db/schema.h"
#include "db/statement.h"


namespace ctte::db {

using internal::Statement;
using internal::Transaction;

namespace {

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
  // Only on request: the check reads the whole file (Options::check_integrity_read_only).
  if (options.check_integrity_read_only) CTTE_RETURN_IF_ERROR(db->CheckIntegrity());
  db->schema_version_ = *version;
  return db;
}

Status Database::CheckIntegrity() const {
  Statement s(db_, "PRAGMA quick_check(20)");
  std::vector<std::string> problems;
  CTTE_RETURN_IF_ERROR(s.ForEachRow(
      [&] { problems.push_back(s.Text(0)); },
      [this](const Status&) { return OpenError(db_, SQLITE_ERROR, path_, "cannot check"); }));
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

}  // namespace ctte::db
