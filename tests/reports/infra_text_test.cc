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

}  // namespace
}  // namespace ctte::reports
