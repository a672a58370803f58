// `ctte-lab soak` against boards that fail (in process, through BoardSource::TEST_wrap):
// a board death is retried once on a fresh board, a second one is stored as infra with its
// reason, and a red run keeps its bytes and its replay names the first differing byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "db/database.h"
#include "lab/board.h"
#include "lab/board_wrapper.h"
#include "runner/board_pool.h"
#include "runner/draw.h"
#include "runner/soak.h"
#include "tests/runner/soak_test_support.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;
using soak_testing::Cmd;
using soak_testing::kTinySpec;
using soak_testing::RunLab;

// A board that dies (as a board child would) in its next `failures` runs, then works.
class DyingBoard : public lab::BoardWrapper {
 public:
  DyingBoard(lab::Board* inner, int* failures) : BoardWrapper(inner), failures_(failures) {}
  Result<lab::Capture> Run(const lab::RunPlan& plan) override {
    if (*failures_ > 0) {
      --*failures_;
      return lab::BoardDiedError("TEST: injected board death");
    }
    return BoardWrapper::Run(plan);
  }

 private:
  int* failures_;
};

// A board whose captures come back with one byte flipped in the middle (a DUT bug, as seen
// from the runner): the run is red and its stream bytes are kept.
class CorruptingBoard : public DyingBoard {
 public:
  using DyingBoard::DyingBoard;
  Result<lab::Capture> Run(const lab::RunPlan& plan) override {
    Result<lab::Capture> c = DyingBoard::Run(plan);
    if (c.ok() && !c->bytes.empty()) c->bytes[c->bytes.size() / 2] ^= 0x5a;
    return c;
  }
};

SoakOptions InProcessOptions(const std::string& name, int* failures) {
  const std::string dir = ::testing::TempDir() + "ctte_soak_" + name + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string spec = kTinySpec;
  const auto set = [&spec](const std::string& from, const std::string& to) {
    spec.replace(spec.find(from), from.size(), to);
  };
  set("\"runs\": 12", "\"runs\": 2");
  set("\"determinism_pairs\": 0.5", "\"determinism_pairs\": 0.0");
  std::ofstream(dir + "/spec.json") << spec;
  SoakOptions o = soak_testing::BuildSoakOptions(dir + "/spec.json", dir + "/soak.db");
  o.boards.TEST_wrap = [failures](lab::Board* inner, unsigned) {
    return std::make_unique<DyingBoard>(inner, failures);
  };
  return o;
}

TEST(SoakFaultTest, BoardDeathIsRetriedOnceOnAFreshBoard) {
  int failures = 1;
  SoakOptions o = InProcessOptions("retry", &failures);
  std::vector<SoakRunEvent> events;
  auto s = RunSoak(o, [&events](const SoakRunEvent& e) { events.push_back(e); });
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->counts.retried, 1u);
  EXPECT_EQ(s->campaign.green, 2u);
  EXPECT_EQ(s->campaign.infra, 0u);
  EXPECT_EQ(failures, 0);
  // Issue 11: the death leaves a trace: counted per board, and the failed attempt is kept.
  EXPECT_EQ(s->counts.deaths, 1u);
  EXPECT_EQ(s->counts.respawns, 1u);
  ASSERT_EQ(s->boards.size(), 1u);
  EXPECT_EQ(s->boards[0].deaths, 1u);
  EXPECT_EQ(s->boards[0].respawns, 1u);
  EXPECT_EQ(s->boards[0].retried, 1u);
  ASSERT_EQ(events.size(), 2u);
  const SoakRunEvent& retried = events[0].attempts.empty() ? events[1] : events[0];
  ASSERT_EQ(retried.attempts.size(), 1u);
  const RunAttempt& a = retried.attempts[0];
  EXPECT_EQ(a.status, RunStatus::kInfra);
  EXPECT_EQ(a.cause, InfraCause::kBoardDied);
  EXPECT_NE(a.reason.find("injected board death"), std::string::npos) << a.reason;
  EXPECT_TRUE(a.respawned);
  EXPECT_GT(a.board_id, 0);
  EXPECT_FALSE(a.started_at.empty());
  EXPECT_EQ(retried.status, RunStatus::kGreen);
}

// A board whose next `failures` deploys fail (a lab failure a fresh board may not repeat).
class RefusingDeployBoard : public lab::BoardWrapper {
 public:
  RefusingDeployBoard(lab::Board* inner, int* failures) : BoardWrapper(inner), failures_(failures) {}
  Result<lab::DeployReceipt> Deploy(const lab::DeployRequest& request) override {
    if (*failures_ > 0) {
      --*failures_;
      return Status::IOError("TEST: injected deploy failure");
    }
    return BoardWrapper::Deploy(request);
  }

 private:
  int* failures_;
};

// One retry rule (runner/board_worker.h): a bisection or triage leg whose deploy fails once is
// retried on a reopened board as the soak's draws are. The pool used to retry deaths only, and
// scored such a leg infra.
TEST(BoardPoolTest, ALegWhoseDeployFailsOnceIsRetriedLikeASoakRun) {
  int failures = 1;
  SoakOptions so = InProcessOptions("pool", &failures);
  Result<SpecCheck> spec = LoadCampaignSpec(so.spec_path);
  ASSERT_TRUE(spec.ok() && spec->ok());
  BoardPoolOptions o;
  o.boards = so.boards;
  o.boards.TEST_wrap = [&failures](lab::Board* inner, unsigned) {
    return std::make_unique<RefusingDeployBoard>(inner, &failures);
  };
  o.execute = so.execute;
  o.execute.ring_bytes = spec->spec.ring_bytes;
  const std::vector<LegRun> legs = RunBatch(o, {Draw(spec->spec, 0)});
  ASSERT_EQ(legs.size(), 1u);
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(legs[0].status, RunStatus::kGreen) << legs[0].reason;
}

TEST(SoakFaultTest, SecondBoardDeathIsStoredAsInfraWithItsReason) {
  int failures = 2;
  SoakOptions o = InProcessOptions("infra", &failures);
  auto s = RunSoak(o, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->counts.retried, 1u);
  EXPECT_EQ(s->campaign.infra, 1u);
  EXPECT_EQ(s->campaign.green, 1u);  // the next run gets a working (respawned) board
  EXPECT_EQ(s->counts.deaths, 2u);
  EXPECT_EQ(s->counts.respawns, 2u);  // before the retry, and a fresh board after it
  auto d = db::Database::Open(o.db_path);
  ASSERT_TRUE(d.ok());
  auto rows = (*d)->RunsOfCampaign(s->campaign_id);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].run.status, db::RunStatus::kInfra);
  EXPECT_NE((*rows)[0].run.metrics_json.find("injected board death"), std::string::npos)
      << (*rows)[0].run.metrics_json;
  // Issue 11: replaying an infra run says why it cannot be compared.
  Cmd c = RunLab("replay " + std::to_string((*rows)[0].id) + " --db " + o.db_path);
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("is infra (the lab failed"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("injected board death"), std::string::npos) << c.out;
}

TEST(SoakFaultTest, RedRunKeepsItsBytesAndItsReplayNamesTheFirstDifferingByte) {
  int failures = 0;
  SoakOptions o = InProcessOptions("red", &failures);
  o.boards.TEST_wrap = [&failures](lab::Board* inner, unsigned) {
    return std::make_unique<CorruptingBoard>(inner, &failures);
  };
  auto s = RunSoak(o, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->campaign.red, 2u) << "a flipped byte must turn every run red";
  auto d = db::Database::Open(o.db_path);
  ASSERT_TRUE(d.ok());
  auto rows = (*d)->RunsOfCampaign(s->campaign_id);
  ASSERT_TRUE(rows.ok());
  const db::RunRow& red = rows->front();
  auto bytes = (*d)->StreamOfRun(red.id);
  ASSERT_TRUE(bytes.ok()) << "a red run's stream bytes are stored";
  EXPECT_EQ(bytes->size(), red.run.stream_size.value_or(0));
  // The replay runs on a clean board: the stream differs exactly at the flipped byte.
  Cmd c = RunLab("replay " + std::to_string(red.id) + " --db " + o.db_path);
  EXPECT_EQ(c.exit_code, 1) << c.out;
  EXPECT_NE(c.out.find("first differing byte at offset " + std::to_string(bytes->size() / 2)),
            std::string::npos)
      << c.out;
  Cmd report = RunLab("report " + std::to_string(s->campaign_id) + " --db " + o.db_path +
                      " --junit " + o.db_path + ".xml");
  EXPECT_EQ(report.exit_code, 0) << report.out;
  std::ifstream in(o.db_path + ".xml");
  std::stringstream junit;
  junit << in.rdbuf();
  EXPECT_NE(junit.str().find("<failure message=\"red: "), std::string::npos) << junit.str();
}

}  // namespace
}  // namespace ctte::runner
