#include "base/random.h"

#include "base/check.h"

namespace ctte {
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

int64_t Rng::Between(int64_t lo, int64_t hi) {
  CTTE_CHECK(lo <= hi, "Rng::Between needs lo <= hi");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(Next());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + Below(span + 1));
}

double Rng::Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

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
