#include "reports/infra_text.h"

#include <cinttypes>
#include <cstdio>

namespace ctte::reports {
namespace {

std::string Line(const std::string& board, const std::string& kind, const std::string& serial,
                 const db::BoardInfraCounts& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "  %-6s %-14s %-16s %6" PRIu64 " %6" PRIu64 " %8" PRIu64 " %7" PRIu64
                " %9" PRIu64 "\n",
                board.c_str(), kind.c_str(), serial.c_str(), c.runs, c.infra_attempts, c.retries,
                c.deaths, c.respawns);
  return buf;
}

}  // namespace

std::string RenderInfrastructureText(const std::vector<db::BoardInfraCounts>& boards) {
  std::string out =
      "Infrastructure (per board; replays excluded)\n"
      "  runs: stored on the board; infra: attempts that failed in the lab; retries: attempts\n"
      "  tried again; deaths: board died or timed out; respawns: board process replaced\n";
  char head[256];
  std::snprintf(head, sizeof head, "  %-6s %-14s %-16s %6s %6s %8s %7s %9s\n", "board", "kind",
                "serial", "runs", "infra", "retries", "deaths", "respawns");
  out += head;
  db::BoardInfraCounts total;
  for (const db::BoardInfraCounts& b : boards) {
    out += Line(b.board_id ? std::to_string(*b.board_id) : "-", b.kind, b.serial, b);
    total.runs += b.runs;
    total.infra_attempts += b.infra_attempts;
    total.retries += b.retries;
    total.deaths += b.deaths;
    total.respawns += b.respawns;
  }
  if (boards.empty()) return out + "  (no finished runs)\n";
  return out + Line("total", "", "", total);
}

}  // namespace ctte::reports
