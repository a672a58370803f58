// Internal to db/: a prepared SQLite statement and a transaction guard. The only header that
// includes sqlite3.h (house style 3); SQLite result codes become Status here.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ctte::db::internal {

inline Status SqliteError(sqlite3* db, const std::string& what) {
  const int code = sqlite3_extended_errcode(db);
  std::string msg = what + ": " + sqlite3_errmsg(db) + " (sqlite " + std::to_string(code) + ")";
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
    return Status::Unavailable(msg);
  }
  if ((code & 0xff) == SQLITE_CONSTRAINT) return Status::InvalidArgument(msg);
  if ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB) {
    // A read-only open does not check every page: the query that meets a damaged one names
    // the file, as the check at open would.
    const char* file = sqlite3_db_filename(db, "main");
    return Status::Corruption(std::string(file && *file ? file : "database") +
                              ": database is damaged: " + msg);
  }
  return Status::IOError(msg);
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      status_ = SqliteError(db, std::string("prepare \"") + sql + "\"");
      stmt_ = nullptr;
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  const Status& status() const { return status_; }

  void Bind(int i, int64_t v) { Check(sqlite3_bind_int64(stmt_, i, v)); }
  void BindU64(int i, uint64_t v) { Bind(i, static_cast<int64_t>(v)); }
  void Bind(int i, std::string_view v) {
    Check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  /// Empty text binds NULL.
  void BindOpt(int i, std::string_view v) {
    if (v.empty()) BindNull(i);
    else Bind(i, v);
  }
  void BindOpt(int i, const std::optional<int64_t>& v) {
    if (v) Bind(i, *v);
    else BindNull(i);
  }
  void BindOpt(int i, const std::optional<uint64_t>& v) {
    if (v) BindU64(i, *v);
    else BindNull(i);
  }
  void BindNull(int i) { Check(sqlite3_bind_null(stmt_, i)); }
  void BindBlob(int i, const std::vector<uint8_t>& b) {
    if (b.empty()) return Check(sqlite3_bind_zeroblob(stmt_, i, 0));
    Check(sqlite3_bind_blob(stmt_, i, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT));
  }

  /// Binds a value read from another statement's result column, with its SQLite type.
  void BindValue(int i, sqlite3_value* v) { Check(sqlite3_bind_value(stmt_, i, v)); }

  /// True if a row is ready, false when done; the Status explains a failure.
  Result<bool> Step() {
    if (!status_.ok()) return status_;
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(db_, "step");
  }
  /// Steps to the end, calling `row()` at each row (the columns are read from this Statement
  /// inside it). `row` returns void, or a Status: a non-Ok one stops the loop and is returned.
  /// A failed step is returned through `step_error` (as Step() gives it by default).
  template <typename F, typename E>
  Status ForEachRow(F&& row, E&& step_error) {
    while (true) {
      Result<bool> more = Step();
      if (!more.ok()) return step_error(more.status());
      if (!*more) return Status::Ok();
      if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        row();
      } else {
        Status st = row();
        if (!st.ok()) return st;
      }
    }
  }
  template <typename F>
  Status ForEachRow(F&& row) {
    return ForEachRow(std::forward<F>(row), [](const Status& st) { return st; });
  }
  /// Runs a statement that returns no rows.
  Status Run() {
    auto r = Step();
    return r.ok() ? Status::Ok() : r.status();
  }

  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  uint64_t U64(int col) const { return static_cast<uint64_t>(Int(col)); }
  std::string Text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::optional<int64_t> OptInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  std::optional<uint64_t> OptU64(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<uint64_t>(U64(col));
  }
  /// The result column as a value (valid until the next Step); for BindValue.
  sqlite3_value* Value(int col) const { return sqlite3_column_value(stmt_, col); }
  int ColumnCount() const { return sqlite3_column_count(stmt_); }
  std::vector<uint8_t> Blob(int col) const {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::vector<uint8_t>(p, p + n) : std::vector<uint8_t>();
  }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK && status_.ok()) status_ = SqliteError(db_, "bind");
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
};

/// BEGIN IMMEDIATE on construction (takes the write lock up front, so the busy timeout applies
/// here rather than mid-transaction); ROLLBACK on destruction unless Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      status_ = SqliteError(db, "begin transaction");
    } else {
      open_ = true;
    }
  }
  ~Transaction() {
    if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  const Status& status() const { return status_; }
  Status Commit() {
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      return SqliteError(db_, "commit");
    }
    open_ = false;
    return Status::Ok();
  }

 private:
  sqlite3* db_;
  bool open_ = false;
  Status status_;
};

}  // namespace ctte::db::internal
