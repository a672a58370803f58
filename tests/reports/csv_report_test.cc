#include "reports/csv_report.h"

#include <gtest/gtest.h>

#include "reports/text_format.h"
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

TEST(CsvReportTest, FixtureMatchesGolden) {
  testing::ExpectGolden("fixture.csv", RenderCsv(FixtureModel()));
}

TEST(CsvReportTest, OneRowPerRunPlusHeader) {
  const std::string csv = RenderCsv(FixtureModel());
  size_t rows = 0;
  for (size_t p = 0; (p = csv.find("\r\n", p)) != std::string::npos; p += 2) ++rows;
  EXPECT_EQ(rows, 1u + 6u);  // replays are not campaign runs
}

TEST(CsvReportTest, FieldsWithCommasQuotesOrNewlinesAreQuoted) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
}

}  // namespace
}  // namespace ctte::reports
