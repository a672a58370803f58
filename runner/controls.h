// A campaign's controls: the runs that prove its gates can fail (docs/campaign-spec.md,
// "Controls"; docs/mutants.md). A campaign without a two-sided counter-proof measures nothing,
// so every soak runs its controls before its draws (and again after the draws of a budgeted
// soak) and a campaign with a failed control is UNSOUND, whatever its draws show.
//
// Contract:
//  - Control k of round r is DrawControl(spec, k, r): the campaign's draw rules applied to a copy
//    of the spec whose images are the control's image, whose fixed axes hold the control's
//    values, with the control's own seed DeriveSeed(campaign seed, "control:" + name) and run
//    index r. Its index is ControlIndex(r, k, slot), in a namespace of its own above every draw
//    index (slot 0 for an unsharded soak; I for shard I/N, whose control runs are therefore rows
//    of their own that survive `db merge`: a control that failed on one shard's boards makes the
//    merged campaign UNSOUND; the marker names the shard),
//    and its config carries a ControlMarker ("control" in config_json), so the draws (indices,
//    seeds, configs) are exactly those of the same spec without controls.
//  - Placement (ControlPlacement): a round runs on every board of the soak's source, so each
//    board that runs draws shows that its own capture path can fail: every clean control runs on
//    every board; the controls expected red are dealt round-robin over the boards, and a board
//    dealt none runs one more (red control b mod the number of red controls). Control k placed
//    on board b has k' = b * K + k (K controls) in place of k in its index, so one board's
//    indices are those of an unplaced round. The control's result names its board.
//  - A control with `twin` is judged for determinism against a first run of the same plan with
//    another model seed (DeriveSeed(run seed, "model-twin")): the power-on X state differs, as
//    it would between two power-ups of a real board.
//  - A mutant control passes when each verdict it expects red failed (other verdicts may do
//    anything); a clean control (expect_red empty) passes when the run is green. An invalid or
//    infra control run proves nothing and fails. ControlPassed() is the one rule.
//
// Threading: RunControls opens each board of its source (BoardWorker), one thread each.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/records.h"
#include "lab/board.h"
#include "lab/remote_board.h"
#include "oracle/verdict.h"
#include "runner/board_source.h"
#include "runner/board_worker.h"
#include "runner/campaign_spec.h"
#include "runner/execute.h"
#include "runner/shard.h"

namespace ctte::runner {

/// Control run indices start here (above any draw index: runs are at most 10^9).
constexpr uint64_t kControlIndexBase = 1'000'000'000'000;
/// At most this many controls per round, and rounds per shard slot:
/// ControlIndex(r, k, slot) = base + (slot * kMaxControlRounds + r) * kMaxControls + k.
constexpr uint64_t kMaxControls = 1000;
constexpr uint64_t kMaxControlRounds = 100'000;

/// The shard slot of a soak's controls: 0 unsharded (count 1), I (1-based) for shard I/N.
uint32_t ControlShardSlot(const ShardSpec& shard);
uint64_t ControlIndex(uint32_t round, size_t k, uint32_t slot = 0);
bool IsControlIndex(uint64_t index);
/// The shard slot (ControlShardSlot) of a control index.
uint32_t ControlIndexSlot(uint64_t index);

/// The configuration of control k (0-based, spec order) in round `round`, run by `shard`, on
/// board `board` of the placement (its index carries k' = board * K + k).
RunConfig DrawControl(const CampaignSpec& spec, size_t k, uint32_t round,
                      const ShardSpec& shard = ShardSpec{}, unsigned board = 0);

/// The controls (spec indices) each of `boards` boards runs in one round (see the contract).
/// InvalidArgument when boards * controls exceeds kMaxControls.
Result<std::vector<std::vector<size_t>>> ControlPlacement(const CampaignSpec& spec,
                                                          unsigned boards);

/// Runs a control on `board`: ExecuteRun, preceded, for a twin control, by the twin run with
/// the other model seed whose stream is judged as the twin.
/// (The plan's model seed is changed for the twin run and restored.)
RunOutcome ExecuteControl(PreparedRun* run, lab::Board& board, const ExecuteOptions& options);

/// The one rule (see the contract above). `reason` says why a control failed.
bool ControlPassed(const std::vector<std::string>& expect_red, RunStatus status,
                   const std::vector<std::string>& observed_red, std::string* reason);

/// A control's result: what db::StoredControl stores (name, image, round, shard, board,
/// expect_red, observed_red in code order, passed, reason: why it failed, "" when it passed),
/// with the run's status and row.
struct ControlResult : db::StoredControl {
  RunStatus status = RunStatus::kInfra;
  int64_t run_id = 0;
};

/// Judges a control's outcome (outcome.config.control must be set).
ControlResult JudgeControl(const RunOutcome& outcome);

/// A test hook: changes verdicts after judging (e.g. a judge that always passes).
using VerdictOverride = std::function<void(std::vector<oracle::Verdict>*)>;
/// Applies `override` to the outcome's verdicts and re-derives green/red from them.
void ApplyVerdictOverride(const VerdictOverride& override, RunOutcome* outcome);

struct ControlRunOptions {
  std::string db_path;
  int64_t campaign_id = 0;
  BoardSource boards;  ///< the soak's boards: every one of them runs controls (placement)
  ShardSpec shard;  ///< the soak's shard: its controls are indexed and marked by it
  bool store_all_streams = false;
  ExecuteOptions execute;
  // Extra fields (for testing): replaces verdict outcomes of every control run before it is
  // judged as a control.
  VerdictOverride TEST_verdict_override;
};

/// Runs the controls of round `round` (placed on the boards of options.boards) that the
/// campaign row does not hold yet and stores each as a run (its control result, with its board,
/// in metrics_json "control"). Returns every control result of this round (stored ones
/// included), board by board in spec order. Status errors: database, placement, or a board
/// that cannot be opened.
/// `boards` (may be null): the caller's open boards of options.boards (the soak's), used and
/// left open; null: RunControls opens its own and closes them.
Result<std::vector<ControlResult>> RunControls(const CampaignSpec& spec, uint32_t round,
                                               const ControlRunOptions& options,
                                               BoardSet* boards = nullptr);

}  // namespace ctte::runner
