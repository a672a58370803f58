// Where a command's boards come from (docs/lab.md, "Board source"): one value that every command
// that runs something accepts (soak and its controls, run, replay, bisect and triage legs).
//
//  - Local children (the default): `count` ctte-board children spawned with `child`
//    (RemoteBoardOptions), each slot with its `slot_args` appended (e.g. {"--serial", "sim-7"}).
//  - Lab boards: `open` opens slot i of a lab inventory (`--lab lab.json`, lab/net/inventory.h);
//    `names` are the inventory names, and their number is the number of boards. The runner does
//    not know how a lab board is reached: the tool builds `open` (tools/ctte-lab/lab_source.h).
//
// Threading: a BoardSource is read-only once built; Open() may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "lab/board.h"
#include "lab/remote_board.h"

namespace ctte::runner {

struct BoardSource {
  /// Local children: how many (ignored for lab boards: names.size()).
  unsigned count = 1;
  /// The ctte-board child of a local slot, and the request timeouts of every board.
  lab::RemoteBoardOptions child;
  /// Extra ctte-board arguments per local slot; missing slots: none.
  std::vector<std::vector<std::string>> slot_args;
  /// Lab boards: opens slot i (0 .. names.size()-1). Empty: local children.
  std::function<Result<std::unique_ptr<lab::Board>>(unsigned slot)> open;
  /// Board names by slot (the inventory's names for lab boards; default "board N").
  std::vector<std::string> names;
  /// Test hook: wraps each local child (the wrapper forwards to `inner`, which stays valid
  /// across respawns). Does not apply to lab boards.
  std::function<std::unique_ptr<lab::Board>(lab::Board* inner, unsigned slot)> TEST_wrap;

  bool lab() const { return static_cast<bool>(open); }
  unsigned size() const { return lab() ? static_cast<unsigned>(names.size()) : count; }
  std::string Name(unsigned slot) const {
    return slot < names.size() ? names[slot] : "board " + std::to_string(slot);
  }
  /// The same source restricted to one slot (a command that runs on one chosen board).
  BoardSource Only(unsigned slot) const;
};

}  // namespace ctte::runner
