// The board source of a ctte-lab command (runner/board_source.h; docs/lab.md, "Board source"):
// `--lab lab.json` (the inventory's boards) with `--board-name NAME` (only that board), or local
// ctte-board children. One spelling for every command that runs something: soak, run, replay,
// bisect and triage.
#pragma once

#include <string>

#include "base/status.h"
#include "lab/net/inventory.h"
#include "lab/remote_board.h"
#include "runner/board_source.h"

namespace CLI {
class App;
}

namespace ctte::cli {

struct BoardSourceFlags {
  std::string lab;         ///< --lab: the inventory; "" = local children
  std::string board_name;  ///< --board-name: one board of the inventory; "" = all
};

/// Adds --lab and --board-name to `sub` (`what` says what runs on the board, for the help).
void AddLabFlags(CLI::App* sub, BoardSourceFlags* f, const std::string& what);

/// The source of `f`: local children (`local_count` of them, spawned with `child`) when no
/// --lab, else the inventory's boards (only --board-name's when given). InvalidArgument names
/// the flag: an unreadable inventory, an unknown board (with the inventory's names), or
/// --board-name without --lab.
Result<runner::BoardSource> BoardSourceOf(const BoardSourceFlags& f, const lab::RemoteBoardOptions& child,
                                          unsigned local_count = 1);

/// The inventory of `f.lab` (loaded again; the caller had BoardSourceOf succeed).
Result<lab::net::Inventory> InventoryOf(const BoardSourceFlags& f);

}  // namespace ctte::cli
