// Our own PRNG and distributions, so that a draw is identical on every machine.
//
// std::uniform_*_distribution differ between standard libraries; these do not. Every function
// here is specified bit for bit in docs/campaign-spec.md ("Seeds and drawing") and pinned by
// golden values in tests/base/random_test.cc.
#pragma once

#include <cstdint>
#include <span>

namespace ctte {

/// SplitMix64 finalizer: a bijective 64-bit mix.
uint64_t SplitMix64Mix(uint64_t z);

/// SplitMix64 generator, used to seed Xoshiro256** and to derive seeds.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();

 private:
  uint64_t state_;
};

/// xoshiro256** 1.0 (Blackman and Vigna), seeded from SplitMix64(seed).
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();
  /// Uniform integer in [0, bound), bound > 0. Lemire's multiply-shift with rejection.
  uint64_t Below(uint64_t bound);
  /// Uniform integer in [lo, hi], lo <= hi.
  int64_t Between(int64_t lo, int64_t hi);
  /// Uniform real in [0, 1): the top 53 bits of Next() times 2^-53.
  double Unit();
  /// True with probability num/den (integer arithmetic; den > 0).
  bool Chance(uint64_t num, uint64_t den);
  /// Index i with probability weights[i] / sum(weights). Integer weights, sum > 0.
  size_t Weighted(std::span<const uint64_t> weights);

 private:
  uint64_t s_[4];
};

/// Run i's seed: a fixed function of (campaign seed, run index).
/// RunSeed(c, i) = SplitMix64Mix(c ^ SplitMix64Mix(i + 0x9E3779B97F4A7C15)).
uint64_t RunSeed(uint64_t campaign_seed, uint64_t run_index);

/// A named sub-stream of a run seed, so that adding a new random axis never shifts older ones:
/// DeriveSeed(s, "backpressure") = SplitMix64Mix(s ^ FNV-1a-64(name)).
uint64_t DeriveSeed(uint64_t seed, const char* stream_name);

}  // namespace ctte
