// CorruptingBoard: a test-only fault of a board agent (`ctte-board --test-corrupt-captures P`,
// docs/lab.md "A board that corrupts its captures"): a Board decorator that flips one byte in the
// middle of a fraction P of its captures, as a board with a broken capture path would. It lets a
// lab test show triage's board_specific (one agent corrupts, the other does not), design (no
// agent corrupts and the image is a mutant) and flaky (both corrupt half their captures).
//
// Which captures: a splitmix64 hash of the plan's model seed decides (P = 1: every one; P = 0:
// none), so a run is corrupted or not whatever the order the agent is asked its runs in, and on
// every agent given the same P: a test's outcome is fixed by its seeds. Never used by a real board (ctte-board refuses the option with
// --board zynq).
//
// Threading: that of the target.
#pragma once

#include <cstdint>

#include "lab/board_wrapper.h"

namespace ctte::lab {

class CorruptingBoard : public BoardWrapper {
 public:
  /// `fraction` in [0, 1].
  CorruptingBoard(Board* target, double fraction) : BoardWrapper(target), fraction_(fraction) {}

  Result<Capture> Run(const RunPlan& plan) override;
  uint64_t corrupted() const { return corrupted_; }

 private:
  double fraction_;
  uint64_t corrupted_ = 0;
};

}  // namespace ctte::lab
