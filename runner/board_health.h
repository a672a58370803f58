// Board health in a soak (docs/lab.md "Health and quarantine").
//
//  - A board whose runs end in K infrastructure failures in a row (board died or hung, protocol
//    errors, a refused deploy: the retryable causes, IsRetryable) is quarantined:
//    HealthOptions::quarantine_after = K (`--quarantine-after K`, default 3; 0 = never). A board
//    that cannot be reopened at all (its agent is gone) is quarantined at once. The run it
//    held, when another board is active, goes back to the scheduler with its failed attempts and
//    is retried there; otherwise it is stored as infra.
//  - Before a board is quarantined, HealthOptions::before_quarantine is called (the seam for a
//    power-cycle, issue 18). When it returns true (it brought the board back), a health check
//    runs at once and, if it passes, the board stays in service.
//  - A quarantined board takes no runs. Its worker tries a health check health_check_after
//    seconds after the quarantine (`--health-check-after S`, default 30) and again every S
//    seconds while the soak has runs left: reopen the board, run the soak's known-green
//    configuration (the shortest green run of this soak so far) and compare its stream SHA-256;
//    equal and green re-admits the board. Health checks are not stored as runs.
//  - When every board is quarantined the soak stops (SoakSummary::fatal "every board is
//    quarantined: ..."), having stored every run it finished.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ctte::runner {

struct QuarantineRequest {
  unsigned slot = 0;
  std::string board;       ///< the inventory name, or "board N"
  std::string reason;      ///< the last failure
  unsigned consecutive = 0;  ///< infra failures in a row
};

struct HealthOptions {
  unsigned quarantine_after = 3;
  double health_check_after_seconds = 30;
  /// Called before a board is quarantined, on its worker's thread. True: the hook recovered the
  /// board (e.g. power-cycled it); a health check then decides.
  std::function<bool(const QuarantineRequest&)> before_quarantine;
};

/// One board's health over the soak (SoakSummary::health, per slot).
struct BoardHealthReport {
  std::string board;
  bool quarantined = false;   ///< at the end of the soak
  uint64_t quarantines = 0;   ///< times it was quarantined
  uint64_t health_checks = 0; ///< health-check runs tried
  uint64_t readmissions = 0;  ///< health checks that passed
  std::string reason;         ///< why it was last quarantined
};

}  // namespace ctte::runner
