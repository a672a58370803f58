// Raw SQL reads for the db tests that look below the typed API (the schema itself, the count
// tables): every row of a statement as text.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

namespace ctte::db::testing {

using SqlRows = std::vector<std::vector<std::string>>;

/// Every row of `sql` on `db`, each column as text (NULL as "NULL"); a statement that does not
/// prepare fails the calling test, naming the SQL, and gives no rows.
inline SqlRows QueryRows(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK)
      << sql << ": " << sqlite3_errmsg(db);
  SqlRows out;
  while (s != nullptr && sqlite3_step(s) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const unsigned char* t = sqlite3_column_text(s, c);
      row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(s);
  return out;
}

}  // namespace ctte::db::testing
