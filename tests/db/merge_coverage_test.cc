// Merge carries the whole schema: every column of every table, whatever migrations add. The
// fixture fills every column of every table through the public API; the test reads the schema
// itself (sqlite_schema, PRAGMA table_info), so a migration that adds a column or a table fails
// here until the fixture fills it and merge carries it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/schema.h"
#include "db/merge.h"
#include "db/triage_store.h"
#include "db/run_columns.h"
#include "tests/db/db_fixture.h"
#include "tests/db/sql_rows.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::FreshDbPath;
using testing::MakeRun;
using testing::OpenOrDie;

/// Raw read access to a database file, for what the typed API does not show.
class Raw {
 public:
  explicit Raw(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  }
  ~Raw() { sqlite3_close(db_); }
  std::vector<std::vector<std::string>> Rows(const std::string& sql) const {
    return testing::QueryRows(db_, sql);
  }
  void Exec(const std::string& sql) {
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
  }
  std::vector<std::string> Tables() const {
    std::vector<std::string> t;
    for (const auto& r : Rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name "
                              "NOT LIKE 'sqlite%' ORDER BY name")) {
      t.push_back(r[0]);
    }
    return t;
  }
  std::vector<std::string> Columns(const std::string& table) const {
    std::vector<std::string> c;
    for (const auto& r : Rows("SELECT name FROM pragma_table_info('" + table + "')")) {
      c.push_back(r[0]);
    }
    return c;
  }
  /// Every row of `table` as quote()d values (type and value), in rowid order.
  std::string Dump(const std::string& table) const {
    std::string select;
    for (const std::string& c : Columns(table)) {
      select += (select.empty() ? "" : " || ',' || ") + std::string("quote(\"") + c + "\")";
    }
    std::string out;
    // The count tables the triggers keep (schema.h) are WITHOUT ROWID: by their key.
    const std::string order = IsDerivedTable(table) ? "1" : "rowid";
    for (const auto& r : Rows("SELECT " + select + " FROM \"" + table + "\" ORDER BY " + order)) {
      out += r[0] + "\n";
    }
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

/// A database in which every column of every table holds a value in at least one row: an infra
/// run retried on a second board, a red run with verdicts and its stream, and a replay of it.
void FillEveryTable(const std::string& path) {
  auto db = OpenOrDie(path);
  ASSERT_TRUE(db);
  auto cid = db->UpsertCampaign(Campaign("nightly", 7));
  ASSERT_TRUE(cid.ok());
  ASSERT_TRUE(db->UpsertImage({"ntrace-slim", std::string(64, 'a'), "b1", "{\"m\":1}"}).ok());
  auto b1 = db->UpsertBoard({"sim", "board-1", "{\"slot\":0}"});
  auto b2 = db->UpsertBoard({"sim", "board-2", "{\"slot\":1}"});
  ASSERT_TRUE(b1.ok() && b2.ok());

  RunRecord infra = MakeRun(*cid, 0, RunStatus::kInfra, "loop", "htm");
  infra.board_id = *b2;
  infra.infra_cause = "board_timeout";
  AttemptRecord died{*b1, RunStatus::kInfra, "board_died", "board exited", true,
                     "2026-01-01T00:00:00Z", 17};
  ASSERT_TRUE(db->RecordRun(infra, {}, nullptr, {died}).ok());

  RunRecord red = MakeRun(*cid, 1, RunStatus::kRed, "calls", "btm");
  red.board_id = *b1;
  red.pins = {"calls", "/w/calls.elf", std::string(64, 'c'), "progen-1", "0.1.0-test (abc)"};
  const std::vector<uint8_t> bytes = {0, 1, 2, 0xff};
  auto red_id = db->RecordRun(
      red, {{"sequence", Outcome::kFail, "dut vs reference", "{\"at\":3}"}}, &bytes);
  ASSERT_TRUE(red_id.ok());
  RunRecord replay = red;
  replay.replay_of = *red_id;
  replay.started_at = "2026-01-02T00:00:00Z";
  ASSERT_TRUE(db->RecordRun(replay, {{"sequence", Outcome::kFail, "again", ""}}, &bytes).ok());

  // A bisection of the red run: bisections -> bisection_legs -> bisection_runs (a chain of
  // tables below runs that merge carries with its run).
  BisectionRecord b;
  b.run_id = *red_id;
  b.kind = "bisect";
  b.created_at = "2026-01-03T00:00:00Z";
  b.repeats = 2;
  b.verdict = "culprit";
  b.culprits = "mode";
  b.summary = "mode is the culprit";
  b.baseline_json = "{\"mode\":\"htm\"}";
  b.minimal_config_json = "{\"mode\":\"btm\"}";
  b.minimal_command = "ctte-lab run --config m.json";
  BisectionLegRecord leg;
  leg.ordinal = 0;
  leg.kind = "single";
  leg.factors = "mode";
  leg.config_json = "{\"mode\":\"htm\"}";
  leg.verdict = "culprit";
  leg.red = 1;
  leg.judged = 2;
  leg.unsound = 1;
  leg.lo = 0.1;
  leg.hi = 0.9;
  leg.runs.push_back({0, 0x1234, "red", "decode_integrity", "diverged", "board-1", 12});
  leg.runs.push_back({1, 0x5678, "green", "", "", "board-2", 13});
  b.legs.push_back(leg);
  ASSERT_TRUE(TriageStore::RecordBisection(*db, b).ok());
}

TEST(MergeCoverageTest, TheFixtureFillsEveryColumnOfEveryTable) {
  const std::string in = FreshDbPath("in.db");
  FillEveryTable(in);
  Raw raw(in);
  const std::vector<std::string> tables = raw.Tables();
  EXPECT_GE(tables.size(), 7u);
  for (const std::string& t : tables) {
    for (const std::string& c : raw.Columns(t)) {
      const auto n = raw.Rows("SELECT COUNT(*) FROM \"" + t + "\" WHERE \"" + c +
                              "\" IS NOT NULL");
      EXPECT_NE(n[0][0], "0") << t << "." << c
                              << " is NULL in every row of the fixture: fill it in "
                                 "FillEveryTable so that merge is shown to carry it";
    }
  }
}

TEST(MergeCoverageTest, MergeCarriesEveryColumnOfEveryTable) {
  const std::string in = FreshDbPath("in.db"), out = FreshDbPath("out.db");
  FillEveryTable(in);
  auto s = MergeDatabases(out, {in});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->total.runs_added, 2u);
  EXPECT_EQ(s->total.replays_added, 1u);
  // A new output takes the rows in the input's order, so even the ids agree.
  Raw a(in), b(out);
  ASSERT_EQ(a.Tables(), b.Tables());
  for (const std::string& t : a.Tables()) {
    EXPECT_EQ(a.Dump(t), b.Dump(t)) << "table " << t << " differs after the merge";
    EXPECT_FALSE(a.Dump(t).empty()) << "table " << t << " has no rows in the fixture";
  }
  // Merging again adds nothing to any table.
  std::map<std::string, std::string> before;
  for (const std::string& t : b.Tables()) before[t] = b.Dump(t);
  ASSERT_TRUE(MergeDatabases(out, {in}).ok());
  for (const std::string& t : b.Tables()) EXPECT_EQ(b.Dump(t), before[t]) << t;
}

TEST(MergeCoverageTest, RunColumnListMatchesTheSchema) {
  const std::string in = FreshDbPath("in.db");
  ASSERT_TRUE(OpenOrDie(in));
  Raw raw(in);
  std::set<std::string> schema, listed;
  for (const std::string& c : raw.Columns("runs")) {
    if (c != "id") schema.insert(c);
  }
  for (const internal::RunColumn& c : internal::kRunColumns) listed.insert(c.name);
  EXPECT_EQ(schema, listed) << "db/run_columns.h lists the columns of runs that RunRecord fills";
}

TEST(MergeCoverageTest, ATableMergeCannotPlaceIsRefusedByName) {
  const std::string in = FreshDbPath("in.db"), out = FreshDbPath("out.db");
  FillEveryTable(in);
  {
    Raw raw(in);
    raw.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)");
  }
  auto s = MergeDatabases(out, {in});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("table notes"), std::string::npos) << s.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace ctte::db
