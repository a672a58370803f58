// Issue #11, items 3 and 5: a soak's failed attempts are stored (run_attempts) and shown by
// `history`, `show RUN` and the reports; `soak --resume C --retry-infra` runs a campaign's infra
// runs again in place and keeps the failed attempt in the run's history.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db/database.h"
#include "runner/soak.h"
#include "tests/runner/soak_test_support.h"
#include "tests/lab/fault_injecting_board.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSpec = R"({
  "name": "attempts",
  "seed": 7,
  "runs": 2,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 2000,
  "axes": {"workload": ["loop"]}
})";

using soak_testing::Cmd;
using soak_testing::RunLab;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SoakOptions Options(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "ctte_attempts_" + name + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/spec.json") << kSpec;
  SoakOptions o = soak_testing::BuildSoakOptions(dir + "/spec.json", dir + "/soak.db");
  return o;
}

std::string Dir(const SoakOptions& o) { return fs::path(o.db_path).parent_path().string(); }

TEST(SoakAttemptsTest, OneBoardDeathLeavesATraceInSummaryHistoryShowAndReports) {
  SoakOptions o = Options("death");
  // The first Run call of board slot 0 dies as a killed board child would; the wrapper is made
  // once per slot and outlives the respawn, so the retry succeeds.
  o.boards.TEST_wrap = [](lab::Board* inner, unsigned) {
    auto b = std::make_unique<lab::FaultInjectingBoard>(inner);
    b->Inject({.method = lab::BoardMethod::kRun, .nth = 1, .action = lab::FaultAction::kDie});
    return b;
  };
  auto s = RunSoak(o, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->campaign.green, 2u);
  EXPECT_EQ(s->counts.deaths, 1u);
  EXPECT_EQ(s->counts.retried, 1u);

  // The database: the retried run holds its failed attempt.
  int64_t retried_id = 0;
  {
    auto d = db::Database::OpenReadOnly(o.db_path);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    auto rows = (*d)->RunsOfCampaign(s->campaign_id);
    ASSERT_TRUE(rows.ok());
    int with_attempts = 0;
    for (const db::RunRow& r : *rows) {
      auto a = (*d)->AttemptsOfRun(r.id);
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      if (a->empty()) continue;
      ++with_attempts;
      retried_id = r.id;
      ASSERT_EQ(a->size(), 1u);
      EXPECT_EQ((*a)[0].status, db::RunStatus::kInfra);
      EXPECT_EQ((*a)[0].infra_cause, "board_died");
      EXPECT_TRUE((*a)[0].respawned);
      EXPECT_NE((*a)[0].reason.find("injected"), std::string::npos) << (*a)[0].reason;
      EXPECT_EQ(r.run.status, db::RunStatus::kGreen);
    }
    EXPECT_EQ(with_attempts, 1);
    auto c = (*d)->Campaigns("attempts");
    ASSERT_TRUE(c.ok() && c->size() == 1u);
    EXPECT_EQ(c->front().retried, 1u);
  }
  ASSERT_GT(retried_id, 0);

  const Cmd history = RunLab("history --db " + o.db_path + " --json");
  ASSERT_EQ(history.exit_code, 0) << history.out;
  EXPECT_NE(history.out.find("\"retried\": 1"), std::string::npos) << history.out;
  EXPECT_NE(history.out.find("\"board_deaths\": 1"), std::string::npos) << history.out;
  const Cmd history_text = RunLab("history --db " + o.db_path);
  EXPECT_NE(history_text.out.find("Board trouble"), std::string::npos) << history_text.out;
  EXPECT_EQ(history_text.out.find("Board trouble (deaths = died or hung; retries = runs tried "
                                  "again after an attempt here)\n  (none)"),
            std::string::npos)
      << history_text.out;

  const Cmd show = RunLab("show " + std::to_string(retried_id) + " --db " + o.db_path);
  ASSERT_EQ(show.exit_code, 0) << show.out;
  EXPECT_NE(show.out.find("attempt 1: infra board_died"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("(board death), board respawned"), std::string::npos) << show.out;
  const Cmd show_json =
      RunLab("show " + std::to_string(retried_id) + " --db " + o.db_path + " --json");
  EXPECT_NE(show_json.out.find("\"board_death\": true"), std::string::npos) << show_json.out;

  const std::string html = Dir(o) + "/r.html";
  const Cmd report = RunLab("report attempts --db " + o.db_path + " --html " + html);
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_NE(ReadAll(html).find("retried-run"), std::string::npos);
  fs::remove_all(Dir(o));
}

TEST(SoakAttemptsTest, RetryInfraRerunsAWrongImageDirCampaignInPlace) {
  SoakOptions o = Options("retry");
  const std::string right_images = o.execute.image_dir;
  o.execute.image_dir = Dir(o) + "/no-images";  // the typo: every run is infra (prepare)
  fs::create_directories(o.execute.image_dir);
  auto first = RunSoak(o, nullptr);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->campaign.infra, 2u);

  std::map<uint64_t, db::RunRow> before;
  {
    auto d = db::Database::OpenReadOnly(o.db_path);
    ASSERT_TRUE(d.ok());
    auto rows = (*d)->RunsOfCampaign(first->campaign_id);
    ASSERT_TRUE(rows.ok());
    for (const db::RunRow& r : *rows) before[r.run.index] = r;
  }
  ASSERT_EQ(before.size(), 2u);

  // `show` of an infra run points at --retry-infra, not at a replay that would be refused.
  const Cmd show_infra =
      RunLab("show " + std::to_string(before.begin()->second.id) + " --db " + o.db_path);
  EXPECT_NE(show_infra.out.find("--retry-infra"), std::string::npos) << show_infra.out;
  EXPECT_EQ(show_infra.out.find("ctte-lab replay"), std::string::npos) << show_infra.out;

  // A plain resume skips infra runs: nothing changes (what --retry-infra is for).
  o.execute.image_dir = right_images;
  o.resume = std::to_string(first->campaign_id);
  auto plain = RunSoak(o, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->counts.done, 0u);
  EXPECT_EQ(plain->campaign.infra, 2u);

  o.retry_infra = true;
  auto retried = RunSoak(o, nullptr);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->requeued_infra, 2u);
  EXPECT_EQ(retried->counts.done, 2u);
  EXPECT_EQ(retried->campaign.green, 2u);
  EXPECT_EQ(retried->campaign.infra, 0u);
  EXPECT_EQ(retried->campaign_id, first->campaign_id);

  auto d = db::Database::OpenReadOnly(o.db_path);
  ASSERT_TRUE(d.ok());
  auto rows = (*d)->RunsOfCampaign(first->campaign_id);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);  // in place: no new rows
  for (const db::RunRow& r : *rows) {
    const db::RunRow& old = before.at(r.run.index);
    EXPECT_EQ(r.id, old.id);
    EXPECT_EQ(r.run.seed, old.run.seed);
    EXPECT_EQ(r.run.config_json, old.run.config_json);
    EXPECT_EQ(r.run.status, db::RunStatus::kGreen);
    auto a = (*d)->AttemptsOfRun(r.id);
    ASSERT_TRUE(a.ok());
    ASSERT_EQ(a->size(), 1u) << "the failed attempt is kept";
    EXPECT_EQ((*a)[0].status, db::RunStatus::kInfra);
    EXPECT_EQ((*a)[0].infra_cause, "prepare");
    EXPECT_NE((*a)[0].reason.find("no-images"), std::string::npos) << (*a)[0].reason;
  }
  const Cmd show = RunLab("show " + std::to_string(rows->front().id) + " --db " + o.db_path);
  EXPECT_NE(show.out.find("attempt 1: infra prepare"), std::string::npos) << show.out;

  // The CLI: --retry-infra needs --resume.
  const Cmd bare = RunLab("soak " + o.spec_path + " --db " + Dir(o) + "/other.db --retry-infra");
  EXPECT_EQ(bare.exit_code, 2) << bare.out;
  EXPECT_NE(bare.out.find("--retry-infra needs --resume"), std::string::npos) << bare.out;
  fs::remove_all(Dir(o));
}

// Issue #11 item 5: slot folders of boards killed with their soak (SIGKILL of the process group,
// as a cancelled CI job does) are removed by the next soak's boards (lab::RemoveStaleSlotDirs).
std::vector<std::string> SlotDirs(const std::string& tmp) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp, ec)) {
    if (e.path().filename().string().starts_with("ctte-board-")) out.push_back(e.path().string());
  }
  return out;
}

TEST(SoakCleanupTest, KilledSoakLeavesSlotFoldersTheNextSoakRemoves) {
  SoakOptions o = Options("cleanup");
  const std::string tmp = Dir(o) + "/tmp";
  fs::create_directories(tmp);
  const std::string soak = std::string(CTTE_LAB_PATH) + " soak " + o.spec_path +
                           " --runs 200 --boards 2 --report-dir '' --image-dir " +
                           o.execute.image_dir + " --workload-dir " + o.execute.workload_dir;
  const pid_t runner = ::fork();
  if (runner == 0) {
    ::setpgid(0, 0);
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const std::string cmd = "exec " + soak + " --db " + Dir(o) + "/killed.db >/dev/null 2>&1";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(runner, 0);
  ::setpgid(runner, runner);
  // Wait for both boards' slot folders, then kill the boards and the runner at once.
  std::vector<std::string> leaked;
  for (int i = 0; i < 600 && (leaked = SlotDirs(tmp)).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(leaked.size(), 2u) << "the soak never started its boards";
  for (const std::string& d : leaked) {  // "ctte-board-<pid>-XXXXXX"
    const std::string rest = fs::path(d).filename().string().substr(11);
    ::kill(static_cast<pid_t>(std::stol(rest.substr(0, rest.find('-')))), SIGKILL);
  }
  ::kill(-runner, SIGKILL);
  int status = 0;
  ::waitpid(runner, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (const std::string& d : leaked) EXPECT_TRUE(fs::exists(d)) << d << ": not leaked?";

  // The next soak (its boards) removes them, and its own folders go with its boards.
  const std::string env_soak = "TMPDIR=" + tmp + " " + std::string(CTTE_LAB_PATH);
  FILE* p = popen((env_soak + " soak " + o.spec_path + " --runs 1 --report-dir '' --db " +
                   Dir(o) + "/next2.db --image-dir " + o.execute.image_dir +
                   " --workload-dir " + o.execute.workload_dir + " 2>&1")
                      .c_str(),
                  "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  EXPECT_EQ(WEXITSTATUS(pclose(p)), 0) << out;
  for (const std::string& d : leaked) EXPECT_FALSE(fs::exists(d)) << d << " still there";
  EXPECT_TRUE(SlotDirs(tmp).empty());
  fs::remove_all(Dir(o));
}

}  // namespace
}  // namespace ctte::runner
