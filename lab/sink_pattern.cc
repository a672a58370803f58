#include "lab/sink_pattern.h"

#include <algorithm>
#include <cstring>

namespace ctte::lab {

SinkPattern::SinkPattern(const BackpressureProfile& profile)
    : p_(profile), rng_(profile.seed) {}

bool SinkPattern::Next() {
  switch (p_.kind) {
    case BackpressureKind::kNone:
      return true;
    case BackpressureKind::kUniform:
      return rng_.Chance(p_.accept_num, p_.accept_den);
    case BackpressureKind::kBursty:
      while (left_ == 0) {
        in_ready_block_ = !in_ready_block_;
        left_ = in_ready_block_
                    ? static_cast<uint64_t>(rng_.Between(p_.ready_min, p_.ready_max))
                    : static_cast<uint64_t>(rng_.Between(p_.stall_min, p_.stall_max));
      }
      --left_;
      return in_ready_block_;
  }
  return true;
}

void SinkPattern::Fill(uint8_t* out, size_t n) {
  switch (p_.kind) {
    case BackpressureKind::kNone:
      std::memset(out, 1, n);
      return;
    case BackpressureKind::kUniform:
      for (size_t i = 0; i < n; ++i) out[i] = rng_.Chance(p_.accept_num, p_.accept_den) ? 1 : 0;
      return;
    case BackpressureKind::kBursty:
      for (size_t i = 0; i < n;) {
        while (left_ == 0) {
          in_ready_block_ = !in_ready_block_;
          left_ = in_ready_block_
                      ? static_cast<uint64_t>(rng_.Between(p_.ready_min, p_.ready_max))
                      : static_cast<uint64_t>(rng_.Between(p_.stall_min, p_.stall_max));
        }
        const size_t k = static_cast<size_t>(std::min<uint64_t>(left_, n - i));
        std::memset(out + i, in_ready_block_ ? 1 : 0, k);
        left_ -= k;
        i += k;
      }
      return;
  }
  for (size_t i = 0; i < n; ++i) out[i] = Next() ? 1 : 0;
}

}  // namespace ctte::lab
