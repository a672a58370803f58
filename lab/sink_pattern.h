// The sink's ready pattern: one decision per sink clock cycle, from a BackpressureProfile and
// its seed (ctte::Rng, so the pattern is identical on every machine).
//  - none: always ready.
//  - uniform: ready with probability accept_num/accept_den, independently per cycle.
//  - bursty: alternating blocks, ready for Between(ready_min, ready_max) cycles then stalled
//    for Between(stall_min, stall_max) cycles, starting with a ready block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/random.h"
#include "lab/board.h"

namespace ctte::lab {

class SinkPattern {
 public:
  explicit SinkPattern(const BackpressureProfile& profile);
  /// Ready for the next sink cycle.
  bool Next();
  /// out[i] = Next() ? 1 : 0 for i in [0, n): the same draws, the switch taken once.
  void Fill(uint8_t* out, size_t n);

 private:
  BackpressureProfile p_;
  Rng rng_;
  bool in_ready_block_ = false;
  uint64_t left_ = 0;  ///< cycles left in the current block
};

}  // namespace ctte::lab
