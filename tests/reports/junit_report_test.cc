#include "reports/junit_report.h"

#include <gtest/gtest.h>

#include "tests/reports/report_fixture.h"

namespace ctte::reports {
namespace {

ReportModel FixtureModel() {
  const std::string path = testing::FreshPath(".db");
  testing::WriteFixture(path);
  auto d = db::Database::Open(path);
  EXPECT_TRUE(d.ok());
  auto m = BuildReportModel(**d, "fixture", ReportOptions{.db_path = "out/ctte.db"});
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

size_t CountOf(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = 0; (p = haystack.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
  return n;
}

TEST(JUnitReportTest, FixtureMatchesGolden) {
  testing::ExpectGolden("fixture.junit.xml", RenderJUnit(FixtureModel()));
}

TEST(JUnitReportTest, OneTestcasePerRunFailuresNameRedVerdictsSkipsGiveReason) {
  const std::string x = RenderJUnit(FixtureModel());
  EXPECT_EQ(CountOf(x, "<testcase "), 6u);
  EXPECT_EQ(CountOf(x, "<failure "), 2u);
  EXPECT_EQ(CountOf(x, "<skipped "), 2u);
  EXPECT_NE(x.find("message=\"red: post_recovery_losslessness, flush_completeness\""),
            std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"infra: board died: signal 9 (SIGKILL)\"/>"),
            std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"invalid: capture ring wrapped"), std::string::npos);
  EXPECT_NE(x.find("tests=\"6\" failures=\"2\" errors=\"0\" skipped=\"2\""), std::string::npos);
}

TEST(JUnitReportTest, EvidenceIsEscaped) {
  const std::string x = RenderJUnit(FixtureModel());
  EXPECT_NE(x.find("&lt;main+0x44&gt; &amp; &quot;quoted&quot;"), std::string::npos);
  EXPECT_EQ(x.find("<main+0x44>"), std::string::npos);
}

}  // namespace
}  // namespace ctte::reports
