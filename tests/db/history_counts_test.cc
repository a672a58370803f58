// Migration "history at scale" (docs/db-schema.md#history-counts): the counts the triggers keep
// in axis_counts and verdict_counts are, after every kind of write (plan, record, complete a
// planned run, replay, controls, requeue, merge, delete) and after the migration backfills an
// older file, what the JSON of the rows says. The oracle is the pre-migration SQL, run with
// SQLite directly on the same file.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <tuple>
#include <vector>

#include "db/database.h"
#include "db/merge.h"
#include "db/schema.h"
#include "db/triage_store.h"
#include "tests/db/db_fixture.h"
#include "tests/db/sql_rows.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::FreshDbPath;
using testing::MakeRun;
using testing::OpenOrDie;

using Rows = testing::SqlRows;

// Every row of `sql` on the file, as text (NULL as "NULL").
Rows Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  Rows out = testing::QueryRows(db, sql);
  sqlite3_close(db);
  return out;
}

constexpr const char* kDraw =
    "r.replay_of IS NULL AND json_extract(r.config_json, '$.control') IS NULL";

// The pre-migration answers (queries.cc before the counts), per campaign name or all.
Rows ExpectedFactors(const std::string& path) {
  return Query(path, std::string("SELECT a.key, CAST(a.value AS TEXT) AS value, COUNT(*), "
                                 "COUNT(CASE WHEN r.status = 'green' THEN 1 END), "
                                 "COUNT(CASE WHEN r.status = 'red' THEN 1 END) FROM runs r, "
                                 "json_each(r.config_json, '$.axes') a WHERE value IS NOT NULL "
                                 "AND ") +
                         kDraw + " GROUP BY a.key, value ORDER BY a.key, value");
}
Rows ExpectedOutcomes(const std::string& path) {
  return Query(path, std::string("SELECT v.verdict, COUNT(CASE WHEN v.outcome = 'pass' THEN 1 "
                                 "END), COUNT(CASE WHEN v.outcome = 'fail' THEN 1 END), "
                                 "COUNT(CASE WHEN v.outcome = 'n/a' THEN 1 END) FROM runs r "
                                 "JOIN verdicts v ON v.run_id = r.id WHERE r.status IN "
                                 "('green', 'red') AND ") +
                         kDraw + " GROUP BY v.verdict ORDER BY v.verdict");
}

Rows Factors(const Database& db) {
  auto rates = db.FailRatesByFactor();
  EXPECT_TRUE(rates.ok()) << rates.status().ToString();
  Rows out;
  for (const FactorRate& f : *rates) {
    out.push_back({f.factor, f.value, std::to_string(f.runs), std::to_string(f.green),
                   std::to_string(f.red)});
    auto one = db.FailRateByFactor(f.factor);
    EXPECT_TRUE(one.ok());
    bool found = false;
    for (const FactorRate& g : *one) {
      if (g.value == f.value) {
        found = true;
        EXPECT_EQ(std::tie(g.runs, g.green, g.red), std::tie(f.runs, f.green, f.red)) << f.value;
      }
    }
    EXPECT_TRUE(found) << f.factor << "=" << f.value;
  }
  return out;
}

Rows Outcomes(const Database& db) {
  auto counts = db.OutcomeCounts();
  EXPECT_TRUE(counts.ok()) << counts.status().ToString();
  Rows out;
  for (const OutcomeCount& o : *counts) {
    out.push_back({o.verdict, std::to_string(o.pass), std::to_string(o.fail),
                   std::to_string(o.not_applicable)});
  }
  return out;
}

void ExpectCountsMatchTheRows(const std::string& path) {
  auto db = Database::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_GE(*(*db)->SchemaVersion(), HistoryCountsSchemaVersion());
  EXPECT_EQ(Factors(**db), ExpectedFactors(path));
  EXPECT_EQ(Outcomes(**db), ExpectedOutcomes(path));
  // The nights of a name: pass and fail per verdict of each campaign row.
  auto nights = TriageStore::Nights(**db, "nightly");
  ASSERT_TRUE(nights.ok()) << nights.status().ToString();
  for (const NightRow& n : *nights) {
    Rows got;
    for (const auto& [verdict, c] : n.verdicts) {
      got.push_back({verdict, std::to_string(c.first), std::to_string(c.second)});
    }
    EXPECT_EQ(got, Query(path, std::string("SELECT v.verdict, COUNT(CASE WHEN v.outcome = "
                                           "'pass' THEN 1 END), COUNT(CASE WHEN v.outcome = "
                                           "'fail' THEN 1 END) FROM runs r JOIN verdicts v ON "
                                           "v.run_id = r.id WHERE r.status IN ('green', 'red') "
                                           "AND r.campaign_id = ") +
                                   std::to_string(n.campaign.id) + " AND " + kDraw +
                                   " GROUP BY v.verdict ORDER BY v.verdict"));
  }
  EXPECT_FALSE(ExpectedFactors(path).empty());
  EXPECT_FALSE(ExpectedOutcomes(path).empty());
}

std::vector<VerdictRecord> Verdicts(bool red) {
  return {{"decode_integrity", red ? Outcome::kFail : Outcome::kPass, "e", ""},
          {"determinism", Outcome::kNotApplicable, "n", ""},
          {"liveness", Outcome::kPass, "l", ""}};
}

// Every kind of write: planned then completed, finished at once, red, invalid with verdicts,
// infra then requeued and completed, a replay, a control (its own axes), a second campaign.
void WriteHistory(Database& db, uint64_t seed) {
  const int64_t c = *db.UpsertCampaign(Campaign("nightly", seed));
  const int64_t other = *db.UpsertCampaign(Campaign("smoke", seed + 1));
  std::vector<RunRecord> planned;
  for (uint64_t i = 0; i < 6; ++i)
    planned.push_back(MakeRun(c, i, RunStatus::kPlanned, "loop", "htm"));
  ASSERT_TRUE(db.PlanRuns(planned).ok());
  const char* workloads[] = {"loop", "sort", "calls"};
  for (uint64_t i = 0; i < 12; ++i) {
    const RunStatus st = i % 5 == 1   ? RunStatus::kRed
                         : i % 5 == 2 ? RunStatus::kInvalid
                         : i % 5 == 3 ? RunStatus::kInfra
                                      : RunStatus::kGreen;
    RunRecord r = MakeRun(i % 4 == 0 ? other : c, i, st, workloads[i % 3], i % 2 ? "btm" : "htm");
    if (st == RunStatus::kInfra) r.infra_cause = "board_died";
    std::vector<VerdictRecord> v =
        st == RunStatus::kInfra ? std::vector<VerdictRecord>{} : Verdicts(st == RunStatus::kRed);
    auto id = db.RecordRun(r, v);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    if (st == RunStatus::kRed) {
      RunRecord replay = r;
      replay.replay_of = *id;
      ASSERT_TRUE(db.RecordRun(replay, Verdicts(true)).ok());
    }
  }
  RunRecord control = MakeRun(c, 1000000000000ULL, RunStatus::kGreen, "traps", "btm");
  control.config_json = "{\"axes\":{\"workload\":\"traps\",\"mode\":\"btm\"},\"control\":{}}";
  ASSERT_TRUE(db.RecordRun(control, Verdicts(false)).ok());
  auto requeued = db.RequeueInfraRuns(c);
  ASSERT_TRUE(requeued.ok()) << requeued.status().ToString();
  ASSERT_FALSE(requeued->empty());
  for (uint64_t i : *requeued) {
    ASSERT_TRUE(db.RecordRun(MakeRun(c, i, RunStatus::kRed, "sort", "btm"), Verdicts(true)).ok());
  }
}

TEST(HistoryCountsTest, TheTriggersKeepTheCountsOfEveryWrite) {
  const std::string path = FreshDbPath();
  {
    auto db = OpenOrDie(path);
    WriteHistory(*db, 1);
  }
  ExpectCountsMatchTheRows(path);
}

TEST(HistoryCountsTest, TheMigrationBackfillsAnOlderFile) {
  const std::string path = FreshDbPath();
  {
    auto old = Database::TEST_OpenAtVersion(path, HistoryCountsSchemaVersion() - 1);
    ASSERT_TRUE(old.ok()) << old.status().ToString();
    WriteHistory(**old, 3);
  }
  // Read-only, the older file is read as it is: the same answers from the JSON.
  auto ro = Database::OpenReadOnly(path);
  ASSERT_TRUE(ro.ok());
  EXPECT_EQ(Factors(**ro), ExpectedFactors(path));
  EXPECT_EQ(Outcomes(**ro), ExpectedOutcomes(path));
  ro->reset();
  OpenOrDie(path).reset();  // migrates
  ExpectCountsMatchTheRows(path);
}

TEST(HistoryCountsTest, MergeAndDeleteKeepTheCounts) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db");
  const std::string out = FreshDbPath();
  {
    auto db = OpenOrDie(a);
    WriteHistory(*db, 5);
  }
  {
    auto db = OpenOrDie(b);
    WriteHistory(*db, 7);
  }
  auto merged = MergeDatabases(out, {a, b});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ExpectCountsMatchTheRows(out);
  ASSERT_TRUE(MergeDatabases(out, {a, b}).ok());  // idempotent: nothing counted twice
  ExpectCountsMatchTheRows(out);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(out.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "PRAGMA foreign_keys=ON; DELETE FROM run_attempts; "
                           "DELETE FROM run_pins; DELETE FROM streams; "
                           "DELETE FROM runs WHERE replay_of IS NOT NULL; "
                           "DELETE FROM runs WHERE id % 3 = 0",
                           nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  ExpectCountsMatchTheRows(out);
}

}  // namespace
}  // namespace ctte::db
