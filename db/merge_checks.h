// Internal to db/: the connections merge opens and the checks it runs on every input and on the
// output (db/merge.h).
#pragma once

#include <string>

#include "base/status.h"
#include "db/statement.h"

namespace ctte::db::internal {

/// A raw SQLite connection (merge uses its own, one per file, rather than ATTACH).
class Connection {
 public:
  Connection() = default;
  ~Connection() { sqlite3_close(db_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Status Open(const std::string& path, int flags, int busy_timeout_ms);
  sqlite3* get() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

/// PRAGMA integrity_check and foreign_key_check; `role` is "input", "output" or "merged output".
Status CheckIntact(sqlite3* db, const std::string& path, const char* role);
/// The input is at this build's schema version (user_version).
Status CheckSchemaVersion(sqlite3* db, const std::string& path);

}  // namespace ctte::db::internal
