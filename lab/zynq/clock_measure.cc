// PL clock measurement (see clock_measure.h).
#include "lab/zynq/clock_measure.h"

#include <chrono>
#include <cmath>
#include <thread>

namespace ctte::lab::zynq {

namespace {
struct Sample {
  uint64_t count = 0;
  double before = 0, after = 0;
};
}  // namespace

Result<uint64_t> ReadCounter64(const std::function<Result<uint32_t>(bool hi)>& read,
                               const std::function<void()>& around_lo) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    CTTE_ASSIGN_OR_RETURN(const uint32_t h0, read(true));
    if (around_lo) around_lo();
    CTTE_ASSIGN_OR_RETURN(const uint32_t lo, read(false));
    if (around_lo) around_lo();
    CTTE_ASSIGN_OR_RETURN(const uint32_t h1, read(true));
    if (h0 == h1) return static_cast<uint64_t>(h1) << 32 | lo;
  }
  return Status::IOError("a 64-bit counter's high word changed on every read (4 tries)");
}

Result<ClockMeasurement> MeasureClock(const CounterReader& read_counter, const std::string& what,
                                      const ClockMeasureOptions& o) {
  const auto now = o.now_seconds ? o.now_seconds : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const auto sleep = o.sleep ? o.sleep : [](int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
  const auto sample = [&]() -> Result<Sample> {
    Sample best;
    for (int i = 0; i < 5; ++i) {  // the tightest bracket of five back-to-back reads
      Sample s;
      int marks = 0;  // the bracket is around the low word's read (it holds the sample)
      CTTE_ASSIGN_OR_RETURN(s.count, read_counter([&] {
        (marks++ % 2 == 0 ? s.before : s.after) = now();
      }));
      if (i == 0 || s.after - s.before < best.after - best.before) best = s;
    }
    return best;
  };
  for (int window = o.window_ms;; window *= 2) {
    CTTE_ASSIGN_OR_RETURN(const Sample a, sample());
    sleep(window);
    CTTE_ASSIGN_OR_RETURN(const Sample b, sample());
    const uint64_t cycles = b.count - a.count;  // wraps correctly for a 64-bit counter
    if (cycles == 0) {
      return Status::Unavailable(what + " is stopped: its counter did not advance in " +
                                 std::to_string(window) + " ms (clock gated, CLKACT off, or "
                                 "the PL not clocked)");
    }
    const double lo = b.before - a.after, hi = b.after - a.before;
    const double mid = (b.before + b.after) / 2 - (a.before + a.after) / 2;
    if (lo > 0 && mid > 0) {
      const double hz = static_cast<double>(cycles) / mid;
      const double ppm = (hi - lo) / 2 / mid * 1e6;
      if (ppm <= static_cast<double>(o.target_ppm)) {
        ClockMeasurement m;
        m.hz = static_cast<uint64_t>(std::llround(hz));
        m.uncertainty_ppm = static_cast<uint64_t>(std::ceil(ppm));
        m.window_ms = window;
        return m;
      }
    }
    if (window * 2 > o.max_window_ms) {
      return Status::Unavailable(what + ": no measurement within " +
                                 std::to_string(o.target_ppm) + " ppm up to a " +
                                 std::to_string(window) + " ms window (register reads too slow "
                                 "or the host too busy)");
    }
  }
}

}  // namespace ctte::lab::zynq
