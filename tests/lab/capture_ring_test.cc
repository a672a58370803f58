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

}  // namespace
}  // namespace ctte::lab
