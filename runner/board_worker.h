// One board slot of a command (runner/board_source.h), the one place that opens, registers and
// reopens a board and retries a run, for the soak's draws, its controls and health checks, the
// bisection's and triage's legs, run and replay (docs/lab.md, "Board source").
//
// Contract:
//  - Open(): a local slot spawns its ctte-board child (wrapped by TEST_wrap when set); a lab slot
//    is opened by the source. Then the board is registered: Identify(), the capture ring checked
//    against the board's capacity (CheckRingCapacity), and, with a database, its row upserted
//    (kind, serial, info {"name", "version", "capabilities", "slot"}).
//  - Reopen(): a local child is respawned (the same RemoteBoard object: a TEST_wrap wrapper stays
//    valid); a lab board is closed first (an agent serves one runner at a time) and opened again.
//    A board that cannot be reopened answers every call with kBoardDied, never a null board.
//    Either way the deploy cache is forgotten and the board registered again.
//  - Run(execute): runs `execute` on the SoakBoard; an infra outcome a fresh board might not
//    repeat (IsRetryable) is kept as an attempt, the board reopened and `execute` run once more.
//    One rule for every caller.
//  - deploys() counts image deploys over every board this worker held.
//
// Threading: one thread uses a BoardWorker; Kill() may be called from another.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/database.h"
#include "lab/board.h"
#include "lab/remote_board.h"
#include "runner/board_source.h"
#include "runner/outcome.h"
#include "runner/soak_boards.h"

namespace ctte::runner {

class BoardWorker {
 public:
  /// `db` may be null (no board rows); `ring_bytes` is the capture ring the runs will ask for.
  BoardWorker(const BoardSource& source, unsigned slot, db::Database* db, uint64_t ring_bytes);
  ~BoardWorker();
  BoardWorker(const BoardWorker&) = delete;
  BoardWorker& operator=(const BoardWorker&) = delete;

  Status Open();
  Status Reopen();
  /// Shuts the board down (a local child exits; a lab board's session ends).
  void Close();
  /// Kills a local child now (another thread: a second stop request); lab boards: nothing.
  void Kill();

  bool is_open() const { return board_ != nullptr; }
  SoakBoard& board() { return *board_; }
  int64_t board_id() const { return board_id_; }
  const lab::BoardIdentity& identity() const { return identity_; }
  const std::string& name() const { return name_; }
  unsigned slot() const { return slot_; }
  uint64_t deploys() const;

  /// Runs `execute` with the one retry rule (see the contract). `attempts` (may be null) gets
  /// the failed first attempt.
  RunOutcome Run(const std::function<RunOutcome(SoakBoard&)>& execute,
                 std::vector<RunAttempt>* attempts, const std::string& started_at);

 private:
  Status Register();

  const BoardSource& source_;
  unsigned slot_;
  db::Database* db_;
  uint64_t ring_bytes_;
  std::string name_;
  std::unique_ptr<lab::RemoteBoard> child_;  // local slot
  std::unique_ptr<lab::Board> opened_;       // lab slot
  std::unique_ptr<lab::Board> wrapped_;      // TEST_wrap's wrapper of the local child
  std::unique_ptr<SoakBoard> board_;
  std::atomic<pid_t> pid_{-1};
  lab::BoardIdentity identity_;
  int64_t board_id_ = 0;
  uint64_t retired_deploys_ = 0;
};

/// The first slot of `source` (but `skip`) whose board's identity `match`es: each board is
/// opened, identified and closed in turn, the slot named `name_hint` first. NotFound saying
/// `wanted` and what each board reported (or why it could not be opened).
Result<unsigned> FindBoardSlot(const BoardSource& source,
                               const std::function<bool(const lab::BoardIdentity&)>& match,
                               const std::string& wanted, const std::string& name_hint = "",
                               std::optional<unsigned> skip = std::nullopt);
/// The slot whose board reports identity (`kind`, `serial`).
Result<unsigned> FindBoardSlot(const BoardSource& source, const std::string& kind,
                               const std::string& serial, const std::string& name_hint);

/// The boards of one command, one BoardWorker per slot of its source, each registering through
/// its own Database connection (none when db_path is ""). The soak opens them once: its
/// controls and its draws then run on the same sessions (a lab board is not given back to the
/// lab, where another runner could take it, between the two).
class BoardSet {
 public:
  BoardSet(const BoardSource& source, const std::string& db_path, uint64_t ring_bytes);
  unsigned size() const { return static_cast<unsigned>(workers_.size()); }
  /// The worker of `slot`, opened first when it is not open (its Open() status).
  Result<BoardWorker*> Opened(unsigned slot);
  /// The worker of `slot`, open or not.
  BoardWorker& at(unsigned slot) { return *workers_.at(slot); }
  void CloseAll();

 private:
  std::vector<std::unique_ptr<db::Database>> dbs_;
  std::vector<std::unique_ptr<BoardWorker>> workers_;
  std::vector<Status> db_status_;
};

}  // namespace ctte::runner
