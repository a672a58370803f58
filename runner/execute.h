// Executing one run: PreparedRun (runner/plan.h) -> board session (runner/board_session.h), on
// the twin board too when there is one -> decode -> the eight verdicts -> RunOutcome
// (runner/outcome.h, which also states the status rules).
//
// Threading: ExecuteRun uses the boards it is given from the calling thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "lab/board.h"
#include "oracle/run_facts.h"
#include "runner/board_session.h"
#include "runner/outcome.h"
#include "runner/plan.h"

namespace ctte::runner {

/// How to plan (PlanOptions), how to run the session (SessionOptions) and how to judge.
struct ExecuteOptions : PlanOptions, SessionOptions {
  /// The stream of an earlier run of the same key (a determinism pair run separately, e.g. run
  /// 2k of a campaign for its twin 2k+1): judged as the twin when no twin board is given.
  std::optional<std::vector<uint8_t>> twin_stream;
};

/// Runs a prepared run on `board` (and its determinism twin on `twin_board` when given).
/// Never fails: lab problems become an infra or invalid outcome with the reason.
RunOutcome ExecuteRun(const PreparedRun& run, lab::Board& board, lab::Board* twin_board,
                      const ExecuteOptions& options);

/// Converts the board's capture into the judges' view.
oracle::CaptureFacts ToCaptureFacts(const lab::Capture& capture, uint64_t drain_budget);

}  // namespace ctte::runner
