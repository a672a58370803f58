// A session's request rate (ServerOptions::max_requests_per_second, docs/lab.md "Limits"): a
// token bucket holding one second's worth, refilled continuously. Take() sleeps until a token is
// there, so a flood is slowed, not refused; the throttled requests are logged once a second with
// their count. One per session; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace ctte::lab {

class RequestThrottle {
 public:
  /// rate <= 0: no limit (Take() returns at once).
  RequestThrottle(int rate, std::function<void(const std::string&)> log);
  void Take();

 private:
  void Refill();
  const int rate_;
  std::function<void(const std::string&)> log_;
  double tokens_;
  std::chrono::steady_clock::time_point last_, logged_{};
  uint64_t throttled_ = 0;
};

}  // namespace ctte::lab
