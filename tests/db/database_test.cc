#include "db/database.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::FreshDbPath;
using testing::OpenOrDie;
using testing::MakeRun;

TEST(DatabaseTest, MigratesAnEmptyFileToTheLatestSchemaWithWal) {
  const std::string path = FreshDbPath();
  auto db = OpenOrDie(path);
  ASSERT_TRUE(db);
  auto version = db->SchemaVersion();
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(*version, Database::LatestSchemaVersion());
  EXPECT_GE(Database::LatestSchemaVersion(), 1);
  auto mode = db->JournalMode();
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(*mode, "wal");
  auto campaigns = db->Campaigns();
  ASSERT_TRUE(campaigns.ok());
  EXPECT_TRUE(campaigns->empty());
}

TEST(DatabaseTest, ReopeningIsIdempotentAndKeepsData) {
  const std::string path = FreshDbPath();
  int64_t id = 0;
  {
    auto db = OpenOrDie(path);
    auto c = db->UpsertCampaign(Campaign("smoke", 1));
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    id = *c;
    ASSERT_TRUE(db->RecordRun(MakeRun(id, 0, RunStatus::kGreen, "loop", "htm"), {}).ok());
  }
  for (int i = 0; i < 2; ++i) {
    auto db = OpenOrDie(path);
    EXPECT_EQ(*db->SchemaVersion(), Database::LatestSchemaVersion());
    auto runs = db->RunsOfCampaign(id);
    ASSERT_TRUE(runs.ok());
    EXPECT_EQ(runs->size(), 1u);
  }
}

TEST(DatabaseTest, UpsertsReturnTheExistingRow) {
  auto db = OpenOrDie(FreshDbPath());
  auto a = db->UpsertCampaign(Campaign("smoke", 1));
  auto b = db->UpsertCampaign(Campaign("smoke", 1));
  auto other_spec = db->UpsertCampaign(Campaign("smoke", 2));
  ASSERT_TRUE(a.ok() && b.ok() && other_spec.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *other_spec);
  auto i1 = db->UpsertImage({"ntrace-slim", std::string(64, 'c'), "b1", "{}"});
  auto i2 = db->UpsertImage({"ntrace-slim", std::string(64, 'c'), "b1", "{}"});
  ASSERT_TRUE(i1.ok() && i2.ok()) << i1.status().ToString();
  EXPECT_EQ(*i1, *i2);
  auto b1 = db->UpsertBoard({"sim", "sim-0", "{\"slots\":1}"});
  auto b2 = db->UpsertBoard({"sim", "sim-0", "{\"slots\":2}"});
  ASSERT_TRUE(b1.ok() && b2.ok()) << b1.status().ToString();
  EXPECT_EQ(*b1, *b2);
}

TEST(DatabaseTest, RunVerdictsAndStreamRoundTrip) {
  auto db = OpenOrDie(FreshDbPath());
  const int64_t c = *db->UpsertCampaign(Campaign("smoke", 1));
  const int64_t board = *db->UpsertBoard({"sim", "sim-0", ""});
  RunRecord run = MakeRun(c, 3, RunStatus::kRed, "sort", "btm");
  run.board_id = board;
  run.seed = UINT64_MAX;
  const std::vector<uint8_t> bytes = {0x00, 0xff, 0x10, 0x00, 0x42};
  auto id = db->RecordRun(run,
                          {{"sequence", Outcome::kFail, "PC mismatch: DUT 0x80000104, "
                                                        "reference 0x80000100", "{\"at\":7}"},
                           {"liveness", Outcome::kPass, "", ""}},
                          &bytes);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto runs = db->RunsOfCampaign(c);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const RunRow& row = (*runs)[0];
  EXPECT_EQ(row.id, *id);
  EXPECT_EQ(row.campaign_name, "smoke");
  EXPECT_EQ(row.run.seed, UINT64_MAX);
  EXPECT_EQ(row.run.index, 3u);
  EXPECT_EQ(row.run.status, RunStatus::kRed);
  EXPECT_EQ(row.run.board_id, board);
  EXPECT_EQ(row.run.sink, run.sink);
  EXPECT_EQ(row.run.wall_ms, 1234);
  EXPECT_EQ(row.run.started_at, run.started_at);
  EXPECT_EQ(row.run.config_json, run.config_json);
  auto verdicts = db->VerdictsOfRun(*id);
  ASSERT_TRUE(verdicts.ok());
  ASSERT_EQ(verdicts->size(), 2u);
  EXPECT_EQ((*verdicts)[0].verdict, "sequence");
  EXPECT_EQ((*verdicts)[0].outcome, Outcome::kFail);
  EXPECT_EQ((*verdicts)[0].metrics_json, "{\"at\":7}");
  EXPECT_EQ((*verdicts)[1].outcome, Outcome::kPass);
  auto stream = db->StreamOfRun(*id);
  ASSERT_TRUE(stream.ok());
  EXPECT_EQ(*stream, bytes);
  EXPECT_FALSE(db->StreamOfRun(*id + 100).ok());
}

TEST(DatabaseTest, FailedVerdictWriteLeavesNoPartialRun) {
  auto db = OpenOrDie(FreshDbPath());
  const int64_t c = *db->UpsertCampaign(Campaign("smoke", 1));
  const std::vector<uint8_t> bytes = {1, 2, 3};
  // The second verdict violates the CHECK (json_valid(metrics_json)) after the run row and the
  // first verdict were already inserted inside the transaction.
  auto id = db->RecordRun(MakeRun(c, 0, RunStatus::kRed, "loop", "htm"),
                          {{"sequence", Outcome::kFail, "x", ""},
                           {"liveness", Outcome::kPass, "", "{not json"}},
                          &bytes);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Status::Code::kInvalidArgument) << id.status().ToString();
  EXPECT_NE(id.status().message().find("liveness"), std::string::npos);
  EXPECT_TRUE(db->RunsOfCampaign(c)->empty());
  EXPECT_TRUE(db->OutcomeCounts()->empty());
  EXPECT_TRUE(db->RedRuns()->empty());
  // The same run can then be written correctly.
  EXPECT_TRUE(db->RecordRun(MakeRun(c, 0, RunStatus::kGreen, "loop", "htm"),
                            {{"sequence", Outcome::kPass, "", ""}}).ok());
}

TEST(DatabaseTest, FailedWriteLeavesAPlannedRunPlanned) {
  auto db = OpenOrDie(FreshDbPath());
  const int64_t c = *db->UpsertCampaign(Campaign("smoke", 1));
  RunRecord planned = MakeRun(c, 0, RunStatus::kPlanned, "loop", "htm");
  ASSERT_EQ(*db->PlanRuns({planned}), 1u);
  auto id = db->RecordRun(MakeRun(c, 0, RunStatus::kGreen, "loop", "htm"),
                          {{"sequence", Outcome::kPass, "", ""},
                           {"sequence", Outcome::kPass, "", ""}});  // UNIQUE(run_id, verdict)
  ASSERT_FALSE(id.ok());
  auto runs = db->RunsOfCampaign(c);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].run.status, RunStatus::kPlanned);
  EXPECT_TRUE(db->VerdictsOfRun((*runs)[0].id)->empty());
}

TEST(DatabaseTest, RecordingCompletesAPlannedRunInPlace) {
  auto db = OpenOrDie(FreshDbPath());
  const int64_t c = *db->UpsertCampaign(Campaign("smoke", 1));
  std::vector<RunRecord> plan;
  for (uint64_t i = 0; i < 3; ++i) plan.push_back(MakeRun(c, i, RunStatus::kPlanned, "loop", "htm"));
  ASSERT_EQ(*db->PlanRuns(plan), 3u);
  ASSERT_EQ(*db->PlanRuns(plan), 0u);  // planning again adds nothing
  const int64_t planned_id = (*db->RunsOfCampaign(c))[1].id;
  auto id = db->RecordRun(MakeRun(c, 1, RunStatus::kGreen, "loop", "htm"), {});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, planned_id);
  auto again = db->RecordRun(MakeRun(c, 1, RunStatus::kRed, "loop", "htm"), {});
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("already recorded"), std::string::npos);
  RunRecord replay = MakeRun(c, 1, RunStatus::kGreen, "loop", "htm");
  replay.replay_of = planned_id;
  auto replay_id = db->RecordRun(replay, {});
  ASSERT_TRUE(replay_id.ok()) << replay_id.status().ToString();
  EXPECT_EQ(db->RunsOfCampaign(c)->size(), 4u);
  auto summary = db->Campaigns("smoke");
  ASSERT_EQ(summary->size(), 1u);
  EXPECT_EQ((*summary)[0].planned, 2u);
  EXPECT_EQ((*summary)[0].green, 2u);
}

TEST(DatabaseTest, ForeignKeysAreEnforced) {
  auto db = OpenOrDie(FreshDbPath());
  auto id = db->RecordRun(MakeRun(999, 0, RunStatus::kGreen, "loop", "htm"), {});
  EXPECT_FALSE(id.ok());
  const int64_t c = *db->UpsertCampaign(Campaign("smoke", 1));
  RunRecord r = MakeRun(c, 0, RunStatus::kGreen, "loop", "htm");
  r.board_id = 12345;
  EXPECT_FALSE(db->RecordRun(r, {}).ok());
  EXPECT_TRUE(db->RunsOfCampaign(c)->empty());
}

TEST(DatabaseTest, ConcurrentWritersBothSucceed) {
  const std::string path = FreshDbPath();
  int64_t c = 0;
  {
    auto db = OpenOrDie(path);
    c = *db->UpsertCampaign(Campaign("smoke", 1));
  }
  constexpr int kPerWriter = 40;
  std::vector<std::thread> writers;
  std::vector<int> failures(2, 0);
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      auto db = Database::Open(path);
      if (!db.ok()) {
        failures[static_cast<size_t>(w)] = kPerWriter;
        return;
      }
      for (int i = 0; i < kPerWriter; ++i) {
        const uint64_t index = static_cast<uint64_t>(w * kPerWriter + i);
        auto id = (*db)->RecordRun(MakeRun(c, index, RunStatus::kGreen, "loop", "htm"),
                                   {{"sequence", Outcome::kPass, "", ""}});
        failures[static_cast<size_t>(w)] += !id.ok();
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(failures[0] + failures[1], 0);
  auto db = OpenOrDie(path);
  EXPECT_EQ(db->RunsOfCampaign(c)->size(), 2u * kPerWriter);
}

TEST(DatabaseTest, MissingFolderIsNotFoundNamingIt) {
  auto db = Database::Open("/nonexistent-dir/sub/ctte.db");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kNotFound) << db.status().ToString();
  EXPECT_NE(db.status().message().find("/nonexistent-dir/sub"), std::string::npos)
      << db.status().ToString();
}

}  // namespace
}  // namespace ctte::db
