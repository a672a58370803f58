#include "lab/pll.h"

#include <gtest/gtest.h>

namespace ctte::lab {
namespace {

TEST(PllModelTest, PowerOnIs100MHz) {
  PllModel pll;
  EXPECT_EQ(pll.ReadBack(), 100'000'000u);
  EXPECT_EQ(pll.half_period_units(), 15u);
}

TEST(PllModelTest, ExactSettingsAreKept) {
  PllModel pll;
  for (uint64_t mhz : {50, 75, 100, 125, 150, 250, 300, 500}) {
    Result<uint64_t> r = pll.Set(mhz * 1'000'000);
    ASSERT_TRUE(r.ok()) << mhz;
    EXPECT_EQ(*r, mhz * 1'000'000);
    EXPECT_EQ(pll.ReadBack(), mhz * 1'000'000);
  }
}

TEST(PllModelTest, SettingsAreQuantizedDownAndReadBack) {
  PllModel pll;
  Result<uint64_t> r = pll.Set(200'000'000);  // 1500/7 = 214.3 > 200, so /8 = 187.5
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 187'500'000u);
  EXPECT_EQ(pll.ReadBack(), 187'500'000u);
  EXPECT_EQ(static_cast<uint64_t>(pll.d0()) * pll.d1(), 8u);
  r = pll.Set(33'000'000);  // 1500/46 = 32.6 MHz
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1'500'000'000u / 46);
  EXPECT_LE(*r, 33'000'000u);
}

TEST(PllModelTest, LargePrimeProductsUseTheNextFactorable) {
  PllModel pll;
  // ceil(1500e6 / 24e6) = 63 -> 63 = 63*1.
  ASSERT_TRUE(pll.Set(24'000'000).ok());
  EXPECT_EQ(pll.half_period_units(), 63u);
  // 22.4 MHz needs /67 (a prime above 63, not available): the next product is 68 = 34*2.
  Result<uint64_t> r = pll.Set(22'400'000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(pll.half_period_units(), 68u);
}

TEST(PllModelTest, OutOfRangeRequestsAreRefusedAndLeaveTheSetting) {
  PllModel pll;
  ASSERT_TRUE(pll.Set(150'000'000).ok());
  EXPECT_FALSE(pll.Set(2'000'000'000).ok());
  EXPECT_FALSE(pll.Set(100).ok());
  EXPECT_EQ(pll.ReadBack(), 150'000'000u);
}

}  // namespace
}  // namespace ctte::lab
