#include "lab/request_throttle.h"

#include <algorithm>
#include <thread>
#include <utility>

namespace ctte::lab {

using Clock = std::chrono::steady_clock;

RequestThrottle::RequestThrottle(int rate, std::function<void(const std::string&)> log)
    : rate_(rate), log_(std::move(log)), tokens_(rate), last_(Clock::now()) {}

void RequestThrottle::Refill() {
  const Clock::time_point now = Clock::now();
  tokens_ = std::min<double>(rate_, tokens_ + rate_ * std::chrono::duration<double>(now - last_).count());
  last_ = now;
}

void RequestThrottle::Take() {
  if (rate_ <= 0) return;
  Refill();
  if (tokens_ < 1) {
    ++throttled_;
    std::this_thread::sleep_for(std::chrono::duration<double>((1 - tokens_) / rate_));
    Refill();
    const Clock::time_point now = Clock::now();
    if (log_ && now - logged_ >= std::chrono::seconds(1)) {
      log_("requests over " + std::to_string(rate_) + " a second (--max-request-rate): " +
           std::to_string(throttled_) + " throttled so far in this session");
      logged_ = now;
    }
  }
  tokens_ = std::max(0.0, tokens_ - 1);
}

}  // namespace ctte::lab
