#include "runner/run_status.h"

namespace ctte::runner {

const char* RunStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::kGreen: return "green";
    case RunStatus::kRed: return "red";
    case RunStatus::kInvalid: return "invalid";
    case RunStatus::kInfra: return "infra";
  }
  return "infra";
}

std::optional<RunStatus> ParseRunStatus(std::string_view text) {
  for (RunStatus s : {RunStatus::kGreen, RunStatus::kRed, RunStatus::kInvalid, RunStatus::kInfra}) {
    if (text == RunStatusName(s)) return s;
  }
  return std::nullopt;
}

const char* InfraCauseName(InfraCause c) {
  switch (c) {
    case InfraCause::kNone: return "none";
    case InfraCause::kPrepare: return "prepare";
    case InfraCause::kDeploy: return "deploy";
    case InfraCause::kIdentity: return "identity";
    case InfraCause::kClock: return "clock";
    case InfraCause::kClosureGate: return "closure_gate";
    case InfraCause::kBoardDied: return "board_died";
    case InfraCause::kBoardTimeout: return "board_timeout";
    case InfraCause::kBoardError: return "board_error";
    case InfraCause::kManifestMismatch: return "manifest_mismatch";
    case InfraCause::kRingCapacity: return "ring_capacity";
  }
  return "none";
}

bool IsRetryable(InfraCause c) {
  return c != InfraCause::kNone && c != InfraCause::kPrepare && c != InfraCause::kClosureGate &&
         c != InfraCause::kManifestMismatch && c != InfraCause::kRingCapacity;
}

}  // namespace ctte::runner
