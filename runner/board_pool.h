// A pool of boards that runs a batch of run configurations in parallel (the bisection's and
// triage's legs; docs/triage.md).
//
// Contract:
//  - One worker thread per board of `boards` (runner/board_source.h: local ctte-board children
//    or lab boards), each a BoardWorker (runner/board_worker.h) whose SoakBoard deploys an image
//    once per board.
//  - The batch's indices are handed out by the soak's Scheduler (runner/scheduler.h), with its
//    image affinity: a board first takes configs of the image it holds.
//  - Each config is planned (PrepareRun) and executed (ExecuteRun: the board session of
//    runner/board_session.h, then the judges). A config that cannot be planned is an infra run
//    (cause prepare). An infra outcome is retried by the worker's one rule (IsRetryable, once,
//    on a reopened board), as the soak does.
//  - RunBatch returns one LegRun per config, in the order given; board_serial is the serial the
//    board reported.
// Threading: RunBatch may be called from one thread at a time.
#pragma once

#include <string>
#include <vector>

#include "runner/board_source.h"
#include "runner/bisect.h"
#include "runner/execute.h"

namespace ctte::runner {

struct BoardPoolOptions {
  BoardSource boards;  ///< local children (count, child, slot_args) or lab boards
  ExecuteOptions execute;
};

/// Runs `configs` on the pool (see the contract).
std::vector<LegRun> RunBatch(const BoardPoolOptions& options, const std::vector<RunConfig>& configs);

/// The LegRun of an outcome (red verdict codes, reason, board serial, wall time).
LegRun LegRunOf(const RunOutcome& outcome);

}  // namespace ctte::runner
