// Failure kinds (see failure.h): the Status detail of domain "lab.failure" and its names.
#include "lab/failure.h"

namespace ctte::lab {

namespace {
constexpr FailureKind kKinds[] = {FailureKind::kNone,         FailureKind::kRtlAssertion,
                                  FailureKind::kBoardDied,    FailureKind::kBoardTimeout,
                                  FailureKind::kStreamTruncated, FailureKind::kOther};
}  // namespace

Status WithFailureKind(Status s, FailureKind kind) {
  return std::move(s).WithDetail(kFailureDomain, static_cast<int>(kind));
}

FailureKind ClassifyFailure(const Status& s) {
  if (s.ok()) return FailureKind::kNone;
  const int d = s.detail(kFailureDomain);
  for (FailureKind k : kKinds) {
    if (k != FailureKind::kNone && static_cast<int>(k) == d) return k;
  }
  return FailureKind::kOther;
}

const char* FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kNone: return "none";
    case FailureKind::kRtlAssertion: return "rtl_assertion";
    case FailureKind::kBoardDied: return "board_died";
    case FailureKind::kBoardTimeout: return "board_timeout";
    case FailureKind::kStreamTruncated: return "stream_truncated";
    case FailureKind::kOther: return "other";
  }
  return "other";
}

FailureKind ParseFailureKind(std::string_view name) {
  for (FailureKind k : kKinds) {
    if (k != FailureKind::kNone && name == FailureKindName(k)) return k;
  }
  return FailureKind::kOther;
}

Status RtlAssertionError(const std::string& message) {
  return WithFailureKind(Status::Internal("RTL assertion: " + message), FailureKind::kRtlAssertion);
}

Status BoardDiedError(const std::string& how) {
  return WithFailureKind(Status::Unavailable("board died: " + how), FailureKind::kBoardDied);
}

Status BoardTimeoutError(const std::string& what) {
  return WithFailureKind(Status::Timeout("board timeout after " + what),
                         FailureKind::kBoardTimeout);
}

Status StreamTruncatedError(const std::string& message) {
  return WithFailureKind(Status::Corruption(message), FailureKind::kStreamTruncated);
}

}  // namespace ctte::lab
