// Failure kinds: which harness failures a caller must tell apart, carried as data.
//
// A board failure is a Status (lab/board.h). Most callers only show it; the runner must also
// know *what kind* of failure it was: an RTL assertion (the design under test broke a standing
// invariant; the runner decides what that means for the run), a board death or hang (the board
// is gone: infrastructure), or anything else. The kind is set where the failure is detected
// (the image driver for assertions, RemoteBoard for deaths and timeouts, FrameReader for a
// stream that ends inside a frame), travels in the Status as its detail (domain "lab.failure")
// and in the board protocol's error object as "kind" (docs/board-protocol.md). It is never
// inferred from the message text, which stays free for people.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace ctte::lab {

/// Stable values: they are the Status detail of domain kFailureDomain. Never renumber.
enum class FailureKind {
  kNone = 0,             ///< ok, or no failure at all
  kRtlAssertion = 1,     ///< the design fired an assertion, $fatal or $stop
  kBoardDied = 2,        ///< the board process died (signal, exit) or closed its stream
  kBoardTimeout = 3,     ///< the board did not answer in time (and was killed)
  kStreamTruncated = 4,  ///< the byte stream ended inside a frame (FrameReader)
  kOther = 5,            ///< any other harness failure: bad input, a refused image, protocol
};

/// The Status detail domain of FailureKind.
inline constexpr char kFailureDomain[] = "lab.failure";

/// `s` (not OK) marked as a failure of `kind`.
Status WithFailureKind(Status s, FailureKind kind);
/// The kind a Status carries: kNone for OK, kOther for a failure that names no kind.
FailureKind ClassifyFailure(const Status& s);

/// The protocol's names: "rtl_assertion", "board_died", "board_timeout", "stream_truncated",
/// "other" ("none" for kNone).
const char* FailureKindName(FailureKind kind);
/// Inverse of FailureKindName; an unknown name is kOther (a newer peer's kind).
FailureKind ParseFailureKind(std::string_view name);

/// "RTL assertion: <message>" (code Internal, kind kRtlAssertion).
Status RtlAssertionError(const std::string& message);
/// "board died: <how>; stderr: <tail>" (code Unavailable, kind kBoardDied).
Status BoardDiedError(const std::string& how);
/// "board timeout after N s (<op>)" (code Timeout, kind kBoardTimeout).
Status BoardTimeoutError(const std::string& what);
/// The message as given (code Corruption, kind kStreamTruncated).
Status StreamTruncatedError(const std::string& message);

}  // namespace ctte::lab
