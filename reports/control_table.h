// The control table of a campaign (runner/controls.h, docs/campaign-spec.md "Controls"): one row
// per stored control run, read from db rows only (config_json "control" for what the control
// expects, metrics_json "control" for the result runner/controls judged). history, show, soak
// and the HTML and JUnit reports show it first; a failed control makes the campaign UNSOUND.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/records.h"

namespace ctte::reports {

/// What db::StoredControl reads (expect_red empty: a clean control, which must be green; reason:
/// why it failed, or "no control result stored"), with the row's id and status.
struct ControlRow : db::StoredControl {
  int64_t run_id = 0;
  db::RunStatus status = db::RunStatus::kPlanned;
};

/// "R", or "R (shard I/N)" for a control a shard of a sharded soak ran.
std::string ControlRoundLabel(uint32_t round, const std::string& shard);

/// The control run's row, or nullopt for a draw (or a replay).
std::optional<ControlRow> ControlRowOf(const db::RunRow& row);
/// Every control row of `rows`, in their order (by round, then spec order).
std::vector<ControlRow> ControlRows(const std::vector<db::RunRow>& rows);
/// A failed control: the campaign measures nothing.
bool Unsound(const std::vector<ControlRow>& controls);
/// "a, b" or "-" for none.
std::string JoinVerdicts(const std::vector<std::string>& verdicts);
/// The table as text: a header, one line per control, then the campaign's control verdict
/// ("controls: 12/12 passed" or "UNSOUND: ..."). "" when there are no controls.
std::string FormatControlTable(const std::vector<ControlRow>& controls);

/// A board whose control failed in this campaign: it is not trusted, and the draws it ran are
/// unproven (its capture path or judges were not shown to work).
struct UntrustedBoard {
  std::string board;
  size_t failed_controls = 0, controls = 0;
  uint64_t unproven_draws = 0;  ///< original draws stored on that board
};
/// The boards of failed controls (by name, first failure first), with the draws of `rows` each
/// ran; `board_name` names a row's board (its boards.id) as the controls name theirs.
std::vector<UntrustedBoard> UntrustedBoards(
    const std::vector<ControlRow>& controls, const std::vector<db::RunRow>& rows,
    const std::function<std::string(int64_t board_id)>& board_name);
/// The boards' names of `db` (boards.info_json "name", else "kind serial"), for UntrustedBoards.
std::function<std::string(int64_t)> BoardNames(const db::Database& db);
/// "board-c: 1 of 7 controls failed there: its 3 draws are unproven\n" per board.
std::string FormatUntrusted(const std::vector<UntrustedBoard>& boards);

}  // namespace ctte::reports
