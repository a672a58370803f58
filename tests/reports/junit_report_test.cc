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

}  // namespace
}  // namespace ctte::reports
