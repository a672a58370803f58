// The storage vocabularies of db/records.h: run statuses, outcomes, infra causes.
#include "db/records.h"

#include <nlohmann/json.hpp>

#include <cstdint>

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

namespace {

std::string StringAt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> StringsAt(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

std::optional<StoredControl> StoredControlOf(const RunRow& row) {
  if (row.run.replay_of) return std::nullopt;
  const nlohmann::json c = nlohmann::json::parse(row.run.config_json, nullptr, false);
  if (!c.is_object()) return std::nullopt;
  const auto marker = c.find("control");
  if (marker == c.end() || !marker->is_object()) return std::nullopt;
  StoredControl r;
  r.name = StringAt(*marker, "name");
  r.image = StringAt(c, "image");
  const auto round = marker->find("round");
  if (round != marker->end() && round->is_number_unsigned() && round->get<uint64_t>() <= UINT32_MAX) {
    r.round = static_cast<uint32_t>(round->get<uint64_t>());
  }
  r.shard = StringAt(*marker, "shard");
  r.expect_red = StringsAt(*marker, "expect_red");
  const nlohmann::json m = nlohmann::json::parse(row.run.metrics_json, nullptr, false);
  const auto result = m.is_object() ? m.find("control") : m.end();
  if (m.is_object() && result != m.end() && result->is_object()) {
    r.has_result = true;
    const auto passed = result->find("passed");
    r.passed = passed != result->end() && passed->is_boolean() && passed->get<bool>();
    r.observed_red = StringsAt(*result, "observed_red");
    r.reason = StringAt(*result, "reason");
    r.board = StringAt(*result, "board");
  }
  return r;
}

std::string StoredBoardName(const BoardRecord& board) {
  const nlohmann::json info = nlohmann::json::parse(board.info_json, nullptr, false);
  return info.is_object() ? StringAt(info, "name") : std::string();
}

bool IsBoardDeath(std::string_view infra_cause) {
  return infra_cause == InfraCauseName(InfraCause::kBoardDied) ||
         infra_cause == InfraCauseName(InfraCause::kBoardTimeout);
}
}  // namespace ctte::db
