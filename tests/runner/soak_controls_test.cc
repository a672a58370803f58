// Controls in a soak (runner/controls.h), end to end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/database.h"
#include "lab/board.h"
#include "lab/board_wrapper.h"
#include "runner/soak.h"
#include "tests/runner/soak_test_support.h"

namespace ctte::runner {
namespace {

using soak_testing::Cmd;
using soak_testing::RunLab;

// Controls (runner/controls.h): a soak runs them first, stores them apart from its draws, and a
// failed control makes the campaign UNSOUND (exit 4), whatever the draws show.
constexpr const char* kControlSpec = R"({
  "name": "soak-controls",
  "seed": "0x00c0ffee00c0ffee",
  "runs": 2,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 3000,
  "axes": {"workload": ["loop"]},
  "controls": [
    {"name": "clean", "image": "ntrace-slim", "expect_red": []},
    {"name": "silent-drop", "image": "mutant-silent-drop", "expect_red": ["loss_accounting"],
     "axes": {"overflow_regime": "saturating", "backpressure": "bursty:4-64", "mode": "btm",
              "workload": "sort", "window": "full", "interrupts": "none", "sync": "off"}}
  ]
})";

SoakOptions ControlOptions(const std::string& name, const std::string& spec) {
  const std::string dir =
      ::testing::TempDir() + "ctte_soak_controls_" + name + "_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/spec.json") << spec;
  SoakOptions o = soak_testing::BuildSoakOptions(dir + "/spec.json", dir + "/soak.db");
  o.boards.count = 2;
  return o;
}

TEST(SoakControlsTest, ControlsRunFirstAndAreStoredApartFromTheDraws) {
  SoakOptions o = ControlOptions("sound", kControlSpec);
  auto s = RunSoak(o, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Placement: each of the 2 boards runs the clean control and one expected red (the one red
  // control, dealt to board 0, runs again on board 1), and each result names its board.
  ASSERT_EQ(s->controls.size(), 4u);
  std::multiset<std::pair<std::string, std::string>> placed;
  for (const ControlResult& c : s->controls) {
    EXPECT_TRUE(c.passed) << c.name << ": " << c.reason;
    placed.insert({c.board, c.name});
  }
  EXPECT_EQ(placed, (std::multiset<std::pair<std::string, std::string>>{
                        {"board 0", "clean"}, {"board 0", "silent-drop"},
                        {"board 1", "clean"}, {"board 1", "silent-drop"}}));
  EXPECT_FALSE(s->unsound());
  EXPECT_EQ(s->campaign.done, 2u);  // the draws only
  EXPECT_EQ(s->campaign.green, 2u);
  auto d = db::Database::Open(o.db_path);
  ASSERT_TRUE(d.ok());
  auto red = (*d)->RedRuns("soak-controls");
  ASSERT_TRUE(red.ok());
  EXPECT_TRUE(red->empty()) << "a red mutant control is not a red draw";
  // A resume runs no control again.
  o.resume = "soak-controls";
  auto again = RunSoak(o, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->controls.size(), 4u);
  auto rows = (*d)->RunsOfCampaign(s->campaign_id);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 6u);
}

// A board that refuses its next `failures` deploys of image `image` (a transient lab failure).
class FlakyDeployBoard : public lab::BoardWrapper {
 public:
  FlakyDeployBoard(lab::Board* inner, std::string image, std::shared_ptr<int> failures)
      : BoardWrapper(inner), image_(std::move(image)), failures_(std::move(failures)) {}
  Result<lab::DeployReceipt> Deploy(const lab::DeployRequest& request) override {
    if (request.name == image_ && *failures_ > 0) {
      --*failures_;
      return Status::IOError("TEST: injected deploy failure of " + image_);
    }
    return BoardWrapper::Deploy(request);
  }

 private:
  std::string image_;
  std::shared_ptr<int> failures_;
};

// M1 of the 2026-12-02 review: an infra control proved nothing; it is not a gate that failed.
// A control whose deploy failed twice (infra after the one retry) makes the campaign UNSOUND;
// `--resume --retry-infra` runs it again in place (its infra attempt kept) and the campaign is
// sound. It used to stay UNSOUND for ever: --retry-infra skipped control indices.
TEST(SoakControlsTest, RetryInfraRerunsAnInfraControlInPlace) {
  SoakOptions o = ControlOptions("retry", kControlSpec);
  o.boards.count = 1;
  auto failures = std::make_shared<int>(2);
  o.boards.TEST_wrap = [failures](lab::Board* inner, unsigned) {
    return std::make_unique<FlakyDeployBoard>(inner, "mutant-silent-drop", failures);
  };
  auto first = RunSoak(o, nullptr);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->unsound());
  EXPECT_EQ(*failures, 0);
  o.resume = "soak-controls";
  o.retry_infra = true;
  auto again = RunSoak(o, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->requeued_infra, 1u);
  EXPECT_FALSE(again->unsound());
  for (const ControlResult& c : again->controls) EXPECT_TRUE(c.passed) << c.name << ": " << c.reason;
  auto d = db::Database::Open(o.db_path);
  ASSERT_TRUE(d.ok());
  auto rows = (*d)->RunsOfCampaign(again->campaign_id);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 4u);  // 2 draws, 2 controls: the control row completed in place
  size_t attempts = 0;
  for (const db::RunRow& r : *rows) attempts += (*d)->AttemptsOfRun(r.id)->size();
  EXPECT_EQ(attempts, 2u) << "the first session's failed attempt and its infra outcome";
}

TEST(SoakControlsTest, AJudgeThatAlwaysPassesMakesTheCampaignUnsound) {
  SoakOptions o = ControlOptions("broken", kControlSpec);
  o.TEST_verdict_override = [](std::vector<oracle::Verdict>* vs) {
    for (oracle::Verdict& v : *vs) {
      if (v.code == oracle::VerdictCode::kLossAccounting) v.outcome = oracle::Outcome::kPass;
    }
  };
  auto s = RunSoak(o, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->unsound());
  EXPECT_EQ(s->campaign.green, 2u) << "the draws are green, the campaign still unsound";
  bool found = false;
  for (const ControlResult& c : s->controls) {
    if (c.name != "silent-drop") continue;
    found = true;
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.reason, "expected red but not red: loss_accounting");
  }
  EXPECT_TRUE(found);
}

TEST(SoakControlsTest, AFailedControlExitsWithTheUnsoundCodeAndTheTableNamesIt) {
  std::string spec = kControlSpec;
  // A clean image cannot turn liveness red: that control fails.
  const std::string from = R"({"name": "clean", "image": "ntrace-slim", "expect_red": []})";
  spec.replace(spec.find(from), from.size(),
               R"({"name": "clean", "image": "ntrace-slim", "expect_red": ["liveness"]})");
  SoakOptions o = ControlOptions("cli", spec);
  Cmd c = RunLab("soak " + o.spec_path + " --boards 2 --db " + o.db_path + " --report-dir " +
                 std::filesystem::path(o.db_path).parent_path().string() + "/reports");
  EXPECT_EQ(c.exit_code, 4) << c.out;
  EXPECT_NE(c.out.find("UNSOUND"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("expected red but not red: liveness"), std::string::npos) << c.out;
  Cmd h = RunLab("history --db " + o.db_path);
  EXPECT_NE(h.out.find("UNSOUND"), std::string::npos) << h.out;
  const std::string junit = std::filesystem::path(o.db_path).parent_path().string() +
                            "/reports/soak-controls-1.junit.xml";
  std::ifstream in(junit);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("soak-controls.controls"), std::string::npos) << junit;
  EXPECT_NE(text.str().find("[UNSOUND campaign]"), std::string::npos) << junit;
}

}  // namespace
}  // namespace ctte::runner
