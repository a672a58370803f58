// BoardSourceOf, AddLabFlags (see lab_source.h).
#include "tools/ctte-lab/lab_source.h"

#include <CLI/CLI.hpp>

namespace ctte::cli {

void AddLabFlags(CLI::App* sub, BoardSourceFlags* f, const std::string& what) {
  sub->add_option("--lab", f->lab,
                  "lab inventory (lab.json, docs/lab.md): " + what);
  sub->add_option("--board-name", f->board_name,
                  "with --lab: only the inventory board of this name");
}

Result<lab::net::Inventory> InventoryOf(const BoardSourceFlags& f) {
  Result<lab::net::Inventory> inv = lab::net::LoadInventory(f.lab);
  if (!inv.ok()) return Status::InvalidArgument("--lab: " + inv.status().ToString());
  if (inv->boards.empty()) return Status::InvalidArgument("--lab " + f.lab + ": no boards");
  if (inv->boards.size() > 64) return Status::InvalidArgument("--lab: at most 64 boards");
  return inv;
}

Result<runner::BoardSource> BoardSourceOf(const BoardSourceFlags& f, const lab::RemoteBoardOptions& child,
                                          unsigned local_count) {
  runner::BoardSource source;
  source.child = child;
  source.count = local_count;
  if (f.lab.empty()) {
    if (!f.board_name.empty()) {
      return Status::InvalidArgument("--board-name " + f.board_name + " needs --lab");
    }
    return source;
  }
  Result<lab::net::Inventory> inv = InventoryOf(f);
  if (!inv.ok()) return inv.status();
  std::vector<lab::net::InventoryBoard> boards = inv->boards;
  if (!f.board_name.empty()) {
    std::string names;
    std::vector<lab::net::InventoryBoard> chosen;
    for (const lab::net::InventoryBoard& b : boards) {
      names += (names.empty() ? "" : ", ") + b.name;
      if (b.name == f.board_name) chosen.push_back(b);
    }
    if (chosen.empty()) {
      return Status::InvalidArgument("--board-name " + f.board_name + ": no such board in " +
                                     f.lab + " (it names " + names + ")");
    }
    boards = chosen;
  }
  for (const lab::net::InventoryBoard& b : boards) source.names.push_back(b.name);
  source.open = [boards, child](unsigned slot) {
    return lab::net::OpenInventoryBoard(boards.at(slot), child);
  };
  return source;
}

}  // namespace ctte::cli
