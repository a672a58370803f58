// The exact statistics of a bisection (docs/triage.md, "Statistics"): binomial tails, the
// Clopper-Pearson interval, the paired sign test (McNemar's exact test), Holm's correction and
// the smallest effect a leg can detect. Pure functions, no state; a lab engineer can check
// every number with a binomial table (the worked example of docs/triage.md is a unit test).
//
// Notation for one leg against the original, over the repeats both judged (same seeds):
//   b = repeats where the original reproduced and the leg did not (reverting turned it green),
//   c = repeats where the leg reproduced and the original did not,
//   n = repeats both judged.
#pragma once

#include <cstdint>
#include <vector>

namespace ctte::runner::stats {

/// P(X >= k) for X ~ Binomial(n, p), summed exactly term by term (log-space terms, smallest
/// first); 1 when k == 0, 0 when k > n.
double BinomialUpperTail(uint64_t k, uint64_t n, double p);
/// P(X <= k) for X ~ Binomial(n, p).
double BinomialLowerTail(uint64_t k, uint64_t n, double p);

struct Bounds {
  double lo = 0, hi = 1;
};
/// Clopper-Pearson (exact) two-sided interval for k successes in n trials at confidence
/// 1 - alpha (each side alpha / 2); [0, 1] when n == 0.
Bounds ClopperPearson(uint64_t k, uint64_t n, double alpha);

/// One-sided exact sign test (McNemar's exact test): P(X >= b) for X ~ Binomial(b + c, 1/2),
/// the chance of b or more of the b + c discordant repeats going the culprit's way when
/// reverting changes nothing. 1 when b + c == 0.
double SignTestP(uint64_t b, uint64_t c);

/// Holm's step-down adjusted p-values (the same order as `p`): sorted ascending, the i-th
/// (0-based) of m is max over j <= i of min(1, (m - j) p_(j)). A hypothesis is rejected at
/// family-wise level alpha when its adjusted p-value is <= alpha.
std::vector<double> HolmAdjust(const std::vector<double>& p);

/// The effect of reverting, P(original reproduces) - P(leg reproduces) = P10 - P01, estimated
/// (b - c) / n, with a conservative exact interval at confidence 1 - alpha: each of P10 (b of
/// n) and P01 (c of n) gets a Clopper-Pearson interval at 1 - alpha / 2, and
/// [lo(P10) - hi(P01), hi(P10) - lo(P01)] holds both.
struct Effect {
  double estimate = 0;
  Bounds interval{-1, 1};
};
Effect PairedEffect(uint64_t b, uint64_t c, uint64_t n, double alpha);

/// The smallest b with SignTestP(b, 0) <= alpha, i.e. 2^-b <= alpha (0 when alpha >= 1).
uint64_t DiscordantNeeded(double alpha);

/// The smallest effect (a rescue rate P10, with P01 = 0) that n paired repeats detect with
/// probability `power` by the sign test at level `alpha`: the least d with
/// P(Binomial(n, d) >= DiscordantNeeded(alpha)) >= power. Above 1 (returns 2) when even
/// d = 1 cannot: n is below DiscordantNeeded(alpha).
double MinimalDetectableEffect(uint64_t n, double alpha, double power);

}  // namespace ctte::runner::stats
