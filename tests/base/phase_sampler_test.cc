// PhaseSampler: ticks land in the phase that is current while CPU time is spent.
#include "base/phase_sampler.h"

#include <ctime>

#include <gtest/gtest.h>

namespace ctte::phase {
namespace {

// Burns about `ms` of this process's CPU time.
void Spin(double ms) {
  const std::clock_t until = std::clock() + static_cast<std::clock_t>(ms * CLOCKS_PER_SEC / 1000);
  volatile uint64_t x = 0;
  while (std::clock() < until) x = x + 1;
}

TEST(PhaseSamplerTest, ScopesNestAndRestore) {
  EXPECT_EQ(g_current, kOther);
  {
    Scope a(kJudge);
    EXPECT_EQ(g_current, kJudge);
    {
      Scope b(kModel);
      EXPECT_EQ(g_current, kModel);
    }
    EXPECT_EQ(g_current, kJudge);
  }
  EXPECT_EQ(g_current, kOther);
}

TEST(PhaseSamplerTest, TicksFollowTheCurrentPhase) {
  PhaseSampler s;
  ASSERT_TRUE(s.Start(1000).ok());
  PhaseSampler second;
  EXPECT_FALSE(second.Start().ok());  // one at a time
  {
    Scope m(kModel);
    Spin(300);
  }
  {
    Scope j(kJudge);
    Spin(100);
  }
  s.Stop();
  // The kernel rounds the period up to its tick (4 ms at HZ=250): at least ~25 ticks in all.
  ASSERT_GE(s.total_ticks(), 20u);
  EXPECT_GT(s.percent(kModel), 55.0);
  EXPECT_LT(s.percent(kModel), 95.0);
  EXPECT_GT(s.percent(kJudge), 5.0);
  EXPECT_EQ(s.ticks(kBoardIss), 0u);
  EXPECT_STREQ(PhaseName(kModel), "model");
  PhaseSampler again;  // Stop() released the process's one sampler
  EXPECT_TRUE(again.Start().ok());
}

}  // namespace
}  // namespace ctte::phase
