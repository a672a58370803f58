#include "reports/junit_report.h"

#include <gtest/gtest.h>

#include "tests/reports/report_fixture.h"

namespace ctte::reports {
namespace {

TEST(JUnitReportTest, FixtureMatchesGolden) {
  testing::ExpectGolden("fixture.junit.xml", RenderJUnit(testing::FixtureModel()));
}

TEST(JUnitReportTest, OneTestcasePerRunFailuresNameRedVerdictsSkipsGiveReason) {
  const std::string x = RenderJUnit(testing::FixtureModel());
  EXPECT_EQ(testing::CountOf(x, "<testcase "), 6u);
  EXPECT_EQ(testing::CountOf(x, "<failure "), 2u);
  EXPECT_EQ(testing::CountOf(x, "<skipped "), 2u);
  EXPECT_NE(x.find("message=\"red: post_recovery_losslessness, flush_completeness\""),
            std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"infra: board died: signal 9 (SIGKILL)\"/>"),
            std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"invalid: capture ring wrapped"), std::string::npos);
  EXPECT_NE(x.find("tests=\"6\" failures=\"2\" errors=\"0\" skipped=\"2\""), std::string::npos);
}

TEST(JUnitReportTest, EvidenceIsEscaped) {
  const std::string x = RenderJUnit(testing::FixtureModel());
  EXPECT_NE(x.find("&lt;main+0x44&gt; &amp; &quot;quoted&quot;"), std::string::npos);
  EXPECT_EQ(x.find("<main+0x44>"), std::string::npos);
}

TEST(JUnitReportTest, ARetriedThenGreenRunPassesWithANote) {
  const std::string x = RenderJUnit(testing::FixtureModel());
  const size_t at = x.find("name=\"run 4 seed ");
  ASSERT_NE(at, std::string::npos);
  const std::string tc = x.substr(at, x.find("</testcase>", at) - at);
  EXPECT_EQ(tc.find("<failure"), std::string::npos) << tc;
  EXPECT_EQ(tc.find("<skipped"), std::string::npos) << tc;
  EXPECT_NE(tc.find("<system-out>retried: passed on attempt 2\nattempt 1: infra (board_died)"),
            std::string::npos) << tc;
  EXPECT_NE(x.find("name=\"run 0 seed 0x0000000000abc000\" time=\"1.500\"/>"),
            std::string::npos);  // a green run at its first attempt stays a bare testcase
}

}  // namespace
}  // namespace ctte::reports
