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
