#include "lab/sink_pattern.h"

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

}  // namespace ctte::lab
