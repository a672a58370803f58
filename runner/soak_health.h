// The soak worker's board health (internal to runner/soak*.cc; the rules are
// runner/board_health.h): counts a board's infra failures in a row, hands a run to another
// board with its attempts, keeps the soak's known-green configuration, and quarantines a board
// until a health check re-admits it or the soak ends. The worker supplies the health check
// itself (reopen its board, run a configuration), since it owns the board.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runner/soak_worker.h"

namespace ctte::runner::soak_internal {

class BoardHealth {
 public:
  BoardHealth(Shared* shared, unsigned slot, std::string name)
      : s_(shared), slot_(slot), name_(std::move(name)) {}

  /// Counts a board infra failure (a retryable cause), or resets the count (green, red,
  /// invalid). Other infra (a refusal a fresh board would repeat) leaves it.
  void Note(const RunOutcome& out);
  /// The board cannot be reopened: it is to be quarantined now.
  void Lost(const std::string& why) { reason_ = "cannot reopen: " + why; lost_ = true; }
  /// K failures in a row, or lost.
  bool QuarantineDue() const;

  /// The earlier attempts of a run another board handed over (once).
  std::vector<RunAttempt> TakeHanded(uint64_t index);
  /// Gives run `index` (with its attempts) back to the scheduler for another board.
  void Handoff(uint64_t index, std::vector<RunAttempt> attempts);
  /// Keeps the shortest green run as the health-check configuration.
  void NoteGreen(const RunConfig& config, const RunOutcome& out);
  /// The health-check configuration and its stream SHA-256 (counts one health check); nullopt
  /// before any run was green.
  std::optional<std::pair<RunConfig, std::string>> HealthConfig();

  /// Calls the seam (HealthOptions::before_quarantine), quarantines the board, and waits until
  /// `check` (one health check) passes, or the soak has nothing left; stops the soak when every
  /// board is quarantined.
  void Quarantine(const std::function<bool()>& check);

 private:
  Shared* s_;
  unsigned slot_;
  std::string name_;
  unsigned consecutive_ = 0;
  bool lost_ = false;
  std::string reason_;
};

}  // namespace ctte::runner::soak_internal
