// BoardWrapper forwards every method; FaultInjectingBoard fails, kills, times out or corrupts
// exactly the call it was told to, and forwards the rest.
#include "lab/board_wrapper.h"

#include <gtest/gtest.h>

#include "tests/lab/fake_board.h"
#include "tests/lab/fault_injecting_board.h"

namespace ctte::lab {
namespace {

RunPlan SmallPlan() {
  RunPlan p;
  p.workload_elf = "w.elf";
  p.ring_bytes = 16;
  p.model_seed = 3;
  return p;
}

TEST(BoardWrapperTest, ForwardsEveryMethodToItsTarget) {
  FakeBoard fake;
  BoardWrapper board(&fake);
  EXPECT_EQ(board.target(), &fake);
  EXPECT_EQ(board.Identify()->kind, "fake");
  DeployRequest d;
  d.name = "x";
  d.bytes = {1, 2, 3};
  ASSERT_TRUE(board.Deploy(d).ok());
  EXPECT_EQ(board.Identify()->image_sha256, fake.Identify()->image_sha256);
  EXPECT_EQ(*board.SetClock(ClockDomain::kSink, 50'000'000), 50'000'000u);
  EXPECT_EQ(*fake.ReadClock(ClockDomain::kSink), 50'000'000u);
  EXPECT_EQ(*board.ReadClock(ClockDomain::kSink), 50'000'000u);
  ASSERT_TRUE(board.WriteReg(0x10, 7).ok());
  EXPECT_EQ(*fake.ReadReg(0x10), 7u);
  EXPECT_EQ(*board.ReadReg(0x10), 7u);
  Result<Capture> c = board.Run(SmallPlan());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bytes.size(), 16u);
  EXPECT_EQ(fake.last_plan_.model_seed, 3u);
}

TEST(FaultInjectingBoardTest, NthCallOfTheChosenMethodFailsAndOthersPass) {
  FakeBoard fake;
  FaultInjectingBoard board(&fake);
  board.Inject({.method = BoardMethod::kWriteReg,
                .nth = 2,
                .error = Status::IOError("TEST: bus error")});
  EXPECT_TRUE(board.WriteReg(0x10, 1).ok());
  const Status s = board.WriteReg(0x10, 2);
  EXPECT_EQ(s.ToString(), "IOError: TEST: bus error");
  EXPECT_EQ(*fake.ReadReg(0x10), 1u);  // the failing call did not reach the target
  EXPECT_TRUE(board.WriteReg(0x10, 3).ok());
  EXPECT_EQ(*board.ReadReg(0x10), 3u);
  EXPECT_EQ(board.calls(BoardMethod::kWriteReg), 3u);
  EXPECT_EQ(board.calls(BoardMethod::kReadReg), 1u);
  EXPECT_EQ(board.injected(), 1u);
}

TEST(FaultInjectingBoardTest, DeathsAndTimeoutsHaveTheirKinds) {
  FakeBoard fake;
  FaultInjectingBoard board(&fake);
  board.Inject({.method = BoardMethod::kRun, .nth = 1, .times = 2, .action = FaultAction::kDie});
  board.Inject({.method = BoardMethod::kReadClock, .action = FaultAction::kTimeout});
  for (int i = 0; i < 2; ++i) {
    Result<Capture> c = board.Run(SmallPlan());
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kBoardDied);
    EXPECT_EQ(c.status().message(), "board died: TEST: injected (op run)");
  }
  EXPECT_TRUE(board.Run(SmallPlan()).ok());
  Result<uint64_t> hz = board.ReadClock(ClockDomain::kFabric);
  ASSERT_FALSE(hz.ok());
  EXPECT_EQ(ClassifyFailure(hz.status()), FailureKind::kBoardTimeout);
  EXPECT_TRUE(board.ReadClock(ClockDomain::kFabric).ok());
}

TEST(FaultInjectingBoardTest, CorruptedCapturesFlipOneByteEveryTime) {
  FakeBoard fake;
  FaultInjectingBoard board(&fake);
  board.Inject({.method = BoardMethod::kRun, .nth = 2, .times = 0,
                .action = FaultAction::kCorruptCapture});
  const std::vector<uint8_t> clean = board.Run(SmallPlan())->bytes;
  ASSERT_EQ(clean.size(), 16u);
  std::vector<uint8_t> middle = clean;
  middle.at(8) = static_cast<uint8_t>(clean.at(8) ^ 0x5a);
  for (int i = 0; i < 3; ++i) {
    Result<Capture> c = board.Run(SmallPlan());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->bytes, middle);
  }
  EXPECT_EQ(board.injected(), 3u);

  FaultInjectingBoard at_start(&fake);
  at_start.Inject({.method = BoardMethod::kRun, .action = FaultAction::kCorruptCapture,
                   .corrupt_offset = 0, .mask = 0xff});
  std::vector<uint8_t> first = clean;
  first.at(0) = static_cast<uint8_t>(clean.at(0) ^ 0xff);
  EXPECT_EQ(at_start.Run(SmallPlan())->bytes, first);
  EXPECT_EQ(at_start.Run(SmallPlan())->bytes, clean);  // times = 1: the next call is clean
}

}  // namespace
}  // namespace ctte::lab
