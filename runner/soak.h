// The soak runner: a campaign on N simulated boards in parallel, every run stored in the
// database in its own transaction (DESIGN.md sections 1, 6 and 7).
//
// Contract:
//  - Run i is Draw(spec, i); its result is RecordRun()'s one transaction (run row, verdicts, and
//    stream bytes for red and invalid runs, or for all with store_all_streams). A kill at any
//    moment therefore loses no committed run and leaves no half run.
//  - Resume: the runs already finished in the campaign row are skipped; every other index is
//    drawn and run exactly as the uninterrupted campaign would have (Draw is a pure function).
//    With retry_infra the infra runs (this shard's draws and its own control runs: an infra
//    control proved nothing) first go back to planned (their outcome kept as an earlier
//    attempt), so they are run again in place.
//  - A determinism twin (Draw sets twin_of) never starts while the run it repeats is in flight,
//    and goes to another board when there is one (runner/scheduler.h). It is judged against
//    that run's capture (PlaybackBoard), or, when there is none (a resume lost it, or the twin
//    started first), against a fresh run of the same plan on this board.
//  - An infra outcome is retried once on a respawned board, then stored as infra, unless a fresh
//    board would repeat it (IsRetryable(InfraCause): not for kPrepare or kClosureGate).
//  - Every earlier attempt of a retried run is kept (SoakRunEvent::attempts, RunAttempt), and
//    board deaths (died or hung), respawns and retries are counted per board.
//  - Stop requests (options.stop_requests, e.g. from SIGINT/SIGTERM): the first stops handing
//    out runs and lets the running ones finish and be stored; a second abandons the running
//    ones: their boards are killed and nothing of them is stored (they are not finished, so
//    --resume runs them). Either way RunSoak returns its summary with `interrupted` set.
//  - Scheduling (resume skipping, twin ordering, image affinity) is runner/scheduler.h.
//  - Controls (runner/controls.h): the spec's controls run before the draws (round 0) and, under
//    a time budget, again after them (round 1); a resume runs only the missing ones. Control
//    rows are not draws: they are not counted in `counts`/`campaign` nor skipped by resume.
//  - Each board is a BoardWorker (runner/board_worker.h) of options.boards driven by one thread:
//    a RemoteBoard child (`ctte-board --stdio`) or a lab board; each thread has its own
//    Database connection.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "db/records.h"
#include "lab/remote_board.h"
#include "runner/board_health.h"
#include "runner/board_source.h"
#include "runner/controls.h"
#include "runner/execute.h"
#include "runner/shard.h"

namespace ctte::runner {

struct SoakOptions {
  std::string spec_path;
  std::optional<uint64_t> runs;            ///< overrides the spec's runs / budget
  std::optional<uint64_t> budget_seconds;  ///< overrides the spec's runs / budget
  /// The boards: local ctte-board children (boards.count, boards.child) or a lab inventory's
  /// (boards.open, boards.names); runner/board_source.h.
  BoardSource boards;
  std::string db_path = "out/ctte.db";
  std::string resume;                      ///< campaign id or name; "" = a new campaign
  /// With `resume`: the campaign's infra runs (this shard's draws, not controls) are requeued in
  /// place first (Database::RequeueInfraRuns: the failed outcome kept in run_attempts) and run
  /// again with the same index, seed and config.
  bool retry_infra = false;
  std::optional<uint64_t> seed;            ///< overrides the spec's campaign seed
  bool store_all_streams = false;
  /// The artifact store (db/artifacts.h) that keeps every image and ELF the campaign used:
  /// "" = "<db_path>.artifacts"; "none" = keep nothing.
  std::string artifacts_dir;
  ShardSpec shard;                         ///< run only this shard's indices (runner/shard.h)
  ExecuteOptions execute;
  /// Stop requests so far (see the contract); nullptr = none can come. Read, never written.
  const std::atomic<int>* stop_requests = nullptr;
  /// Quarantine and health checks (runner/board_health.h).
  HealthOptions health;
  /// Opens the soak's log once the campaign is known (name, id); nullptr or an empty LogFn =
  /// no log. Lines: boards opened, deploys (and skipped ones), each run, infra failures,
  /// respawns, quarantines, health checks.
  std::function<Result<LogFn>(const std::string& campaign, int64_t id)> open_log;

  // Extra fields (for testing): (boards.TEST_wrap wraps each local child.)
  // Replaces verdict outcomes of every run (draws and controls) after judging: a broken judge.
  VerdictOverride TEST_verdict_override;
};

struct SoakCounts {
  uint64_t done = 0, green = 0, red = 0, invalid = 0, infra = 0;
  uint64_t retried = 0;  ///< infra outcomes retried on a fresh board
  uint64_t deaths = 0;   ///< runs whose board died or hung (kBoardDied, kBoardTimeout)
  uint64_t respawns = 0; ///< board processes replaced by a fresh one
};

/// One finished run, as reported to the progress callback.
struct SoakRunEvent {
  uint64_t index = 0;
  uint64_t seed = 0;
  int64_t run_id = 0;
  unsigned board = 0;             ///< 0-based board slot
  RunStatus status = RunStatus::kInfra;
  std::string reason;
  std::optional<uint64_t> twin_of;
  double wall_seconds = 0;
  SoakCounts counts;              ///< after this run (this session)
  uint64_t total = 0;             ///< runs this session will do; 0 under a time budget
  double elapsed_seconds = 0;
  /// The run's earlier attempts, oldest first (empty unless it was retried); the run row is the
  /// last attempt.
  std::vector<RunAttempt> attempts;
};

struct SoakSummary {
  int64_t campaign_id = 0;
  std::string campaign_name;
  uint64_t skipped_done = 0;      ///< runs already finished before this session (resume)
  uint64_t requeued_infra = 0;    ///< infra runs requeued by retry_infra
  SoakCounts counts;              ///< this session
  SoakCounts campaign;            ///< the whole campaign row after this session
  std::vector<SoakCounts> boards; ///< this session, per board slot
  uint64_t deploys = 0;           ///< image deploys over all boards
  double elapsed_seconds = 0;
  std::string fatal;              ///< why the soak stopped early ("" = it did not)
  bool interrupted = false;       ///< a stop request ended it (see the contract)
  uint64_t abandoned = 0;         ///< running runs abandoned by a second stop request
  std::vector<ControlResult> controls;  ///< every round run or stored, round then spec order
  std::vector<BoardHealthReport> health;  ///< per board slot
  std::string log_error;          ///< the log could not be opened ("" = it was, or none asked)
  /// The boards quarantined at the end, "NAME (reason)" each.
  std::vector<std::string> quarantined() const {
    std::vector<std::string> q;
    for (const BoardHealthReport& h : health) {
      if (h.quarantined) q.push_back(h.board + " (" + h.reason + ")");
    }
    return q;
  }
  /// A control failed: the campaign proves nothing, whatever its draws show.
  bool unsound() const {
    for (const ControlResult& c : controls) {
      if (!c.passed) return true;
    }
    return false;
  }
};

using SoakProgressFn = std::function<void(const SoakRunEvent&)>;

/// Runs (or resumes) the campaign. Status errors are usage problems found before any run
/// (bad spec, unknown campaign, database); lab problems during runs become infra runs.
Result<SoakSummary> RunSoak(const SoakOptions& options, const SoakProgressFn& progress);

}  // namespace ctte::runner
