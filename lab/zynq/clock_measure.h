// Measuring a PL clock: the harness counts every cycle of the fabric clock (PL0) and of the
// sink clock (PL1) in free-running 64-bit counters (cttehFabricClock*, cttehSinkClock*); the
// board reads a counter twice, a timed window apart, and divides by the host's elapsed time.
// Each sample is bracketed by host timestamps taken just before and just after the read, so
// the true elapsed time lies in [t1_before - t0_after, t1_after - t0_before]: the measurement
// knows its own uncertainty. Of a few back-to-back reads the tightest bracket is kept; when the
// uncertainty is above `target_ppm` the window doubles (up to `max_window_ms`), else the
// measurement fails saying so. A counter that does not advance is a stopped clock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"

namespace ctte::lab::zynq {

struct ClockMeasureOptions {
  int window_ms = 40;
  int max_window_ms = 2560;
  uint64_t target_ppm = 400;  ///< below the runner's default clock tolerance (1000 ppm)
  /// Tests may replace the clock and the sleep; default: steady_clock, sleep_for.
  std::function<double()> now_seconds;
  std::function<void(int ms)> sleep;
};

struct ClockMeasurement {
  uint64_t hz = 0;              ///< cycles / elapsed, rounded to whole Hz
  uint64_t uncertainty_ppm = 0; ///< half the bracket's width relative to hz
  int window_ms = 0;
};

/// Reads the 64-bit counter once, calling `mark` just before and just after the read that
/// samples it (ReadCounter64 does).
using CounterReader = std::function<Result<uint64_t>(const std::function<void()>& mark)>;

/// `what` names the clock in errors. Unavailable when the counter does not advance (the clock
/// is stopped) or the uncertainty stays above target at the largest window.
Result<ClockMeasurement> MeasureClock(const CounterReader& read_counter, const std::string& what,
                                      const ClockMeasureOptions& o = {});

/// A 64-bit counter from two 32-bit registers without tearing: Hi, Lo, Hi again, retried
/// (at most 4 times) while Hi changed; `around_lo` runs just before and just after Lo's read.
Result<uint64_t> ReadCounter64(const std::function<Result<uint32_t>(bool hi)>& read,
                               const std::function<void()>& around_lo = {});

}  // namespace ctte::lab::zynq
