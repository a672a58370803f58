// Schema migrations keep old files readable: a file written at schema 1 is migrated to the
// latest schema and every run reads back identically; run_attempts and the history indexes come
// with schema 2.
#include <gtest/gtest.h>

#include <sstream>

#include "db/database.h"
#include "tests/db/db_files.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::MakeRun;
using testing::ScratchDir;

std::string Opt(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "-"; }
std::string Opt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

// Every stored field of a run row, its verdicts and stream, as one line.
std::string Describe(const Database& db, const RunRow& row) {
  const RunRecord& r = row.run;
  std::ostringstream s;
  s << row.id << '|' << row.campaign_name << '|' << r.campaign_id << '|' << r.index << '|'
    << r.seed << '|' << r.config_json << '|' << RunStatusName(r.status) << '|' << r.image_name
    << '|' << r.image_sha256 << '|' << Opt(r.board_id) << '|' << Opt(r.fabric.requested_hz)
    << Opt(r.fabric.programmed_hz) << Opt(r.fabric.read_back_hz) << Opt(r.sink.requested_hz)
    << Opt(r.sink.programmed_hz) << Opt(r.sink.read_back_hz) << '|' << r.started_at << '|'
    << Opt(r.wall_ms) << '|' << r.stream_sha256 << '|' << Opt(r.stream_size) << '|'
    << r.counters_json << '|' << r.metrics_json << '|' << Opt(r.replay_of) << '|' << row.judged
    << '|' << r.infra_cause << '|' << row.earlier_attempts;
  const auto verdicts = db.VerdictsOfRun(row.id);  // kept: *temporary would dangle in the loop
  for (const VerdictRecord& v : *verdicts) {
    s << '|' << v.verdict << ':' << OutcomeName(v.outcome) << ':' << v.evidence << ':'
      << v.metrics_json;
  }
  auto stream = db.StreamOfRun(row.id);
  s << '|' << (stream.ok() ? stream->size() : 0);
  return s.str();
}

std::vector<std::string> DescribeAll(const Database& db) {
  std::vector<std::string> out;
  const auto campaigns = db.Campaigns();
  for (const CampaignSummary& c : *campaigns) {
    const auto runs = db.RunsOfCampaign(c.id);
    for (const RunRow& r : *runs) out.push_back(Describe(db, r));
  }
  return out;
}

TEST(MigrationTest, ASchemaOneFileIsMigratedAndItsRunsReadBackIdentically) {
  ScratchDir dir;
  const std::string path = dir.File("v1.db");
  std::vector<std::string> before;
  {
    auto db = Database::TEST_OpenAtVersion(path, 1);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_EQ(*(*db)->SchemaVersion(), 1);
    const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
    const int64_t board = *(*db)->UpsertBoard({"sim", "sim-0", ""});
    RunRecord red = MakeRun(c, 0, RunStatus::kRed, "sort", "btm");
    red.board_id = board;
    const std::vector<uint8_t> bytes = {1, 2, 3};
    const int64_t red_id = *(*db)->RecordRun(
        red, {{"decode_integrity", Outcome::kFail, "PC mismatch", "{\"at\":4}"}}, &bytes);
    ASSERT_TRUE((*db)->RecordRun(MakeRun(c, 1, RunStatus::kInfra, "loop", "htm"), {}).ok());
    RunRecord planned = MakeRun(c, 2, RunStatus::kPlanned, "loop", "htm");
    ASSERT_TRUE((*db)->PlanRuns({planned}).ok());
    RunRecord replay = red;
    replay.replay_of = red_id;
    ASSERT_TRUE((*db)->RecordRun(replay, {}).ok());
    before = DescribeAll(**db);
  }
  {
    auto ro = Database::OpenReadOnly(path);  // an older build's file, read as it is
    ASSERT_TRUE(ro.ok()) << ro.status().ToString();
    EXPECT_EQ(DescribeAll(**ro), before);
  }
  auto db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(*(*db)->SchemaVersion(), Database::LatestSchemaVersion());
  EXPECT_EQ(DescribeAll(**db), before);
  // The migrated file takes the new data.
  RunRecord next = MakeRun(1, 3, RunStatus::kGreen, "loop", "htm");
  AttemptRecord died;
  died.board_id = 1;
  died.infra_cause = "board_died";
  died.reason = "board died: signal 9";
  died.respawned = true;
  auto id = (*db)->RecordRun(next, {}, nullptr, {died});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ((*db)->RunById(*id)->earlier_attempts, 1u);
}

TEST(MigrationTest, AttemptsRoundTripInOneTransactionWithTheRun) {
  ScratchDir dir;
  auto db = Database::Open(dir.File("a.db"));
  ASSERT_TRUE(db.ok());
  const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
  const int64_t b0 = *(*db)->UpsertBoard({"sim", "sim-0", ""});
  const int64_t b1 = *(*db)->UpsertBoard({"sim", "sim-1", ""});
  const std::vector<AttemptRecord> attempts = {
      {b0, RunStatus::kInfra, "board_died", "board died: signal 9 (SIGKILL)", true,
       "2026-01-01T00:00:00Z", 12},
      {b1, RunStatus::kInfra, "board_timeout", "no answer in 30 s", true, "", std::nullopt}};
  RunRecord run = MakeRun(c, 0, RunStatus::kGreen, "loop", "htm");
  run.board_id = b1;
  auto id = (*db)->RecordRun(run, {}, nullptr, attempts);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*(*db)->AttemptsOfRun(*id), attempts);

  // A bad attempt rolls the whole run back.
  AttemptRecord bad = attempts[0];
  bad.infra_cause = "gremlins";
  auto refused = (*db)->RecordRun(MakeRun(c, 1, RunStatus::kGreen, "loop", "htm"), {}, nullptr,
                                  {bad});
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("gremlins"), std::string::npos);
  AttemptRecord green = attempts[0];
  green.status = RunStatus::kGreen;
  green.infra_cause.clear();
  EXPECT_FALSE((*db)->RecordRun(MakeRun(c, 1, RunStatus::kGreen, "loop", "htm"), {}, nullptr,
                                {green}).ok());
  RunRecord cause_on_green = MakeRun(c, 1, RunStatus::kGreen, "loop", "htm");
  cause_on_green.infra_cause = "board_died";
  EXPECT_FALSE((*db)->RecordRun(cause_on_green, {}).ok());
  EXPECT_EQ((*db)->RunsOfCampaign(c)->size(), 1u);
}

TEST(MigrationTest, InfraCauseNamesRoundTrip) {
  for (InfraCause c : {InfraCause::kBoardDied, InfraCause::kBoardTimeout, InfraCause::kDeploy,
                       InfraCause::kClosureGate, InfraCause::kPrepare, InfraCause::kProtocol,
                       InfraCause::kDatabase, InfraCause::kInterrupted, InfraCause::kOther}) {
    EXPECT_EQ(ParseInfraCause(InfraCauseName(c)), c);
  }
  EXPECT_EQ(ParseInfraCause("board died"), std::nullopt);
  EXPECT_TRUE(IsBoardDeath("board_died"));
  EXPECT_TRUE(IsBoardDeath("board_timeout"));
  EXPECT_FALSE(IsBoardDeath("deploy"));
}

}  // namespace
}  // namespace ctte::db
