// Triage of a stored red run (docs/triage.md): `ctte-lab bisect` and `ctte-lab triage`.
//
// Contract:
//  - BisectRun loads the run (it must be red: an original draw or control, not a replay),
//    picks the baseline (a RunConfig JSON file; "spec": the campaign spec's first value of
//    every axis; "auto": the nearest green draw of the campaign with the same image, i.e. the
//    one differing in the fewest factors, then the closest index; the spec when there is
//    none), runs runner::Bisect on a pool of `boards` boards (runner/board_pool.h), stores
//    the bisection with every leg and leg run (db/triage_store.h), and writes the minimal
//    red configuration to `out_dir`/run-<id>-minimal.json, whose `ctte-lab run --config`
//    command it returns. The legs' outcome is the run's failing verdict set (its verdict rows
//    with outcome fail). With "auto", the green draws identical to the red run in every factor
//    are counted and reported as flakiness evidence (identical_green).
//  - TriageRun runs the run's stored configuration once and its `repeats` fresh-seed repeats
//    (the same seeds as a bisection's original leg) on the same board (a ctte-board with the
//    stored run's serial) and on another board (serial + "-other"), in parallel, and
//    classifies the failure:
//      infrastructure  more than a third of the runs infra or invalid;
//      not_reproduced  no run went red;
//      design          every judged run went red on both boards;
//      board_specific  red on one board, green with confidence on the other
//                      (hi(other) < lo(this), Wilson 95 %);
//      flaky           anything else: the red rate over both boards with its interval.
//    It is stored as a bisection row of kind "triage" with legs same_board and other_board.
// Status errors are usage problems (no database, no such run, not red, bad baseline file);
// lab failures become infra leg runs.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "db/triage_store.h"
#include "runner/bisect.h"
#include "runner/board_pool.h"

namespace ctte::runner {

struct TriageOptions {
  std::string db_path = "out/ctte.db";
  std::string baseline = "auto";   ///< "auto", "spec" or a RunConfig JSON file
  uint32_t repeats = 5;            ///< triage: repeats; bisect: repeats at the first look
  std::string out_dir = "out/triage";
  BisectOptions bisect;            ///< repeats is taken from `repeats`
  BoardPoolOptions pool;           ///< boards, execute, board
  /// The artifact store for the run's image and ELF when the build tree's differ (stored-run
  /// loader, runner/stored_run.h): "" = "<db_path>.artifacts"; "none" = the build tree only.
  std::string artifacts_dir;
};

struct BisectRunResult {
  int64_t run_id = 0;
  int64_t bisection_id = 0;
  RunConfig baseline;
  std::string baseline_source;     ///< "spec", "run N", or the file
  uint64_t identical_green = 0;    ///< auto: green draws identical in every factor (flakiness)
  std::vector<std::string> target_verdicts;  ///< the run's failing verdicts (the outcome)
  BisectResult result;
  std::string minimal_path;        ///< "" when no minimal configuration
  std::string minimal_command;
  std::string ToJson(int indent = 2) const;
};

/// What triage concluded (docs/triage.md); its name is the stored bisection verdict and the
/// JSON "classification".
enum class TriageClass { kDesign, kBoardSpecific, kFlaky, kNotReproduced, kInfrastructure };
/// "design", "board_specific", "flaky", "not_reproduced", "infrastructure".
const char* TriageClassName(TriageClass c);

struct TriageRunResult {
  int64_t run_id = 0;
  int64_t bisection_id = 0;
  TriageClass classification = TriageClass::kNotReproduced;
  std::string summary;
  Leg same_board, other_board;
  Interval rate;                   ///< red rate over both boards
  uint64_t red = 0, judged = 0;
  std::string ToJson(int indent = 2) const;
};

Result<BisectRunResult> BisectRun(int64_t run_id, const TriageOptions& options);
Result<TriageRunResult> TriageRun(int64_t run_id, const TriageOptions& options);

/// The database form of a bisection's legs (shared by both).
db::BisectionLegRecord LegRecordOf(const Leg& leg, uint32_t ordinal);

}  // namespace ctte::runner
