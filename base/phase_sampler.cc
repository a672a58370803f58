// PhaseSampler: SIGPROF ticks counted per current phase (see phase_sampler.h).
#include "base/phase_sampler.h"

#include <sys/time.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace ctte::phase {

volatile std::sig_atomic_t g_current = kOther;

namespace {
// Written by the signal handler, read after Stop(): lock-free atomics are signal-safe.
std::array<std::atomic<uint64_t>, kCount> g_ticks;
std::atomic<bool> g_active{false};

void OnTick(int) {
  const int p = g_current;
  if (p >= 0 && p < kCount) g_ticks[static_cast<size_t>(p)].fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

const char* PhaseName(Phase p) {
  switch (p) {
    case kOther: return "other";
    case kModel: return "model";
    case kBoardIss: return "board_iss";
    case kBoardHarness: return "board_harness";
    case kPrepare: return "prepare";
    case kJudge: return "judge";
    case kCount: break;
  }
  return "?";
}

PhaseSampler::~PhaseSampler() { Stop(); }

Status PhaseSampler::Start(uint32_t period_us) {
  if (running_ || g_active.exchange(true)) {
    return Status::Unavailable("PhaseSampler: a sampler is already running");
  }
  for (auto& t : g_ticks) t.store(0);
  struct sigaction sa {};
  sa.sa_handler = OnTick;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (::sigaction(SIGPROF, &sa, &previous_) != 0) {
    g_active = false;
    return Status::Internal(std::string("PhaseSampler: sigaction(SIGPROF): ") +
                            std::strerror(errno));
  }
  itimerval tv{};
  tv.it_interval.tv_sec = period_us / 1'000'000;
  tv.it_interval.tv_usec = static_cast<suseconds_t>(period_us % 1'000'000);
  tv.it_value = tv.it_interval;
  if (::setitimer(ITIMER_PROF, &tv, nullptr) != 0) {
    const int err = errno;
    ::sigaction(SIGPROF, &previous_, nullptr);
    g_active = false;
    return Status::Internal(std::string("PhaseSampler: setitimer(ITIMER_PROF): ") +
                            std::strerror(err));
  }
  running_ = true;
  return Status::Ok();
}

void PhaseSampler::Stop() {
  if (!running_) return;
  itimerval off{};
  ::setitimer(ITIMER_PROF, &off, nullptr);
  ::sigaction(SIGPROF, &previous_, nullptr);
  running_ = false;
  g_active = false;
}

uint64_t PhaseSampler::ticks(Phase p) const {
  return p >= 0 && p < kCount ? g_ticks[static_cast<size_t>(p)].load() : 0;
}

uint64_t PhaseSampler::total_ticks() const {
  uint64_t n = 0;
  for (const auto& t : g_ticks) n += t.load();
  return n;
}

double PhaseSampler::percent(Phase p) const {
  const uint64_t n = total_ticks();
  return n == 0 ? 0.0 : 100.0 * static_cast<double>(ticks(p)) / static_cast<double>(n);
}

}  // namespace ctte::phase
