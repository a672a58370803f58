// How a board reports a design that fails: an image with the wrong ABI is refused, an RTL
// assertion (the image's failed() flag) ends the run with a distinct failure kind, in process
// and through the board child, and a $fatal that aborts the child is classified the same way
// while the parent carries on. Uses test-only images (tests/lab/fake_image.cc).
#include <gtest/gtest.h>

#include <filesystem>

#include "lab/remote_board.h"
#include "lab/sim/sim_board.h"

namespace ctte::lab {
namespace {

const std::string kFakeImages = CTTE_BINARY_DIR "/tests/fake_images/";
const std::string kLoop = CTTE_BINARY_DIR "/workloads/loop.elf";
constexpr uint64_t kFailSeed = 0xA55E27, kAbortSeed = 0xAB0127;

DeployRequest FakeImage(const char* variant) {
  DeployRequest d;
  d.name = std::string("fake-") + variant;
  d.path = kFakeImages + "lab_fake_image_" + variant + ".so";
  return d;
}

RunPlan FailingPlan(uint64_t seed) {
  RunPlan p;
  p.workload_elf = kLoop;
  p.iss.max_instructions = 1000;
  p.model_seed = seed;
  return p;
}

class SimBoardFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kLoop)) {
      GTEST_SKIP() << "workload " << kLoop << " not built (target ctte_workloads)";
    }
  }
};

TEST(SimBoardAbiTest, ImageWithAnotherAbiVersionIsRefused) {
  auto b = SimBoard::Create({});
  ASSERT_TRUE(b.ok());
  Result<DeployReceipt> r = (*b)->Deploy(FakeImage("badabi"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ABI version 99"), std::string::npos)
      << r.status().message();
}

TEST_F(SimBoardFailureTest, RtlAssertionEndsTheRunWithItsMessage) {
  auto b = SimBoard::Create({});
  ASSERT_TRUE(b.ok());
  Result<DeployReceipt> r = (*b)->Deploy(FakeImage("good"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->build_id, 0xfeedc0de12345678ull);
  Result<Capture> c = (*b)->Run(FailingPlan(kFailSeed));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kRtlAssertion) << c.status().ToString();
  EXPECT_NE(c.status().message().find("recovery sync carries I-CNT 5"), std::string::npos);
  // A healthy plan runs on the same board afterwards.
  c = (*b)->Run(FailingPlan(1));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->retired, 1000u);
}

TEST_F(SimBoardFailureTest, AssertionsAndFatalsInTheBoardChildAreClassified) {
  RemoteBoardOptions o;
  o.board_path = CTTE_BINARY_DIR "/bin/ctte-board";
  auto b = RemoteBoard::Spawn(o);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  RemoteBoard& board = **b;
  ASSERT_TRUE(board.Deploy(FakeImage("good")).ok());

  Result<Capture> c = board.Run(FailingPlan(kFailSeed));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kRtlAssertion) << c.status().ToString();
  EXPECT_TRUE(board.alive());  // reported by the board, which lives on
  EXPECT_TRUE(board.Identify().ok());

  c = board.Run(FailingPlan(kAbortSeed));  // the model aborts the whole process
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kRtlAssertion) << c.status().ToString();
  EXPECT_NE(c.status().message().find("signal 6 (SIGABRT)"), std::string::npos);
  EXPECT_NE(c.status().message().find("Assertion failed"), std::string::npos);
  EXPECT_FALSE(board.alive());

  ASSERT_TRUE(board.Respawn().ok());
  ASSERT_TRUE(board.Deploy(FakeImage("good")).ok());
  c = board.Run(FailingPlan(1));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
}

}  // namespace
}  // namespace ctte::lab
