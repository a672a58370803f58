// The campaign's capture ring end to end (`ctte-lab soak`, `replay` on board children):
// $.capture.ring_bytes reaches every run's board, a replay asks for the ring its campaign asked
// for (not the default), and a ring above what the board reports is refused before any run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "db/database.h"
#include "lab/board.h"
#include "tests/runner/soak_test_support.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;
using soak_testing::Cmd;
using soak_testing::RunLab;

// Four short runs; every stream is far longer than 64 bytes.
std::string RingSpec(uint64_t ring_bytes) {
  return R"({
  "name": "soak-ring",
  "seed": "0x00c0ffee00c0ffee",
  "runs": 4,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "capture": {"ring_bytes": )" +
         std::to_string(ring_bytes) + R"(},
  "horizon_retirements": 3000,
  "axes": {"workload": ["loop", "calls"], "mode": ["htm", "btm"]}
})";
}

class SoakRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "ctte_soak_ring_" + std::to_string(getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Cmd Soak(uint64_t ring_bytes, const std::string& db) {
    const std::string spec = dir_ + "/ring.json";
    std::ofstream(spec) << RingSpec(ring_bytes);
    return RunLab("soak " + spec + " --boards 2 --db " + db + " --report-dir ''");
  }
  std::string dir_;
};

// A ring too small for the streams: every run is invalid with the wrap evidence, and its replay
// (which must ask for the campaign's 64 bytes, not the 1 MiB default) wraps the same way and is
// bit-identical. With the default ring the replay would be green and differ.
TEST_F(SoakRingTest, CampaignRingReachesEveryRunAndItsReplay) {
  const std::string db_path = dir_ + "/small.db";
  Cmd c = Soak(64, db_path);
  EXPECT_EQ(c.exit_code, 3) << c.out;  // invalid runs only
  EXPECT_NE(c.out.find("4 runs: 0 green, 0 red, 4 invalid, 0 infra"), std::string::npos) << c.out;
  auto d = db::Database::Open(db_path);
  ASSERT_TRUE(d.ok());
  auto campaigns = (*d)->Campaigns("soak-ring");
  ASSERT_TRUE(campaigns.ok() && !campaigns->empty());
  auto rows = (*d)->RunsOfCampaign(campaigns->back().id);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  for (const db::RunRow& r : *rows) {
    EXPECT_EQ(r.run.status, db::RunStatus::kInvalid);
    EXPECT_EQ(r.run.stream_size.value_or(0), 64u);
    EXPECT_NE(r.run.metrics_json.find("capture ring wrapped: "), std::string::npos)
        << r.run.metrics_json;
    EXPECT_NE(r.run.metrics_json.find("ring holds 64\""), std::string::npos) << r.run.metrics_json;
  }
  const int64_t id = rows->front().id;
  d->reset();
  Cmd replay = RunLab("replay " + std::to_string(id) + " --db " + db_path);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_NE(replay.out.find("stream: bit-identical"), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("invalid"), std::string::npos) << replay.out;

  // The same campaign with a ring that holds its streams: all green.
  Cmd big = Soak(lab::kDefaultRingBytes * 2, dir_ + "/big.db");
  EXPECT_EQ(big.exit_code, 0) << big.out;
  EXPECT_NE(big.out.find("4 runs: 4 green, 0 red, 0 invalid, 0 infra"), std::string::npos)
      << big.out;
}

TEST_F(SoakRingTest, RingAboveTheBoardsCapacityIsRefusedBeforeAnyRun_bad) {
  const std::string db_path = dir_ + "/huge.db";
  const uint64_t asked = lab::kSimMaxRingBytes + 1;
  Cmd c = Soak(asked, db_path);
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("holds a capture ring of at most " + std::to_string(lab::kSimMaxRingBytes) +
                       " bytes; the campaign ($.capture.ring_bytes) asks for " +
                       std::to_string(asked) + " bytes"),
            std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("(remote:sim)"), std::string::npos) << c.out;  // names the board
  auto d = db::Database::Open(db_path);
  ASSERT_TRUE(d.ok());
  auto campaigns = (*d)->Campaigns("soak-ring");
  ASSERT_TRUE(campaigns.ok());
  for (const auto& camp : *campaigns) {
    auto rows = (*d)->RunsOfCampaign(camp.id);
    ASSERT_TRUE(rows.ok());
    for (const db::RunRow& r : *rows) {
      EXPECT_EQ(r.run.status, db::RunStatus::kPlanned) << "run " << r.run.index << " ran";
    }
  }
}

}  // namespace
}  // namespace ctte::runner
