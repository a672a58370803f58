// The checks merge runs before it writes (db/merge_checks.h).
#include "db/merge_checks.h"

#include "db/database.h"

namespace ctte::db::internal {

Status Connection::Open(const std::string& path, int flags, int busy_timeout_ms) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    return Status::IOError(path + ": cannot open: " +
                           (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)));
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  return Status::Ok();
}

/// PRAGMA integrity_check and foreign_key_check; `role` is "input" or "output".
Status CheckIntact(sqlite3* db, const std::string& path, const char* role) {
  std::string problems;
  {
    Statement s(db, "PRAGMA integrity_check");
    CTTE_RETURN_IF_ERROR(s.ForEachRow(
        [&] {
          const std::string line = s.Text(0);
          if (line == "ok") return;
          if (problems.size() < 400) problems += (problems.empty() ? "" : "; ") + line;
        },
        [&](const Status& st) {
          return Status::Corruption(std::string(role) + " " + path +
                                    " is damaged or not a database: " + st.message());
        }));
  }
  if (!problems.empty()) {
    return Status::Corruption(std::string(role) + " " + path +
                              " fails PRAGMA integrity_check: " + problems);
  }
  Statement fk(db, "PRAGMA foreign_key_check");
  auto row = fk.Step();
  if (!row.ok()) return Status::Corruption(std::string(role) + " " + path + ": " + row.status().message());
  if (*row) {
    return Status::Corruption(std::string(role) + " " + path +
                              " fails PRAGMA foreign_key_check: a row of table " + fk.Text(0) +
                              " (rowid " + std::to_string(fk.Int(1)) + ") points at a missing " +
                              fk.Text(2) + " row");
  }
  return Status::Ok();
}

Status CheckSchemaVersion(sqlite3* db, const std::string& path) {
  Statement s(db, "PRAGMA user_version");
  auto row = s.Step();
  if (!row.ok()) {
    return Status::Corruption("input " + path + " is damaged or not a database: " +
                              row.status().message());
  }
  const int64_t version = *row ? s.Int(0) : 0;
  if (version != Database::LatestSchemaVersion()) {
    return Status::InvalidArgument(
        "input " + path + " has schema version " + std::to_string(version) +
        (version == 0 ? " (not a lab database)" : "") + "; this build merges version " +
        std::to_string(Database::LatestSchemaVersion()) +
        (version > 0 && version < Database::LatestSchemaVersion()
             ? " (open it once with this build, e.g. ctte-lab history --db FILE, to migrate it)"
             : ""));
  }
  return Status::Ok();
}

}  // namespace ctte::db::internal
