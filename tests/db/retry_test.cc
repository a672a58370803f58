// Database::RequeueInfraRuns (soak --retry-infra, issue #11): infra runs go back to planned in
// place, their failed outcome kept as the newest earlier attempt; the rerun's own earlier
// attempts are numbered after the kept ones.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "db/database.h"
#include "db/run_columns.h"
#include "tests/db/db_files.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::MakeRun;
using testing::ScratchDir;

TEST(RetryTest, InfraRunsAreRequeuedInPlaceKeepingEveryAttemptInOrder) {
  ScratchDir dir;
  auto db = Database::Open(dir.File("r.db"));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
  const int64_t b = *(*db)->UpsertBoard({"sim", "sim-0", ""});
  // Run 0: died once, then stored as infra (no image); run 1 green; run 2 infra, other shard.
  AttemptRecord died{b, RunStatus::kInfra, "board_died", "board died", true, "t0", 5};
  RunRecord infra0 = MakeRun(c, 0, RunStatus::kInfra, "loop", "htm");
  infra0.infra_cause = "prepare";
  infra0.board_id = b;
  infra0.metrics_json = R"({"status_reason":"no manifest in no-images"})";
  const int64_t id0 = *(*db)->RecordRun(infra0, {}, nullptr, {died});
  ASSERT_TRUE((*db)->RecordRun(MakeRun(c, 1, RunStatus::kGreen, "loop", "htm"), {}).ok());
  RunRecord infra2 = MakeRun(c, 2, RunStatus::kInfra, "loop", "htm");
  infra2.infra_cause = "prepare";
  const int64_t id2 = *(*db)->RecordRun(infra2, {});

  auto requeued = (*db)->RequeueInfraRuns(c, [](uint64_t i) { return i != 2; });
  ASSERT_TRUE(requeued.ok()) << requeued.status().ToString();
  EXPECT_EQ(*requeued, std::vector<uint64_t>{0});
  EXPECT_EQ((*db)->RunById(id0)->run.status, RunStatus::kPlanned);
  EXPECT_EQ((*db)->RunById(id2)->run.status, RunStatus::kInfra) << "not included: untouched";
  auto kept = (*db)->AttemptsOfRun(id0);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 2u);
  EXPECT_EQ((*kept)[0], died);
  EXPECT_EQ((*kept)[1].infra_cause, "prepare");
  EXPECT_EQ((*kept)[1].reason, "no manifest in no-images");
  EXPECT_EQ((*kept)[1].board_id, b);

  // The rerun dies once more, then goes green: the same row, attempts 1..3 then the row.
  AttemptRecord again{b, RunStatus::kInfra, "board_timeout", "no answer", true, "t2", 7};
  auto id = (*db)->RecordRun(MakeRun(c, 0, RunStatus::kGreen, "loop", "htm"), {}, nullptr,
                             {again});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, id0);
  auto all = (*db)->AttemptsOfRun(id0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2], again);
  EXPECT_EQ((*db)->RunById(id0)->run.status, RunStatus::kGreen);
  EXPECT_EQ((*db)->RunsOfCampaign(c)->size(), 3u);
  // Nothing left to requeue but run 2; a read-only database refuses.
  auto ro = Database::OpenReadOnly(dir.File("r.db"));
  ASSERT_TRUE(ro.ok());
  EXPECT_FALSE((*ro)->RequeueInfraRuns(c).ok());
}

// A requeued run keeps exactly its planned columns (run_columns.h) and every other column of
// the list is NULL again: the UPDATE is made from the list, so a column added to it is cleared.
TEST(RetryTest, ARequeuedRunKeepsItsPlanAndClearsEveryOutcomeColumn) {
  ScratchDir dir;
  const std::string path = dir.File("r.db");
  int64_t id = 0;
  {
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
    RunRecord infra = MakeRun(c, 0, RunStatus::kInfra, "loop", "htm");  // every column set
    infra.infra_cause = "prepare";
    infra.board_id = *(*db)->UpsertBoard({"sim", "sim-0", ""});
    id = *(*db)->RecordRun(infra, {});
    ASSERT_TRUE((*db)->RequeueInfraRuns(c).ok());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  for (const internal::RunColumn& col : internal::kRunColumns) {
    const std::string sql =
        std::string("SELECT ") + col.name + " IS NULL FROM runs WHERE id = " + std::to_string(id);
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(s, 0) != 0, !col.planned || std::string(col.name) == "replay_of")
        << col.name << (col.planned ? " (planned) was cleared" : " (an outcome) was kept");
    sqlite3_finalize(s);
  }
  sqlite3_close(raw);
}

}  // namespace
}  // namespace ctte::db
