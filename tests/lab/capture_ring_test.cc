#include "lab/capture_ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ctte::lab {
namespace {

TEST(CaptureRingTest, KeepsEverythingUntilFull) {
  CaptureRing ring(4);
  for (uint8_t b : {1, 2, 3, 4}) ring.Push(b);
  EXPECT_FALSE(ring.wrapped());
  EXPECT_EQ(ring.Contents(), (std::vector<uint8_t>{1, 2, 3, 4}));
}

TEST(CaptureRingTest, WrapOverwritesTheOldestAndSaysSo) {
  CaptureRing ring(4);
  for (uint8_t b = 1; b <= 10; ++b) ring.Push(b);
  EXPECT_TRUE(ring.wrapped());
  EXPECT_EQ(ring.total(), 10u);
  EXPECT_EQ(ring.Contents(), (std::vector<uint8_t>{7, 8, 9, 10}));
}

TEST(CaptureRingTest, PartialFillReturnsInOrder) {
  CaptureRing ring(8);
  for (uint8_t b = 1; b <= 3; ++b) ring.Push(b);
  EXPECT_EQ(ring.Contents(), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(ring.capacity(), 8u);
}

// A ring takes only the memory its bytes fill: a 1 TiB ring (far beyond this host's memory,
// which a buffer allocated up front could not get) holds a short stream, then wraps at its
// capacity like a small one.
TEST(CaptureRingTest, LargeRingCostsOnlyWhatItHolds) {
  CaptureRing huge(uint64_t{1} << 40);
  for (uint8_t b = 1; b <= 3; ++b) huge.Push(b);
  EXPECT_FALSE(huge.wrapped());
  EXPECT_EQ(huge.capacity(), uint64_t{1} << 40);
  EXPECT_EQ(huge.Contents(), (std::vector<uint8_t>{1, 2, 3}));
  CaptureRing exact(3);
  for (uint8_t b = 1; b <= 3; ++b) exact.Push(b);
  EXPECT_FALSE(exact.wrapped());  // exactly full is not wrapped
  exact.Push(4);
  EXPECT_TRUE(exact.wrapped());
  EXPECT_EQ(exact.Contents(), (std::vector<uint8_t>{2, 3, 4}));
}

// Push(bytes, n) is n single pushes: across the fill boundary and around the wrap, for every
// block size.
TEST(CaptureRingTest, BlockPushEqualsBytePushes) {
  std::vector<uint8_t> bytes(37);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  for (uint64_t capacity : {uint64_t{5}, uint64_t{37}, uint64_t{64}}) {
    CaptureRing one(capacity);
    for (uint8_t b : bytes) one.Push(b);
    for (size_t block : {size_t{1}, size_t{3}, size_t{8}, size_t{37}}) {
      CaptureRing blocks(capacity);
      for (size_t i = 0; i < bytes.size(); i += block) {
        blocks.Push(bytes.data() + i, std::min(block, bytes.size() - i));
      }
      EXPECT_EQ(blocks.Contents(), one.Contents()) << capacity << "/" << block;
      EXPECT_EQ(blocks.total(), one.total());
      EXPECT_EQ(blocks.wrapped(), one.wrapped());
    }
  }
}

TEST(CaptureRingTest, TakeContentsIsContentsAndKeepsTheCounts) {
  for (uint8_t n : {3, 10}) {  // unwrapped (moved out) and wrapped (copied in order)
    CaptureRing ring(4);
    for (uint8_t b = 1; b <= n; ++b) ring.Push(b);
    const std::vector<uint8_t> want = ring.Contents();
    EXPECT_EQ(ring.TakeContents(), want);
    EXPECT_EQ(ring.total(), n);
    EXPECT_EQ(ring.wrapped(), n > 4);
  }
}

}  // namespace
}  // namespace ctte::lab
