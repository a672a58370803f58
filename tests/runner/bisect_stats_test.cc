// The exact statistics of a bisection (runner/bisect_stats.h) against values a binomial table
// (or R's binom.test / pbinom) gives, and against exact integer arithmetic.
#include "runner/bisect_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ctte::runner::stats {
namespace {

// P(X >= k), X ~ Binomial(n, 1/2), as an exact ratio of integers (n <= 60).
double HalfTailExact(uint64_t k, uint64_t n) {
  long double num = 0, c = 1;  // c = C(n, i), exact in long double for n <= 60
  for (uint64_t i = 0; i <= n; ++i) {
    if (i >= k) num += c;
    c = c * static_cast<long double>(n - i) / static_cast<long double>(i + 1);
  }
  return static_cast<double>(num / std::pow(2.0L, static_cast<long double>(n)));
}

TEST(BisectStatsTest, BinomialTailsAreExact) {
  EXPECT_DOUBLE_EQ(BinomialUpperTail(8, 10, 0.5), 56.0 / 1024.0);
  EXPECT_DOUBLE_EQ(BinomialUpperTail(0, 10, 0.3), 1.0);
  EXPECT_DOUBLE_EQ(BinomialUpperTail(11, 10, 0.3), 0.0);
  EXPECT_NEAR(BinomialLowerTail(2, 10, 0.3), 0.3827828, 1e-7);  // pbinom(2, 10, 0.3)
  EXPECT_NEAR(BinomialUpperTail(3, 20, 0.05), 0.07548367, 1e-8);
  for (uint64_t n = 1; n <= 60; n += 7) {
    for (uint64_t k = 0; k <= n; ++k) {
      const double exact = HalfTailExact(k, n);
      EXPECT_NEAR(BinomialUpperTail(k, n, 0.5), exact, 1e-12 * std::max(1.0, exact) + 1e-300)
          << k << " of " << n;
      EXPECT_NEAR(BinomialLowerTail(k, n, 0.5) + BinomialUpperTail(k + 1, n, 0.5), 1.0, 1e-12);
    }
  }
}

TEST(BisectStatsTest, SignTestIsMcNemarExact) {
  EXPECT_DOUBLE_EQ(SignTestP(9, 0), 1.0 / 512);
  EXPECT_DOUBLE_EQ(SignTestP(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(SignTestP(7, 1), 9.0 / 256);  // (1 + 8) / 2^8
  EXPECT_DOUBLE_EQ(SignTestP(1, 7), 255.0 / 256);
}

TEST(BisectStatsTest, ClopperPearsonMatchesTables) {
  const Bounds half = ClopperPearson(5, 10, 0.05);  // binom.test(5, 10)
  EXPECT_NEAR(half.lo, 0.1870860, 1e-6);
  EXPECT_NEAR(half.hi, 0.8129140, 1e-6);
  const Bounds none = ClopperPearson(0, 10, 0.05);
  EXPECT_EQ(none.lo, 0.0);
  EXPECT_NEAR(none.hi, 1 - std::pow(0.025, 0.1), 1e-9);  // 0.3084971
  const Bounds all = ClopperPearson(10, 10, 0.05);
  EXPECT_NEAR(all.lo, std::pow(0.025, 0.1), 1e-9);
  EXPECT_EQ(all.hi, 1.0);
}

TEST(BisectStatsTest, HolmStepsDown) {
  const std::vector<double> adj = HolmAdjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_DOUBLE_EQ(adj[3], 0.02);  // 4 x 0.005
  EXPECT_DOUBLE_EQ(adj[0], 0.03);  // 3 x 0.01
  EXPECT_DOUBLE_EQ(adj[2], 0.06);  // 2 x 0.03
  EXPECT_DOUBLE_EQ(adj[1], 0.06);  // max(0.06, 1 x 0.04): monotone
  EXPECT_DOUBLE_EQ(HolmAdjust({0.9, 0.8})[0], 1.0);
}

TEST(BisectStatsTest, EffectAndDetectableEffect) {
  const Effect e = PairedEffect(8, 0, 10, 0.05);
  EXPECT_DOUBLE_EQ(e.estimate, 0.8);
  // [lo(P10) - hi(P01), hi(P10) - lo(P01)], each Clopper-Pearson at 97.5 %.
  EXPECT_DOUBLE_EQ(e.interval.lo,
                   ClopperPearson(8, 10, 0.025).lo - ClopperPearson(0, 10, 0.025).hi);
  EXPECT_DOUBLE_EQ(e.interval.hi, ClopperPearson(8, 10, 0.025).hi);
  EXPECT_NEAR(ClopperPearson(0, 10, 0.025).hi, 1 - std::pow(0.0125, 0.1), 1e-9);
  EXPECT_EQ(DiscordantNeeded(0.05), 5u);
  EXPECT_EQ(DiscordantNeeded(0.0125), 7u);
  EXPECT_EQ(DiscordantNeeded(1.0 / 64), 6u);
  const double mde = MinimalDetectableEffect(10, 0.05, 0.8);
  EXPECT_NEAR(BinomialUpperTail(5, 10, mde), 0.8, 1e-9);
  EXPECT_LT(BinomialUpperTail(5, 10, mde - 0.01), 0.8);
  EXPECT_GT(MinimalDetectableEffect(4, 0.05, 0.8), 1.0);  // 4 repeats can never reach 5
  EXPECT_LT(MinimalDetectableEffect(40, 0.05, 0.8), mde);
}

}  // namespace
}  // namespace ctte::runner::stats
