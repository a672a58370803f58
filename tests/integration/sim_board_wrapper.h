// SimBoardWrapper: a lab::BoardWrapper around an in-process SimBoard that it owns, for the
// integration tests' board decorators (a reported ring size, injected faults, a skewed clock):
// derive from it and override only the methods the decorator changes.
#pragma once

#include <memory>
#include <utility>

#include "base/check.h"
#include "lab/board_wrapper.h"
#include "lab/sim/sim_board.h"

namespace ctte::testing {

class SimBoardWrapper : public lab::BoardWrapper {
 public:
  SimBoardWrapper() : SimBoardWrapper(NewSimBoard()) {}

 private:
  explicit SimBoardWrapper(std::unique_ptr<lab::SimBoard> sim)
      : BoardWrapper(sim.get()), sim_(std::move(sim)) {}
  static std::unique_ptr<lab::SimBoard> NewSimBoard() {
    Result<std::unique_ptr<lab::SimBoard>> b = lab::SimBoard::Create({});
    CTTE_CHECK(b.ok(), "cannot create a SimBoard");
    return std::move(*b);
  }

  std::unique_ptr<lab::SimBoard> sim_;  // the target
};

}  // namespace ctte::testing
