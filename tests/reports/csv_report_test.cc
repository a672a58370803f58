#include "reports/csv_report.h"

#include <gtest/gtest.h>

#include "reports/text_format.h"
#include "tests/reports/report_fixture.h"

namespace ctte::reports {
namespace {

TEST(CsvReportTest, FixtureMatchesGolden) {
  testing::ExpectGolden("fixture.csv", RenderCsv(testing::FixtureModel()));
}

TEST(CsvReportTest, OneRowPerRunPlusHeader) {
  const std::string csv = RenderCsv(testing::FixtureModel());
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

TEST(CsvReportTest, AttemptColumnsNameTheCauses) {
  const std::string csv = RenderCsv(testing::FixtureModel());
  EXPECT_TRUE(csv.starts_with("run_id,campaign,index,seed,status,reason,twin_of,board_id,attempts,"
                              "infra_cause,retry_causes,"));
  EXPECT_NE(csv.find(",board died: signal 9 (SIGKILL),,2,2,board_died,board_timeout,"),
            std::string::npos) << csv;  // run 3: infra on board b after a timeout on a
}

}  // namespace
}  // namespace ctte::reports
