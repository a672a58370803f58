// The soak's worker (internal to runner/soak.cc): one per board slot, on its own thread. It
// uses the slot's BoardWorker of the soak's BoardSet (a RemoteBoard child or a lab board,
// wrapped in a SoakBoard; opened once for the controls and the draws), its own Database
// connection, and stores each outcome with RecordRun
// (one transaction); an infra outcome is retried once on a respawned board (IsRetryable).
// Shared is what the workers of one soak have in common; its mutex guards the counters.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "db/records.h"
#include "runner/board_worker.h"
#include "runner/campaign_spec.h"
#include "runner/scheduler.h"
#include "runner/soak.h"

namespace ctte::runner::soak_internal {

using SteadyClock = std::chrono::steady_clock;

struct Shared {
  const SoakOptions* options = nullptr;
  const CampaignSpec* spec = nullptr;
  int64_t campaign_id = 0;
  Scheduler* scheduler = nullptr;
  const SoakProgressFn* progress = nullptr;
  SteadyClock::time_point start;
  uint64_t total = 0;
  std::mutex mu;  // guards counts, boards, fatal, deploys, abandoned and progress calls
  SoakCounts counts;
  std::vector<SoakCounts> boards;  // per slot
  std::string fatal;
  uint64_t deploys = 0;
  uint64_t abandoned = 0;
  std::atomic<bool> abandon{false};  // a second stop request: drop the running runs
  LogFn log;                          // the soak's log (may be empty); thread-safe
  std::vector<BoardHealthReport> health;  // per slot
  std::map<uint64_t, std::vector<RunAttempt>> handed;  // attempts of runs given back (Requeue)
  BoardSet* board_set = nullptr;      // the soak's boards (opened for its controls)
  std::optional<RunConfig> known_green;  // the shortest green run so far (health checks)
  std::string known_green_sha;
  double known_green_wall = 0;
};

/// Logs to shared.log when there is one.
void Log(Shared& shared, LogLevel level, const std::string& line);

/// Adds one run of status `s` to *c.
void Count(RunStatus s, SoakCounts* c);
/// A stored run row (never "planned") counted as its status.
void Count(db::RunStatus s, SoakCounts* c);

class SoakWorker {
 public:
  virtual ~SoakWorker() = default;
  /// Takes runs from the scheduler until it says stop; then shuts the board down.
  virtual void Run() = 0;
  /// Kills the board's child now (a second stop request); safe from another thread.
  virtual void KillBoard() = 0;
};

std::unique_ptr<SoakWorker> MakeSoakWorker(Shared* shared, unsigned slot);

}  // namespace ctte::runner::soak_internal
