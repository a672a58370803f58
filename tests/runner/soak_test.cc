// End-to-end tests of `ctte-lab soak`, `replay` and `show` on simulated boards (child processes):
// kill -9 and resume gives exactly the uninterrupted campaign; stored runs replay bit-identically;
// a replay without the run's image is refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db/database.h"
#include "lab/board.h"
#include "runner/soak.h"
#include "tests/runner/soak_test_support.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;

using soak_testing::Cmd;
using soak_testing::kTinySpec;
using soak_testing::RunLab;

class SoakTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "ctte_soak_test_" + std::to_string(getpid()));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    spec_ = new std::string(*dir_ + "/soak-tiny.json");
    std::ofstream(*spec_) << kTinySpec;
    // The uninterrupted reference campaign, on two boards, every stream kept.
    reference_db_ = new std::string(*dir_ + "/reference.db");
    Cmd c = RunLab("soak " + *spec_ + " --boards 2 --db " + *reference_db_ +
                   " --store-streams all --report-dir " + *dir_ + "/reports");
    reference_exit_ = c.exit_code;
    reference_out_ = new std::string(c.out);
  }
  static void TearDownTestSuite() { fs::remove_all(*dir_); }

  static std::map<uint64_t, db::RunRow> FinishedRuns(const std::string& path) {
    std::map<uint64_t, db::RunRow> runs;
    auto d = db::Database::Open(path);
    if (!d.ok()) return runs;
    auto campaigns = (*d)->Campaigns("soak-tiny");
    if (!campaigns.ok() || campaigns->empty()) return runs;
    auto rows = (*d)->RunsOfCampaign(campaigns->back().id);
    if (!rows.ok()) return runs;
    for (db::RunRow& r : *rows) {
      if (!r.run.replay_of && r.run.status != db::RunStatus::kPlanned) runs[r.run.index] = r;
    }
    return runs;
  }

  static std::string* dir_;
  static std::string* spec_;
  static std::string* reference_db_;
  static std::string* reference_out_;
  static int reference_exit_;
};

std::string* SoakTest::dir_ = nullptr;
std::string* SoakTest::spec_ = nullptr;
std::string* SoakTest::reference_db_ = nullptr;
std::string* SoakTest::reference_out_ = nullptr;
int SoakTest::reference_exit_ = -1;

TEST_F(SoakTest, CampaignStoresEveryRunWithVerdictsAndWritesReports) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  auto runs = FinishedRuns(*reference_db_);
  ASSERT_EQ(runs.size(), 12u) << *reference_out_;
  auto d = db::Database::Open(*reference_db_);
  ASSERT_TRUE(d.ok());
  bool saw_twin = false;
  for (const auto& [index, row] : runs) {
    EXPECT_EQ(row.run.status, db::RunStatus::kGreen) << "run " << index;
    EXPECT_EQ(row.run.stream_sha256.size(), 64u);
    EXPECT_EQ(row.run.image_sha256.size(), 64u);
    EXPECT_TRUE(row.run.fabric.read_back_hz.has_value());
    auto verdicts = (*d)->VerdictsOfRun(row.id);
    ASSERT_TRUE(verdicts.ok());
    EXPECT_EQ(verdicts->size(), 8u) << "run " << index;
    if (row.run.config_json.find("\"twin_of\":null") == std::string::npos) {
      saw_twin = true;
      // A twin repeats its original exactly: same stream, and the determinism verdict passed.
      ASSERT_TRUE(runs.count(index - 1));
      EXPECT_EQ(row.run.stream_sha256, runs.at(index - 1).run.stream_sha256);
      for (const db::VerdictRecord& v : *verdicts) {
        if (v.verdict == "determinism") {
          EXPECT_EQ(v.outcome, db::Outcome::kPass) << v.evidence;
        }
      }
    }
  }
  EXPECT_TRUE(saw_twin) << "the tiny spec should draw at least one determinism twin";
  EXPECT_TRUE(fs::exists(*dir_ + "/reports/soak-tiny-1.html")) << *reference_out_;
  EXPECT_TRUE(fs::exists(*dir_ + "/reports/soak-tiny-1.junit.xml"));
  EXPECT_TRUE(fs::exists(*dir_ + "/reports/soak-tiny-1.csv"));
  EXPECT_NE(reference_out_->find("database: " + *reference_db_), std::string::npos);
}

TEST_F(SoakTest, SeedOverrideMakesOneCampaignPerNightInOneDatabase) {
  const std::string db = *dir_ + "/nights.db";
  Cmd night1 = RunLab("soak " + *spec_ + " --runs 2 --seed 0x1 --db " + db + " --report-dir " +
                      *dir_ + "/nights");
  ASSERT_EQ(night1.exit_code, 0) << night1.out;
  Cmd night2 = RunLab("soak " + *spec_ + " --runs 2 --seed 0x2 --db " + db + " --report-dir " +
                      *dir_ + "/nights");
  ASSERT_EQ(night2.exit_code, 0) << night2.out;
  // The same seed again is the same campaign: refused without --resume.
  Cmd again = RunLab("soak " + *spec_ + " --runs 2 --seed 0x2 --db " + db);
  EXPECT_EQ(again.exit_code, 2) << again.out;
  EXPECT_NE(again.out.find("--resume"), std::string::npos) << again.out;
  // Resuming a seeded campaign needs the same --seed (else the effective spec differs).
  Cmd resume = RunLab("soak " + *spec_ + " --resume 1 --db " + db);
  EXPECT_EQ(resume.exit_code, 2) << resume.out;
  EXPECT_NE(resume.out.find("--seed"), std::string::npos) << resume.out;

  auto d = db::Database::Open(db);
  ASSERT_TRUE(d.ok());
  auto campaigns = (*d)->Campaigns("soak-tiny");
  ASSERT_TRUE(campaigns.ok());
  ASSERT_EQ(campaigns->size(), 2u);
  auto a = (*d)->RunsOfCampaign((*campaigns)[0].id);
  auto b = (*d)->RunsOfCampaign((*campaigns)[1].id);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 2u);
  ASSERT_EQ(b->size(), 2u);
  EXPECT_NE((*a)[0].run.seed, (*b)[0].run.seed) << "another campaign seed draws other runs";
}

TEST_F(SoakTest, KilledSoakResumesToExactlyTheUninterruptedCampaign) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  const std::string db_path = *dir_ + "/killed.db";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so the boards die with it below
    const std::string log = *dir_ + "/killed.log";
    freopen(log.c_str(), "w", stderr);
    freopen(log.c_str(), "a", stdout);
    execl(CTTE_LAB_PATH, CTTE_LAB_PATH, "soak", spec_->c_str(), "--boards", "2", "--db",
          db_path.c_str(), "--report-dir", "", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the first committed run, then kill -9 (the boards too, as a crash would).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  size_t committed = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(db_path)) committed = FinishedRuns(db_path).size();
    if (committed >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_GE(committed, 1u) << "no run was committed within 120 s";
  auto partial = FinishedRuns(db_path);
  ASSERT_LT(partial.size(), 12u) << "the soak finished before it could be killed";

  // No half run: every stored run has its verdicts (judged) or is infra/invalid.
  {
    auto d = db::Database::Open(db_path);
    ASSERT_TRUE(d.ok());
    for (const auto& [index, row] : partial) {
      auto verdicts = (*d)->VerdictsOfRun(row.id);
      ASSERT_TRUE(verdicts.ok());
      EXPECT_EQ(verdicts->size(), 8u) << "run " << index << " stored without its verdicts";
    }
  }

  Cmd resumed = RunLab("soak " + *spec_ + " --boards 2 --db " + db_path +
                       " --resume soak-tiny --report-dir ''");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  auto runs = FinishedRuns(db_path);
  auto reference = FinishedRuns(*reference_db_);
  ASSERT_EQ(runs.size(), reference.size()) << resumed.out;
  for (const auto& [index, ref] : reference) {
    ASSERT_TRUE(runs.count(index)) << "run " << index << " missing after resume";
    const db::RunRow& r = runs.at(index);
    EXPECT_EQ(r.run.config_json, ref.run.config_json) << "run " << index;
    EXPECT_EQ(r.run.seed, ref.run.seed);
    EXPECT_EQ(r.run.stream_sha256, ref.run.stream_sha256) << "run " << index;
    EXPECT_EQ(r.run.status, ref.run.status) << "run " << index;
  }
  // Resuming a finished campaign has nothing left to do.
  Cmd again = RunLab("soak " + *spec_ + " --db " + db_path + " --resume soak-tiny --report-dir ''");
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("0 runs this session"), std::string::npos) << again.out;
  // A new soak of the same spec into the same database is refused with the way out.
  Cmd twice = RunLab("soak " + *spec_ + " --db " + db_path + " --report-dir ''");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.out.find("--resume"), std::string::npos) << twice.out;
}

// Issue 11: SIGINT (once: the running runs finish; twice: they are abandoned) ends the soak with
// its summary, its reports and the exact resume command, exit 130, no board left behind; the
// resumed campaign equals the uninterrupted one.
void InterruptResumeCheck(const std::string& dir, const std::string& spec,
                          const std::string& reference_db, int signals) {
  const std::string tag = "int" + std::to_string(signals);
  const std::string db_path = dir + "/" + tag + ".db";
  const std::string reports = dir + "/" + tag + "-reports";
  const std::string log = dir + "/" + tag + ".log";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);  // its own group: after it exits, no member (board) may be left
    freopen(log.c_str(), "w", stderr);
    freopen(log.c_str(), "a", stdout);
    execl(CTTE_LAB_PATH, CTTE_LAB_PATH, "soak", spec.c_str(), "--boards", "2", "--db",
          db_path.c_str(), "--report-dir", reports.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  size_t committed = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(db_path)) committed = SoakTest::FinishedRuns(db_path).size();
    if (committed >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (int i = 0; i < signals; ++i) {
    kill(pid, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string out = ss.str();
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 130) << out;
  EXPECT_EQ(kill(-pid, 0), -1) << "a board process of the soak outlived it";
  EXPECT_NE(out.find("campaign: "), std::string::npos) << out;
  EXPECT_NE(out.find("interrupted by SIGINT"), std::string::npos) << out;
  if (signals >= 2) {
    EXPECT_NE(out.find("abandoning the running runs"), std::string::npos) << out;
  }
  for (const char* ext : {".html", ".junit.xml", ".csv"}) {
    EXPECT_TRUE(fs::exists(reports + "/soak-tiny-1" + ext)) << ext << "\n" << out;
  }
  auto partial = SoakTest::FinishedRuns(db_path);
  ASSERT_LT(partial.size(), 12u) << "the soak finished before it was interrupted";
  {
    auto d = db::Database::Open(db_path);
    ASSERT_TRUE(d.ok());
    for (const auto& [index, row] : partial) {
      EXPECT_EQ(row.run.status, db::RunStatus::kGreen) << "run " << index << ": " << out;
      auto verdicts = (*d)->VerdictsOfRun(row.id);
      ASSERT_TRUE(verdicts.ok());
      EXPECT_EQ(verdicts->size(), 8u) << "run " << index << " stored without its verdicts";
    }
  }
  // The printed resume command, as printed, continues the campaign.
  const std::string key = "continue with:\n  ctte-lab ";
  const size_t at = out.find(key);
  ASSERT_NE(at, std::string::npos) << out;
  const std::string args = out.substr(at + key.size(), out.find('\n', at + key.size()) -
                                                           at - key.size());
  EXPECT_NE(args.find("--resume 1"), std::string::npos) << args;
  Cmd resumed = RunLab(args);
  ASSERT_EQ(resumed.exit_code, 0) << args << "\n" << resumed.out;
  auto runs = SoakTest::FinishedRuns(db_path);
  auto reference = SoakTest::FinishedRuns(reference_db);
  ASSERT_EQ(runs.size(), reference.size()) << resumed.out;
  for (const auto& [index, ref] : reference) {
    ASSERT_TRUE(runs.count(index)) << "run " << index << " missing after resume";
    const db::RunRow& r = runs.at(index);
    EXPECT_EQ(r.run.config_json, ref.run.config_json) << "run " << index;
    EXPECT_EQ(r.run.stream_sha256, ref.run.stream_sha256) << "run " << index;
    EXPECT_EQ(r.run.status, ref.run.status) << "run " << index;
  }
}

TEST_F(SoakTest, SigintFinishesRunningRunsWritesReportsAndResumesToTheSameCampaign) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  InterruptResumeCheck(*dir_, *spec_, *reference_db_, 1);
}

TEST_F(SoakTest, SecondSigintAbandonsRunningRunsWithoutAHalfRun) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  InterruptResumeCheck(*dir_, *spec_, *reference_db_, 2);
}

TEST_F(SoakTest, StoredRunsReplayBitIdentically) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  auto runs = FinishedRuns(*reference_db_);
  ASSERT_FALSE(runs.empty());
  // Every stored run, twins included (a twin's replay runs its original's plan too).
  std::vector<int64_t> ids;
  for (const auto& [index, row] : runs) ids.push_back(row.id);
  for (int64_t id : ids) {
    Cmd c = RunLab("replay " + std::to_string(id) + " --db " + *reference_db_);
    EXPECT_EQ(c.exit_code, 0) << c.out;
    EXPECT_NE(c.out.find("stream: bit-identical"), std::string::npos) << c.out;
  }
  auto d = db::Database::Open(*reference_db_);
  ASSERT_TRUE(d.ok());
  auto all = (*d)->RunsOfCampaign(runs.begin()->second.run.campaign_id);
  ASSERT_TRUE(all.ok());
  size_t replays = 0;
  for (const db::RunRow& r : *all) replays += r.run.replay_of.has_value() ? 1 : 0;
  EXPECT_GE(replays, ids.size());

  Cmd show = RunLab("show " + std::to_string(ids[0]) + " --db " + *reference_db_);
  EXPECT_EQ(show.exit_code, 0) << show.out;
  EXPECT_NE(show.out.find("replay:  ctte-lab replay " + std::to_string(ids[0])),
            std::string::npos) << show.out;
  EXPECT_NE(show.out.find("decode_integrity"), std::string::npos) << show.out;
}

TEST_F(SoakTest, ReplayWithoutTheRunsImageIsRefused_bad) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  auto runs = FinishedRuns(*reference_db_);
  ASSERT_FALSE(runs.empty());
  // An image directory whose ntrace-slim manifest names another SHA-256.
  const std::string images = *dir_ + "/other-images";
  fs::create_directories(images);
  const std::string src = std::string(CTTE_BINARY_DIR) + "/images/ntrace-slim.manifest.json";
  std::ifstream in(src);
  ASSERT_TRUE(in) << src;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string sha = runs.begin()->second.run.image_sha256;
  const size_t at = text.find(sha);
  ASSERT_NE(at, std::string::npos) << "manifest does not name the stored sha256";
  text.replace(at, sha.size(), std::string(64, '0'));
  std::ofstream(images + "/ntrace-slim.manifest.json") << text;
  for (const auto& e : fs::directory_iterator(std::string(CTTE_BINARY_DIR) + "/images")) {
    if (e.path().extension() != ".json") {
      fs::create_symlink(e.path(), images + "/" + e.path().filename().string());
    }
  }
  // Without the artifact store too (it would supply the run's image: workloads_test).
  Cmd c = RunLab("replay " + std::to_string(runs.begin()->second.id) + " --db " +
                 *reference_db_ + " --image-dir " + images + " --artifacts none");
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("is not available"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find(sha), std::string::npos) << c.out;
}

// Issue 11: a replay that could not run (modified image file, unusable --waves path) says so,
// exits 2 and stores nothing; it never reads as "stream: differs".
TEST_F(SoakTest, ReplayThatCouldNotRunIsNamedAndNotRecorded_bad) {
  ASSERT_EQ(reference_exit_, 0) << *reference_out_;
  auto runs = FinishedRuns(*reference_db_);
  ASSERT_FALSE(runs.empty());
  const int64_t id = runs.begin()->second.id;
  const auto replay_rows = [&] {
    auto d = db::Database::Open(*reference_db_);
    size_t n = 0;
    if (!d.ok()) return n;
    auto all = (*d)->RunsOfCampaign(runs.begin()->second.run.campaign_id);
    if (!all.ok()) return n;
    for (const db::RunRow& r : *all) n += r.run.replay_of.has_value() ? 1 : 0;
    return n;
  };
  const size_t before = replay_rows();
  // The same manifest, but the image file on disk was modified after it was written.
  const std::string images = *dir_ + "/modified-images";
  fs::create_directories(images);
  for (const auto& e : fs::directory_iterator(std::string(CTTE_BINARY_DIR) + "/images")) {
    fs::copy_file(e.path(), images + "/" + e.path().filename().string(),
                  fs::copy_options::overwrite_existing);
  }
  std::ofstream(images + "/ntrace-slim.so", std::ios::app) << "x";
  Cmd modified = RunLab("replay " + std::to_string(id) + " --db " + *reference_db_ +
                        " --image-dir " + images);
  EXPECT_EQ(modified.exit_code, 2) << modified.out;
  EXPECT_NE(modified.out.find("could not replay (infra, deploy)"), std::string::npos)
      << modified.out;
  EXPECT_EQ(modified.out.find("stream: differs"), std::string::npos) << modified.out;
  Cmd waves = RunLab("replay " + std::to_string(id) + " --db " + *reference_db_ +
                     " --waves " + *dir_ + "/no-such-folder/run.fst");
  EXPECT_EQ(waves.exit_code, 2) << waves.out;
  EXPECT_NE(waves.out.find("--waves"), std::string::npos) << waves.out;
  EXPECT_EQ(replay_rows(), before) << "a replay that could not run was recorded";
}

}  // namespace
}  // namespace ctte::runner
