#include "reports/infra_text.h"

#include <gtest/gtest.h>

#include "tests/reports/report_fixture.h"

namespace ctte::reports {
namespace {

TEST(InfraTextTest, OneLinePerBoardThenTotals) {
  const std::string t = RenderInfrastructureText(testing::FixtureModel().infrastructure);
  EXPECT_TRUE(t.starts_with("Infrastructure (per board; replays excluded)\n")) << t;
  EXPECT_NE(t.find("  1      remote:sim     sim-a                 3      2        2       2"
                   "         2\n"),
            std::string::npos) << t;
  EXPECT_NE(t.find("  total                                       6      3        2       3"
                   "         2\n"),
            std::string::npos) << t;
}

TEST(InfraTextTest, NoBoardsSaysSo) {
  EXPECT_NE(RenderInfrastructureText({}).find("(no finished runs)"), std::string::npos);
}

}  // namespace
}  // namespace ctte::reports

#include "reports/control_table.h"

namespace ctte::reports {
namespace {

// One typed reader of stored control runs (#29: the runner and the reports parsed them apart,
// and a marker field of the wrong type threw out of `history` and `show`).
TEST(ControlRowTest, FieldsOfTheWrongTypeReadAsAbsent) {
  db::RunRow row;
  row.id = 7;
  row.run.status = db::RunStatus::kRed;
  row.run.config_json =
      R"({"image": "mutant-x", "control": {"name": "m", "round": "x", "shard": 5,
          "expect_red": ["decode_integrity", 1]}})";
  row.run.metrics_json = R"({"control": {"passed": "yes", "observed_red": "d", "reason": 7}})";
  const std::optional<ControlRow> r = ControlRowOf(row);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->name, "m");
  EXPECT_EQ(r->image, "mutant-x");
  EXPECT_EQ(r->round, 0u);
  EXPECT_EQ(r->shard, "");
  EXPECT_EQ(r->expect_red, std::vector<std::string>{"decode_integrity"});
  EXPECT_FALSE(r->passed);  // only true passes
  EXPECT_TRUE(r->observed_red.empty());
  EXPECT_EQ(r->reason, "");

  row.run.config_json =
      R"({"image": "ntrace-slim", "control": {"name": "clean", "round": 2, "shard": "1/3",
          "expect_red": []}})";
  row.run.metrics_json = R"({"control": {"passed": true, "observed_red": [], "reason": ""}})";
  const std::optional<ControlRow> good = ControlRowOf(row);
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(good->round, 2u);
  EXPECT_EQ(good->shard, "1/3");
  EXPECT_TRUE(good->passed);
  row.run.metrics_json = "{}";
  EXPECT_EQ(ControlRowOf(row)->reason, "no control result stored");
  row.run.config_json = R"({"image": "ntrace-slim"})";
  EXPECT_FALSE(ControlRowOf(row).has_value());  // a draw
  row.run.config_json = "[1]";
  EXPECT_FALSE(ControlRowOf(row).has_value());
}

// A board whose control failed is not trusted: the draws it ran are counted unproven; a board
// whose controls passed, and draws without a board, are not.
TEST(ControlRowTest, TheDrawsOfABoardWhoseControlFailedAreUnproven) {
  const auto control = [](const std::string& board, bool passed) {
    ControlRow c;
    c.name = passed ? "clean" : "silent-drop";
    c.board = board;
    c.passed = passed;
    return c;
  };
  const std::vector<ControlRow> controls = {control("board-a", true), control("board-c", true),
                                            control("board-c", false)};
  std::vector<db::RunRow> rows;
  for (int64_t b : {1, 2, 2, 2, 1}) {
    db::RunRow r;
    r.run.status = db::RunStatus::kGreen;
    r.run.board_id = b;
    r.run.config_json = R"({"image": "ntrace-slim"})";
    rows.push_back(r);
  }
  rows[4].run.replay_of = 3;  // a replay is not a draw
  db::RunRow no_board;
  no_board.run.status = db::RunStatus::kGreen;
  rows.push_back(no_board);
  const auto name = [](int64_t id) { return id == 1 ? std::string("board-a") : std::string("board-c"); };
  const std::vector<UntrustedBoard> u = UntrustedBoards(controls, rows, name);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].board, "board-c");
  EXPECT_EQ(u[0].failed_controls, 1u);
  EXPECT_EQ(u[0].controls, 2u);
  EXPECT_EQ(u[0].unproven_draws, 3u);
  EXPECT_EQ(FormatUntrusted(u),
            "board-c: 1 of 2 controls failed there: its 3 draws are unproven (the board is not "
            "trusted for this campaign)\n");
  EXPECT_TRUE(UntrustedBoards({control("board-a", true)}, rows, name).empty());
}

}  // namespace
}  // namespace ctte::reports
