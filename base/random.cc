#include "base/random.h"

#include "base/check.h"

namespace ctte {
namespace {
__extension__ typedef unsigned __int128 Uint128;  // -Wpedantic: GCC/Clang extension
inline uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::Next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  return SplitMix64Mix(state_);
}

Rng::Rng(uint64_t seed) {
  SplitMix64 sm(seed);
  for (auto& s : s_) s = sm.Next();
}

uint64_t Rng::Next() {
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

uint64_t Rng::Below(uint64_t bound) {
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

int64_t Rng::Between(int64_t lo, int64_t hi) {
  CTTE_CHECK(lo <= hi, "Rng::Between needs lo <= hi");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(Next());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + Below(span + 1));
}

double Rng::Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

bool Rng::Chance(uint64_t num, uint64_t den) {
  CTTE_CHECK(den > 0, "Rng::Chance needs a positive denominator");
  return Below(den) < num;
}

size_t Rng::Weighted(std::span<const uint64_t> weights) {
  uint64_t total = 0;
  for (uint64_t w : weights) total += w;
  CTTE_CHECK(total > 0, "Rng::Weighted needs a positive total weight");
  uint64_t r = Below(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  CTTE_CHECK(false, "Rng::Weighted fell off the end");
  return 0;
}

uint64_t RunSeed(uint64_t campaign_seed, uint64_t run_index) {
  return SplitMix64Mix(campaign_seed ^ SplitMix64Mix(run_index + 0x9E3779B97F4A7C15ULL));
}

uint64_t DeriveSeed(uint64_t seed, const char* stream_name) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (const char* p = stream_name; *p; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 0x100000001B3ULL;
  }
  return SplitMix64Mix(seed ^ h);
}

}  // namespace ctte
