#include "lab/capture_ring.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ctte::lab
