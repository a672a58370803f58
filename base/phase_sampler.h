// Where the host time goes, measured by sampling: code marks what the process is doing now
// (phase::Scope, one store on entry and one on exit, so it can sit in a per-cycle loop), and a
// PhaseSampler counts, on a SIGPROF timer of process CPU time, which phase each tick found.
// The share of ticks per phase is the share of CPU time, unaffected by other processes on the
// machine and without the cost of reading a clock around every call (timing each eval() of the
// Verilator model that way cost more than the eval itself).
//
// Process-wide, one thread: the current phase is one global, so only a single-threaded program
// (the benches in bench/) gets a meaningful split. Without a running sampler a Scope costs two
// stores and nothing reads them.
#pragma once

#include <array>
#include <csignal>
#include <cstdint>

#include "base/status.h"

namespace ctte::phase {

enum Phase : int {
  kOther = 0,
  kModel,         ///< inside the Verilator model's eval()
  kBoardIss,      ///< the board's core model (ISS) stepping
  kBoardHarness,  ///< the board's own loop: clocks, sink, ring, registers
  kPrepare,       ///< planning a run: draw, reference ISS + encoder
  kJudge,         ///< decoding and judging a capture
  kCount
};
const char* PhaseName(Phase p);

extern volatile std::sig_atomic_t g_current;

/// Sets the current phase for its lifetime and restores the previous one.
class Scope {
 public:
  explicit Scope(Phase p) : prev_(g_current) { g_current = p; }
  ~Scope() { g_current = prev_; }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  std::sig_atomic_t prev_;
};

/// Counts ticks per phase between Start() and Stop(). One sampler at a time per process.
class PhaseSampler {
 public:
  PhaseSampler() = default;
  ~PhaseSampler();
  PhaseSampler(const PhaseSampler&) = delete;
  PhaseSampler& operator=(const PhaseSampler&) = delete;

  /// Installs the SIGPROF handler and a profiling timer of `period_us` of process CPU time.
  Status Start(uint32_t period_us = 250);
  /// Stops the timer and restores the previous SIGPROF disposition.
  void Stop();

  uint64_t ticks(Phase p) const;
  uint64_t total_ticks() const;
  /// 100 * ticks(p) / total_ticks() (0 when nothing was sampled).
  double percent(Phase p) const;

 private:
  bool running_ = false;
  struct sigaction previous_ {};
};

}  // namespace ctte::phase
