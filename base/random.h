// Our own PRNG and distributions, so that a draw is identical on every machine.
//
// std::uniform_*_distribution differ between standard libraries; these do not. Every function
// here is specified bit for bit in docs/campaign-spec.md ("Seeds and drawing") and pinned by
// golden values in tests/base/random_test.cc.
#pragma once

#include <cstdint>
#include <span>

#include "base/check.h"

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
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  /// Uniform integer in [0, bound), bound > 0. Lemire's multiply-shift with rejection.
  uint64_t Below(uint64_t bound) {
    CTTE_CHECK(bound > 0, "Rng::Below needs a positive bound");
    Uint128 m = static_cast<Uint128>(Next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<Uint128>(Next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  /// Uniform integer in [lo, hi], lo <= hi.
  int64_t Between(int64_t lo, int64_t hi);
  /// Uniform real in [0, 1): the top 53 bits of Next() times 2^-53.
  double Unit();
  /// True with probability num/den (integer arithmetic; den > 0).
  bool Chance(uint64_t num, uint64_t den) {
    CTTE_CHECK(den > 0, "Rng::Chance needs a positive denominator");
    return Below(den) < num;
  }
  /// Index i with probability weights[i] / sum(weights). Integer weights, sum > 0.
  size_t Weighted(std::span<const uint64_t> weights);

 private:
  // Inline (Next, Below, Chance): the board harness draws per beat and per sink cycle.
  __extension__ typedef unsigned __int128 Uint128;  // -Wpedantic: GCC/Clang extension
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

/// Run i's seed: a fixed function of (campaign seed, run index).
/// RunSeed(c, i) = SplitMix64Mix(c ^ SplitMix64Mix(i + 0x9E3779B97F4A7C15)).
uint64_t RunSeed(uint64_t campaign_seed, uint64_t run_index);

/// A named sub-stream of a run seed, so that adding a new random axis never shifts older ones:
/// DeriveSeed(s, "backpressure") = SplitMix64Mix(s ^ FNV-1a-64(name)).
uint64_t DeriveSeed(uint64_t seed, const char* stream_name);

}  // namespace ctte
