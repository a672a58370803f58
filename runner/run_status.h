// The classification of one run, owned by the runner (DESIGN.md section 5, docs/verdicts.md):
// RunStatus says what the run was, InfraCause says (for an infra run) which step of the lab
// failed. Retry policy (soak) and reports switch on these enums, never on message text; the
// human text travels beside them as RunOutcome::status_reason.
//
// The database stores the status as text (runs.status); db/records.h keeps its own column-level
// vocabulary (which adds "planned" for drawn rows that have not run) and runner/outcome.h maps
// between the two at the db edge.
#pragma once

#include <optional>
#include <string_view>

namespace ctte::runner {

enum class RunStatus {
  kGreen,    ///< no verdict failed
  kRed,      ///< a verdict failed, or the design fired an RTL assertion
  kInvalid,  ///< the measurement was unsound (ring wrapped, clock outside tolerance)
  kInfra,    ///< the lab failed (see InfraCause)
};
const char* RunStatusName(RunStatus status);  ///< "green", "red", "invalid", "infra"
std::optional<RunStatus> ParseRunStatus(std::string_view text);

/// Why a run is infra. kNone for every other status.
enum class InfraCause {
  kNone,
  kPrepare,       ///< the config could not be planned (file, field): a fresh board repeats it
  kDeploy,        ///< the board refused or failed the deploy, or the receipt did not match
  kIdentity,      ///< Identify() failed or reports another image than the one deployed
  kClock,         ///< setting or reading back a clock failed
  kClosureGate,   ///< fabric clock above the image's fmax: refused, a fresh board repeats it
  kBoardDied,     ///< the board process died (lab::FailureKind::kBoardDied)
  kBoardTimeout,  ///< the board did not answer in time (lab::FailureKind::kBoardTimeout)
  kBoardError,    ///< any other failure the board or the protocol reported during the run
  /// The loaded design's identity registers (ctteCaps, ctteProfile's xlen) disagree with the
  /// manifest: the manifest was edited or belongs to another image. A fresh board repeats it.
  kManifestMismatch,
  /// The plan asks for a larger capture ring than the board reports it can hold
  /// (lab::BoardIdentity::max_ring_bytes): refused before the run; a fresh board repeats it.
  kRingCapacity,
};
const char* InfraCauseName(InfraCause cause);  ///< "none", "prepare", "deploy", ...

/// True when a fresh board could change the outcome (soak retries these once).
bool IsRetryable(InfraCause cause);

}  // namespace ctte::runner
