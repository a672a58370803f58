// The storage vocabularies of db/records.h: run statuses, outcomes, infra causes.
#include "db/records.h"

#include <nlohmann/json.hpp>

namespace ctte::db {

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kPlanned: return "planned";
    case RunStatus::kGreen: return "green";
    case RunStatus::kRed: return "red";
    case RunStatus::kInvalid: return "invalid";
    case RunStatus::kInfra: return "infra";
  }
  return "?";
}

std::optional<RunStatus> ParseRunStatus(std::string_view text) {
  for (RunStatus s : {RunStatus::kPlanned, RunStatus::kGreen, RunStatus::kRed,
                      RunStatus::kInvalid, RunStatus::kInfra}) {
    if (text == RunStatusName(s)) return s;
  }
  return std::nullopt;
}

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kNotApplicable: return "n/a";
  }
  return "?";
}

std::optional<Outcome> ParseOutcome(std::string_view text) {
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kNotApplicable}) {
    if (text == OutcomeName(o)) return o;
  }
  return std::nullopt;
}

const char* InfraCauseName(InfraCause cause) {
  switch (cause) {
    case InfraCause::kBoardDied: return "board_died";
    case InfraCause::kBoardTimeout: return "board_timeout";
    case InfraCause::kDeploy: return "deploy";
    case InfraCause::kClosureGate: return "closure_gate";
    case InfraCause::kPrepare: return "prepare";
    case InfraCause::kProtocol: return "protocol";
    case InfraCause::kDatabase: return "database";
    case InfraCause::kInterrupted: return "interrupted";
    case InfraCause::kOther: return "other";
    case InfraCause::kIdentity: return "identity";
    case InfraCause::kClock: return "clock";
    case InfraCause::kBoardError: return "board_error";
    case InfraCause::kManifestMismatch: return "manifest_mismatch";
    case InfraCause::kRingCapacity: return "ring_capacity";
  }
  return "other";
}

std::optional<InfraCause> ParseInfraCause(std::string_view text) {
  for (InfraCause c : {InfraCause::kBoardDied, InfraCause::kBoardTimeout, InfraCause::kDeploy,
                       InfraCause::kClosureGate, InfraCause::kPrepare, InfraCause::kProtocol,
                       InfraCause::kDatabase, InfraCause::kInterrupted, InfraCause::kOther,
                       InfraCause::kIdentity, InfraCause::kClock, InfraCause::kBoardError,
                       InfraCause::kManifestMismatch, InfraCause::kRingCapacity}) {
    if (text == InfraCauseName(c)) return c;
  }
  return std::nullopt;
}

std::string StatusReasonOf(std::string_view metrics_json) {
  const nlohmann::json m = nlohmann::json::parse(metrics_json, nullptr, /*allow_exceptions=*/false);
  if (!m.is_object()) return "";
  const auto it = m.find("status_reason");
  return it != m.end() && it->is_string() ? it->get<std::string>() : "";
}

bool IsBoardDeath(std::string_view infra_cause) {
  return infra_cause == InfraCauseName(InfraCause::kBoardDied) ||
         infra_cause == InfraCauseName(InfraCause::kBoardTimeout);
}
}  // namespace ctte::db
