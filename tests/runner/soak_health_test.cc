// Board health in a soak (runner/board_health.h), with a fault-injecting board
// (tests/lab/fault_injecting_board.h) around board children: K infra failures in a row
// quarantine a board, its run goes to the other board with its failed attempts, a health check
// re-admits it once it works again; a soak whose boards are all quarantined stops, naming them,
// with every finished run stored. The soak's log names each board, run and quarantine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "base/log.h"
#include "db/database.h"
#include "runner/soak.h"
#include "tests/lab/fault_injecting_board.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSpec = R"({
  "name": "soak-health",
  "description": "quarantine test campaign",
  "seed": "0x0123456789abcdef",
  "runs": 16,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 3000,
  "determinism_pairs": 0.0,
  "axes": {"mode": ["htm", "btm"], "workload": ["loop", "calls"]}
})";

struct HealthSetup {
  SoakOptions options;
  std::string dir;
};

// Two board children; board 1's runs fail as `fault` says (the wrapper outlives respawns, so
// its call count runs across them).
HealthSetup TwoBoards(const std::string& name, std::vector<lab::Fault> faults_of_board1,
                std::vector<lab::Fault> faults_of_board0 = {}) {
  HealthSetup s;
  s.dir = ::testing::TempDir() + "ctte_health_" + name + std::to_string(getpid());
  fs::remove_all(s.dir);
  fs::create_directories(s.dir);
  std::ofstream(s.dir + "/spec.json") << kSpec;
  SoakOptions& o = s.options;
  o.spec_path = s.dir + "/spec.json";
  o.db_path = s.dir + "/soak.db";
  o.boards.count = 2;
  o.execute.image_dir = std::string(CTTE_BINARY_DIR) + "/images";
  o.execute.workload_dir = std::string(CTTE_BINARY_DIR) + "/workloads";
  o.boards.child.board_path = std::string(CTTE_BINARY_DIR) + "/bin/ctte-board";
  o.boards.names = {"board-a", "board-b"};
  o.health.quarantine_after = 2;
  o.health.health_check_after_seconds = 0.2;
  o.boards.TEST_wrap = [f1 = std::move(faults_of_board1), f0 = std::move(faults_of_board0)](
                          lab::Board* inner, unsigned slot) {
    auto b = std::make_unique<lab::FaultInjectingBoard>(inner);
    for (const lab::Fault& f : slot == 1 ? f1 : f0) b->Inject(f);
    return std::unique_ptr<lab::Board>(std::move(b));
  };
  const std::string log = s.dir + "/soak.log";
  o.open_log = [log](const std::string&, int64_t) { return OpenLogFile(log, LogLevel::kDebug); };
  return s;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

lab::Fault DieOnRun(uint64_t nth, uint64_t times) {
  lab::Fault f;
  f.method = lab::BoardMethod::kRun;
  f.nth = nth;
  f.times = times;
  f.action = lab::FaultAction::kDie;
  return f;
}

TEST(SoakHealthTest, ABoardFailingKTimesIsQuarantinedItsRunMovesAndAHealthCheckReadmitsIt) {
  // Board b: its 2nd and 3rd run calls die (run and its retry: 2 in a row = quarantine), and the
  // first health check (call 4) too; the second health check (call 5) passes.
  HealthSetup s = TwoBoards("readmit", {DieOnRun(2, 3)});
  auto r = RunSoak(s.options, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->fatal.empty()) << r->fatal;
  EXPECT_EQ(r->campaign.done, 16u);
  EXPECT_EQ(r->campaign.green, 16u) << "the quarantined board's run went to the other board";
  ASSERT_EQ(r->health.size(), 2u);
  const BoardHealthReport& b = r->health[1];
  EXPECT_EQ(b.board, "board-b");
  EXPECT_EQ(b.quarantines, 1u);
  EXPECT_GE(b.health_checks, 1u);
  EXPECT_NE(b.reason.find("2 infra failure(s) in a row"), std::string::npos) << b.reason;
  EXPECT_EQ(r->health[0].quarantines, 0u);
  // The moved run keeps both failed attempts (on board b) and is green on board a.
  auto d = db::Database::Open(s.options.db_path);
  ASSERT_TRUE(d.ok());
  auto rows = (*d)->RunsOfCampaign(r->campaign_id);
  ASSERT_TRUE(rows.ok());
  uint64_t with_attempts = 0;
  for (const db::RunRow& row : *rows) {
    if (row.earlier_attempts > 0) {
      ++with_attempts;
      EXPECT_EQ(row.earlier_attempts, 2u);
      EXPECT_EQ(row.run.status, db::RunStatus::kGreen);
    }
  }
  EXPECT_EQ(with_attempts, 1u);
  const std::string log = ReadAll(s.dir + "/soak.log");
  EXPECT_NE(log.find("board-b: quarantined: 2 infra failure(s) in a row"), std::string::npos) << log;
  EXPECT_NE(log.find("goes to another board"), std::string::npos) << log;
  EXPECT_NE(log.find("board-a: run "), std::string::npos) << log;
  // Health checks 0.2 s apart: the first fails (call 4 dies), the second passes, long before
  // board a alone could finish 14 runs.
  EXPECT_EQ(b.health_checks, 2u);
  EXPECT_EQ(b.readmissions, 1u);
  EXPECT_FALSE(b.quarantined);
  EXPECT_TRUE(r->quarantined().empty());
  EXPECT_GT(r->boards[1].done, 1u) << "board b took runs again after its re-admission";
  EXPECT_NE(log.find("board-b: re-admitted after a passed health check"), std::string::npos) << log;
  fs::remove_all(s.dir);
}

TEST(SoakHealthTest, AHealthCheckThatKeepsFailingKeepsTheBoardQuarantinedAndItIsNamed) {
  HealthSetup s = TwoBoards("stays", {DieOnRun(1, 0)});  // every run of board b dies
  bool hook_called = false;
  s.options.health.before_quarantine = [&](const QuarantineRequest& q) {
    hook_called = q.board == "board-b" && q.consecutive == 2;
    return false;  // nothing to power-cycle here
  };
  auto r = RunSoak(s.options, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(hook_called);
  EXPECT_EQ(r->campaign.green, 16u);
  ASSERT_EQ(r->quarantined().size(), 1u);
  EXPECT_EQ(r->quarantined()[0].rfind("board-b (", 0), 0u) << r->quarantined()[0];
  EXPECT_EQ(r->health[1].readmissions, 0u);
  fs::remove_all(s.dir);
}

TEST(SoakHealthTest, ASoakWhoseBoardsAreAllQuarantinedStopsWithEveryFinishedRunStored) {
  // Board a works for its first 2 runs, then every run dies; board b dies from the start.
  HealthSetup s = TwoBoards("all", {DieOnRun(1, 0)}, {DieOnRun(3, 0)});
  auto r = RunSoak(s.options, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->fatal.find("every board is quarantined: "), std::string::npos) << r->fatal;
  EXPECT_NE(r->fatal.find("board-a ("), std::string::npos) << r->fatal;
  EXPECT_NE(r->fatal.find("board-b ("), std::string::npos) << r->fatal;
  EXPECT_LT(r->campaign.done, 16u);
  EXPECT_GE(r->campaign.green, 1u);
  auto d = db::Database::Open(s.options.db_path);
  ASSERT_TRUE(d.ok());
  auto rows = (*d)->RunsOfCampaign(r->campaign_id);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), r->counts.done) << "every finished run is stored, nothing more";
  for (const db::RunRow& row : *rows) EXPECT_NE(row.run.status, db::RunStatus::kPlanned);
  fs::remove_all(s.dir);
}

}  // namespace
}  // namespace ctte::runner
