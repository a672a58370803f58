// Control rows from db rows; the text table.
#include "reports/control_table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

namespace ctte::reports {

std::string ControlRoundLabel(uint32_t round, const std::string& shard) {
  return std::to_string(round) + (shard.empty() ? "" : " (shard " + shard + ")");
}

std::optional<ControlRow> ControlRowOf(const db::RunRow& row) {
  const std::optional<db::StoredControl> c = db::StoredControlOf(row);
  if (!c) return std::nullopt;
  ControlRow r;
  static_cast<db::StoredControl&>(r) = *c;
  r.run_id = row.id;
  r.status = row.run.status;
  if (!c->has_result) r.reason = "no control result stored";
  return r;
}

std::vector<ControlRow> ControlRows(const std::vector<db::RunRow>& rows) {
  std::vector<ControlRow> out;
  for (const db::RunRow& row : rows) {
    if (std::optional<ControlRow> r = ControlRowOf(row)) out.push_back(std::move(*r));
  }
  return out;
}

bool Unsound(const std::vector<ControlRow>& controls) {
  return std::any_of(controls.begin(), controls.end(),
                     [](const ControlRow& c) { return !c.passed; });
}

std::string JoinVerdicts(const std::vector<std::string>& verdicts) {
  if (verdicts.empty()) return "-";
  std::string s;
  for (const std::string& v : verdicts) s += (s.empty() ? "" : ", ") + v;
  return s;
}

std::string FormatControlTable(const std::vector<ControlRow>& controls) {
  if (controls.empty()) return "";
  std::string out;
  char line[1024];
  int round_width = 5;  // wider when a shard is named
  int board_width = 7;
  for (const ControlRow& c : controls) {
    round_width = std::max(round_width,
                           static_cast<int>(ControlRoundLabel(c.round, c.shard).size()));
    board_width = std::max(board_width, static_cast<int>(c.board.size()));
  }
  std::snprintf(line, sizeof line, "%-18s %-24s %-*s %-*s %-30s %-6s %s\n", "control", "image",
                round_width, "round", board_width, "board", "expected red", "result",
                "observed red (run)");
  out += line;
  size_t passed = 0;
  for (const ControlRow& c : controls) {
    passed += c.passed ? 1 : 0;
    std::snprintf(line, sizeof line, "%-18s %-24s %-*s %-*s %-30s %-6s %s (run %lld)%s%s\n",
                  c.name.c_str(), c.image.c_str(), round_width,
                  ControlRoundLabel(c.round, c.shard).c_str(), board_width,
                  c.board.empty() ? "-" : c.board.c_str(), JoinVerdicts(c.expect_red).c_str(),
                  c.passed ? "pass" : "FAIL", JoinVerdicts(c.observed_red).c_str(),
                  static_cast<long long>(c.run_id), c.passed ? "" : ": ", c.reason.c_str());
    out += line;
  }
  if (Unsound(controls)) {
    out += "UNSOUND: " + std::to_string(controls.size() - passed) + " of " +
           std::to_string(controls.size()) +
           " controls failed: the campaign's gates are not shown to fail, its draws measure "
           "nothing\n";
  } else {
    out += "controls: " + std::to_string(passed) + "/" + std::to_string(controls.size()) +
           " passed (every gate shown to fail on its mutant, the clean image green)\n";
  }
  return out;
}

std::vector<UntrustedBoard> UntrustedBoards(
    const std::vector<ControlRow>& controls, const std::vector<db::RunRow>& rows,
    const std::function<std::string(int64_t)>& board_name) {
  std::vector<UntrustedBoard> out;
  const auto find = [&out](const std::string& b) {
    return std::find_if(out.begin(), out.end(), [&b](const UntrustedBoard& u) { return u.board == b; });
  };
  for (const ControlRow& c : controls) {
    if (!c.passed && !c.board.empty() && find(c.board) == out.end()) out.push_back({c.board});
  }
  for (const ControlRow& c : controls) {
    auto u = find(c.board);
    if (u == out.end()) continue;
    ++u->controls;
    u->failed_controls += c.passed ? 0 : 1;
  }
  if (out.empty()) return out;
  for (const db::RunRow& row : rows) {
    if (row.run.replay_of || !row.run.board_id || row.run.status == db::RunStatus::kPlanned ||
        ControlRowOf(row)) {
      continue;
    }
    auto u = find(board_name(*row.run.board_id));
    if (u != out.end()) ++u->unproven_draws;
  }
  return out;
}

std::function<std::string(int64_t)> BoardNames(const db::Database& db) {
  auto cache = std::make_shared<std::map<int64_t, std::string>>();
  return [&db, cache](int64_t id) {
    auto it = cache->find(id);
    if (it != cache->end()) return it->second;
    std::string name;
    if (Result<db::BoardRecord> b = db.BoardById(id); b.ok()) {
      name = db::StoredBoardName(*b);
      if (name.empty()) name = b->kind + " " + b->serial;
    }
    return (*cache)[id] = name;
  };
}

std::string FormatUntrusted(const std::vector<UntrustedBoard>& boards) {
  std::string out;
  for (const UntrustedBoard& u : boards) {
    out += u.board + ": " + std::to_string(u.failed_controls) + " of " +
           std::to_string(u.controls) + " controls failed there: its " +
           std::to_string(u.unproven_draws) + " draws are unproven (the board is not trusted " +
           "for this campaign)\n";
  }
  return out;
}

}  // namespace ctte::reports
