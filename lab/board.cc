// Board helpers: clock domain names, failure classification.
#include "lab/board.h"

namespace ctte::lab {

namespace {
constexpr const char kRtlPrefix[] = "RTL assertion: ";
constexpr const char kDiedPrefix[] = "board died: ";
constexpr const char kTimeoutPrefix[] = "board timeout after ";

bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}
}  // namespace

const char* ClockDomainName(ClockDomain d) {
  return d == ClockDomain::kFabric ? "fabric" : "sink";
}

Result<ClockDomain> ParseClockDomain(const std::string& name) {
  if (name == "fabric") return ClockDomain::kFabric;
  if (name == "sink") return ClockDomain::kSink;
  return Status::InvalidArgument("unknown clock domain '" + name + "' (fabric|sink)");
}

Status RtlAssertionError(const std::string& message) {
  return Status::Internal(kRtlPrefix + message);
}
Status BoardDiedError(const std::string& how) { return Status::Unavailable(kDiedPrefix + how); }
Status BoardTimeoutError(const std::string& what) {
  return Status::Timeout(kTimeoutPrefix + what);
}

FailureKind ClassifyFailure(const Status& s) {
  if (s.ok()) return FailureKind::kNone;
  if (s.code() == Status::Code::kInternal && StartsWith(s.message(), kRtlPrefix)) {
    return FailureKind::kRtlAssertion;
  }
  if (s.code() == Status::Code::kUnavailable && StartsWith(s.message(), kDiedPrefix)) {
    return FailureKind::kBoardDied;
  }
  if (s.code() == Status::Code::kTimeout && StartsWith(s.message(), kTimeoutPrefix)) {
    return FailureKind::kBoardTimeout;
  }
  return FailureKind::kOther;
}

}  // namespace ctte::lab
