// Exact statistics of a bisection (see bisect_stats.h).
#include "runner/bisect_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ctte::runner::stats {
namespace {

// log P(X = k) for X ~ Binomial(n, p), 0 < p < 1.
double LogPmf(uint64_t k, uint64_t n, double p) {
  const double nn = static_cast<double>(n), kk = static_cast<double>(k);
  return std::lgamma(nn + 1) - std::lgamma(kk + 1) - std::lgamma(nn - kk + 1) +
         kk * std::log(p) + (nn - kk) * std::log1p(-p);
}

// Sum of P(X = i) for i in [from, to], each term exact in log space (log C(n, i) by the
// recurrence log C(n, i + 1) = log C(n, i) + log((n - i) / (i + 1))), added smallest first.
double SumPmf(uint64_t from, uint64_t to, uint64_t n, double p) {
  std::vector<double> terms;
  terms.reserve(to - from + 1);
  const double lp = std::log(p), lq = std::log1p(-p);
  double log_term = LogPmf(from, n, p);
  for (uint64_t i = from;; ++i) {
    terms.push_back(std::exp(log_term));
    if (i == to) break;
    log_term += std::log(static_cast<double>(n - i) / static_cast<double>(i + 1)) + lp - lq;
  }
  std::sort(terms.begin(), terms.end());
  double s = 0;
  for (double t : terms) s += t;
  return std::min(1.0, s);
}

// The p in [0, 1] where the decreasing-or-increasing function f crosses `target`, by bisection
// (f(lo) and f(hi) on either side; 64 halvings take the bracket below 1e-19).
template <typename F>
double Solve(F f, double target, bool increasing) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 64; ++i) {
    const double mid = 0.5 * (lo + hi);
    if ((f(mid) < target) == increasing) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// P(X >= k) for X ~ Binomial(n, 1/2), n <= 62: sum of C(n, i) in integers (C(62, 31) < 2^59,
// the sum < 2^62), divided by 2^n: exact up to the one rounding of the result.
double HalfUpperTailExact(uint64_t k, uint64_t n) {
  uint64_t c = 1, sum = 0;  // c = C(n, i)
  for (uint64_t i = 0; i <= n; ++i) {
    if (i >= k) sum += c;
    if (i < n) c = c / (i + 1) * (n - i) + c % (i + 1) * (n - i) / (i + 1);
  }
  return std::ldexp(static_cast<double>(sum), -static_cast<int>(n));
}

constexpr uint64_t kExactHalfMax = 62;

}  // namespace

double BinomialUpperTail(uint64_t k, uint64_t n, double p) {
  if (k == 0) return 1.0;
  if (k > n) return 0.0;
  if (p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  if (p == 0.5 && n <= kExactHalfMax) return HalfUpperTailExact(k, n);
  return SumPmf(k, n, n, p);
}

double BinomialLowerTail(uint64_t k, uint64_t n, double p) {
  if (k >= n) return 1.0;
  if (p <= 0) return 1.0;
  if (p >= 1) return 0.0;
  if (p == 0.5 && n <= kExactHalfMax) return HalfUpperTailExact(0, n) - HalfUpperTailExact(k + 1, n);
  return SumPmf(0, k, n, p);
}

Bounds ClopperPearson(uint64_t k, uint64_t n, double alpha) {
  if (n == 0) return {0, 1};
  const double a = alpha / 2;
  Bounds b;
  // lo: P(X >= k | lo) = a (increasing in p); hi: P(X <= k | hi) = a (decreasing in p).
  b.lo = k == 0 ? 0.0 : Solve([&](double p) { return BinomialUpperTail(k, n, p); }, a, true);
  b.hi = k == n ? 1.0 : Solve([&](double p) { return BinomialLowerTail(k, n, p); }, a, false);
  return b;
}

double SignTestP(uint64_t b, uint64_t c) {
  if (b + c == 0) return 1.0;
  return BinomialUpperTail(b, b + c, 0.5);
}

std::vector<double> HolmAdjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> out(m);
  double running = 0;
  for (size_t j = 0; j < m; ++j) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - j) * p[order[j]]));
    out[order[j]] = running;
  }
  return out;
}

Effect PairedEffect(uint64_t b, uint64_t c, uint64_t n, double alpha) {
  Effect e;
  if (n == 0) return e;
  e.estimate = (static_cast<double>(b) - static_cast<double>(c)) / static_cast<double>(n);
  const Bounds p10 = ClopperPearson(b, n, alpha / 2), p01 = ClopperPearson(c, n, alpha / 2);
  e.interval = {std::max(-1.0, p10.lo - p01.hi), std::min(1.0, p10.hi - p01.lo)};
  return e;
}

uint64_t DiscordantNeeded(double alpha) {
  if (alpha >= 1) return 0;
  uint64_t b = 0;
  double p = 1;
  while (p > alpha && b < 64) {
    p /= 2;
    ++b;
  }
  return b;
}

double MinimalDetectableEffect(uint64_t n, double alpha, double power) {
  const uint64_t need = DiscordantNeeded(alpha);
  if (need > n) return 2.0;
  return Solve([&](double d) { return BinomialUpperTail(need, n, d); }, power, true);
}

}  // namespace ctte::runner::stats
