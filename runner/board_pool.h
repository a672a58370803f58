// A pool of boards that runs a batch of run configurations in parallel (the bisection's and
// triage's legs; docs/triage.md).
//
// Contract:
//  - One worker thread per board; each spawns its own ctte-board child (RemoteBoardOptions; an
//    `--serial` in `serial_args[slot]` names the board it stands for) and wraps it in a
//    SoakBoard, so an image is deployed once per board (runner/soak_boards.h).
//  - The batch's indices are handed out by the soak's Scheduler (runner/scheduler.h), with its
//    image affinity: a board first takes configs of the image it holds.
//  - Each config is planned (PrepareRun) and executed (ExecuteRun: the board session of
//    runner/board_session.h, then the judges). A config that cannot be planned is an infra run
//    (cause prepare). A board death is retried once on a respawned board, as the soak does.
//  - RunBatch returns one LegRun per config, in the order given.
// Threading: RunBatch may be called from one thread at a time.
#pragma once

#include <string>
#include <vector>

#include "lab/remote_board.h"
#include "runner/bisect.h"
#include "runner/execute.h"

namespace ctte::runner {

struct BoardPoolOptions {
  unsigned boards = 1;
  ExecuteOptions execute;
  lab::RemoteBoardOptions board;
  /// Extra ctte-board arguments per slot (e.g. {"--serial", "sim-7"}); missing slots: none.
  std::vector<std::vector<std::string>> slot_args;
};

/// Runs `configs` on the pool (see the contract).
std::vector<LegRun> RunBatch(const BoardPoolOptions& options, const std::vector<RunConfig>& configs);

/// The LegRun of an outcome (red verdict codes, reason, board serial, wall time).
LegRun LegRunOf(const RunOutcome& outcome);

}  // namespace ctte::runner
