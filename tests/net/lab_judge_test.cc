// A broken judge on the lab (issue #26): run by tests/net/net_lab_commands_test.sh, which starts
// the agents and names their inventory in CTTE_LAB_JSON (not a ctest of its own). A soak through
// the inventory's boards (runner::RunSoak in this process, boards from lab/net/inventory.h as
// `soak --lab` opens them) whose judge never fails loss_accounting (SoakOptions::
// TEST_verdict_override): the silent-drop control, placed on every board, fails on each of them,
// and the campaign is UNSOUND. The script then checks the agents logged the control deploys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "lab/net/inventory.h"
#include "runner/soak.h"

namespace ctte::runner {
namespace {

TEST(LabJudgeTest, AJudgeThatNeverFailsLossAccountingMakesALabSoakUnsound) {
  const char* inventory = std::getenv("CTTE_LAB_JSON");
  ASSERT_NE(inventory, nullptr) << "run by net_lab_commands_test.sh (CTTE_LAB_JSON)";
  Result<lab::net::Inventory> inv = lab::net::LoadInventory(inventory);
  ASSERT_TRUE(inv.ok()) << inv.status().ToString();
  const std::string dir = std::filesystem::path(inventory).parent_path().string() + "/judge";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/spec.json") << R"({"name": "lab-judge", "seed": "0x1ab", "runs": 2,
    "images": ["ntrace-slim"], "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
    "horizon_retirements": 3000, "axes": {"workload": ["loop"]},
    "controls": [
      {"name": "clean", "image": "ntrace-slim", "expect_red": []},
      {"name": "silent-drop", "image": "mutant-silent-drop", "expect_red": ["loss_accounting"],
       "axes": {"overflow_regime": "saturating", "backpressure": "bursty:4-64", "mode": "btm",
                "workload": "sort", "window": "full", "interrupts": "none", "sync": "off"}}]})";
  SoakOptions o;
  o.spec_path = dir + "/spec.json";
  o.db_path = dir + "/judge.db";
  o.artifacts_dir = "none";
  o.execute.image_dir = std::string(CTTE_BINARY_DIR) + "/images";
  o.execute.workload_dir = std::string(CTTE_BINARY_DIR) + "/workloads";
  for (const lab::net::InventoryBoard& b : inv->boards) o.boards.names.push_back(b.name);
  o.boards.open = [boards = inv->boards, child = o.boards.child](unsigned slot) {
    return lab::net::OpenInventoryBoard(boards.at(slot), child);
  };
  o.TEST_verdict_override = [](std::vector<oracle::Verdict>* vs) {
    for (oracle::Verdict& v : *vs) {
      if (v.code == oracle::VerdictCode::kLossAccounting) v.outcome = oracle::Outcome::kPass;
    }
  };
  Result<SoakSummary> s = RunSoak(o, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->unsound());
  std::set<std::string> failed_on;
  for (const ControlResult& c : s->controls) {
    if (c.name == "clean") {
      EXPECT_TRUE(c.passed) << c.board << ": " << c.reason;
    } else {
      EXPECT_FALSE(c.passed) << c.board;
      EXPECT_EQ(c.reason, "expected red but not red: loss_accounting");
      failed_on.insert(c.board);
    }
  }
  EXPECT_EQ(failed_on, std::set<std::string>(o.boards.names.begin(), o.boards.names.end()))
      << "the broken judge is caught on every board";
  std::printf("lab-judge: UNSOUND; silent-drop failed on %zu boards\n", failed_on.size());
}

}  // namespace
}  // namespace ctte::runner
