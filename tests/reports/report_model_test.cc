#include "reports/report_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/reports/report_fixture.h"

namespace ctte::reports {
namespace {

using testing::FreshPath;
using testing::WriteFixture;

class ReportModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = FreshPath(".db");
    campaign_id_ = WriteFixture(path_);
    auto d = db::Database::Open(path_);
    ASSERT_TRUE(d.ok());
    db_ = std::move(*d);
  }
  ReportModel Build(const std::string& campaign) {
    auto m = BuildReportModel(*db_, campaign, ReportOptions{.db_path = "out/ctte.db", .docs_dir = ""});
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ReportModel{};
  }
  std::string path_;
  int64_t campaign_id_ = 0;
  std::unique_ptr<db::Database> db_;
};

TEST_F(ReportModelTest, CountsStoredStatusesAndKeepsReplaysApart) {
  ReportModel m = Build("fixture");
  EXPECT_EQ(m.runs.size(), 6u);
  EXPECT_EQ(m.replays.size(), 1u);
  EXPECT_EQ(m.Count(db::RunStatus::kGreen), 2u);
  EXPECT_EQ(m.Count(db::RunStatus::kRed), 2u);
  EXPECT_EQ(m.Count(db::RunStatus::kInvalid), 1u);
  EXPECT_EQ(m.Count(db::RunStatus::kInfra), 1u);
  ASSERT_EQ(m.RedRuns().size(), 2u);
  EXPECT_EQ(m.RedRuns()[1]->FailedVerdicts(),
            (std::vector<std::string>{"post_recovery_losslessness", "flush_completeness"}));
}

TEST_F(ReportModelTest, CampaignByIdEqualsCampaignByName) {
  ReportModel by_name = Build("fixture");
  ReportModel by_id = Build(std::to_string(campaign_id_));
  EXPECT_EQ(by_id.campaign.id, by_name.campaign.id);
  EXPECT_EQ(by_id.runs.size(), by_name.runs.size());
}

TEST_F(ReportModelTest, UnknownCampaignIsNotFound) {
  auto m = BuildReportModel(*db_, "nosuch", ReportOptions{});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kNotFound);
  EXPECT_NE(m.status().message().find("nosuch"), std::string::npos);
}

TEST_F(ReportModelTest, FactorCountsFollowConfigOrderAndStatuses) {
  ReportModel m = Build("fixture");
  EXPECT_EQ(m.factors, (std::vector<std::string>{"overflow_regime", "backpressure", "mode",
                                                 "workload"}));
  const FactorValueCounts* saturating = nullptr;
  for (const auto& fc : m.factor_counts) {
    if (fc.factor == "overflow_regime" && fc.value == "saturating") saturating = &fc;
  }
  ASSERT_NE(saturating, nullptr);
  EXPECT_EQ(saturating->red, 2u);
  EXPECT_EQ(saturating->green, 0u);
}

TEST_F(ReportModelTest, ReasonComesFromStoredReasonOrFirstFailedVerdict) {
  ReportModel m = Build("fixture");
  EXPECT_EQ(m.runs[2].reason,
            "capture ring wrapped: 2000000 bytes received, ring holds 1048576");
  EXPECT_EQ(m.runs[3].reason, "board died: signal 9 (SIGKILL)");
  EXPECT_EQ(m.runs[5].reason,
            "post_recovery_losslessness: after Error at byte 77: next message is not an anchor");
  EXPECT_TRUE(m.runs[0].reason.empty());
}

TEST_F(ReportModelTest, MetricsGiveLossFractionCapacityAndRecovery) {
  ReportModel m = Build("fixture");
  const ReportRun& r = m.runs[1];
  ASSERT_TRUE(r.loss_fraction.has_value());
  EXPECT_DOUBLE_EQ(*r.loss_fraction, 0.25);
  ASSERT_TRUE(r.sink_capacity.has_value());
  EXPECT_DOUBLE_EQ(*r.sink_capacity, 0.25);  // 50 MHz / 100 MHz, half the cycles ready
  EXPECT_EQ(r.recovered_episodes, 2u);
  // 12 has bit length 4 (8-15), 40 bit length 6 (32-63).
  EXPECT_EQ(r.recovery_bytes_log2, (std::vector<uint64_t>{0, 0, 0, 0, 1, 0, 1}));
  EXPECT_EQ(r.unrecovered_episodes, 1u);
  EXPECT_EQ(r.loss_coverage.drops, 2u);
  EXPECT_EQ(r.loss_coverage.return_stack, 1u);
  EXPECT_EQ(r.loss_coverage.hist, 2u);
  EXPECT_EQ(m.runs[0].loss_coverage.drops, 0u);  // drop-free: no loss_coverage stored
  ASSERT_TRUE(m.runs[0].messages_per_kilo_instruction.has_value());
  EXPECT_DOUBLE_EQ(*m.runs[0].messages_per_kilo_instruction, 100.5);
  EXPECT_DOUBLE_EQ(*m.runs[0].reference_wire_bits_per_instruction, 1.25);
  EXPECT_DOUBLE_EQ(*m.runs[0].output_peak_to_mean, 1.5);
  EXPECT_FALSE(r.output_peak_to_mean.has_value());  // a row stored without the figures
  EXPECT_EQ(m.runs[4].twin_of, 3u);
  EXPECT_EQ(m.runs[0].replay_command, "ctte-lab replay 1 --db out/ctte.db");
}

// The fixture's invalid run (index 2) carries eight verdict rows; like history, the report must
// leave them out of its totals, so the two agree verdict by verdict.
TEST_F(ReportModelTest, VerdictTotalsEqualHistoryOutcomeCounts) {
  ReportModel m = Build("fixture");
  EXPECT_FALSE(m.runs[2].judged);
  EXPECT_EQ(m.runs[2].verdicts.size(), 8u);
  auto history = db_->OutcomeCounts("fixture");
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), m.verdict_totals.size());
  for (const db::OutcomeCount& h : *history) {
    auto t = std::find_if(m.verdict_totals.begin(), m.verdict_totals.end(),
                          [&h](const VerdictTotals& v) { return v.verdict == h.verdict; });
    ASSERT_NE(t, m.verdict_totals.end()) << h.verdict;
    EXPECT_EQ(t->pass, h.pass) << h.verdict;
    EXPECT_EQ(t->fail, h.fail) << h.verdict;
    EXPECT_EQ(t->not_applicable, h.not_applicable) << h.verdict;
  }
  // Four judged runs: two green, two red (run 1 fails loss_accounting).
  const VerdictTotals& loss = m.verdict_totals[1];
  ASSERT_EQ(loss.verdict, "loss_accounting");
  EXPECT_EQ(loss.pass + loss.fail + loss.not_applicable, 4u);
  EXPECT_EQ(loss.fail, 1u);
}

TEST_F(ReportModelTest, FactorVerdictCountsLeaveOutRunsThatAreNotJudged) {
  ReportModel m = Build("fixture");
  for (const FactorVerdictCounts& c : m.factor_verdicts) {
    // Only the invalid run took overflow_regime=sparse.
    EXPECT_FALSE(c.factor == "overflow_regime" && c.value == "sparse") << c.verdict;
  }
}

TEST_F(ReportModelTest, InfrastructureEqualsHistoryPerBoardAndListsEarlierAttempts) {
  ReportModel m = Build("fixture");
  auto history = db_->InfraByBoard("fixture");
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(m.infrastructure.size(), history->size());
  ASSERT_EQ(m.infrastructure.size(), 2u);  // boards a and b
  for (size_t i = 0; i < history->size(); ++i) {
    EXPECT_EQ(m.infrastructure[i].board_id, (*history)[i].board_id);
    EXPECT_EQ(m.infrastructure[i].runs, (*history)[i].runs);
    EXPECT_EQ(m.infrastructure[i].infra_attempts, (*history)[i].infra_attempts);
  }
  const db::BoardInfraCounts& a = m.infrastructure[0];  // runs 0, 2, 4; two failed attempts
  EXPECT_EQ(a.serial, "sim-a");
  EXPECT_EQ(a.runs, 3u);
  EXPECT_EQ(a.infra_attempts, 2u);
  EXPECT_EQ(a.retries, 2u);
  EXPECT_EQ(a.deaths, 2u);
  EXPECT_EQ(a.respawns, 2u);
  const db::BoardInfraCounts& b = m.infrastructure[1];  // runs 1, 3, 5; run 3 died there
  EXPECT_EQ(b.runs, 3u);
  EXPECT_EQ(b.infra_attempts, 1u);
  EXPECT_EQ(b.retries, 0u);
  EXPECT_EQ(b.deaths, 1u);
  EXPECT_EQ(m.InfraTotals().infra_attempts, 3u);
  auto campaigns = db_->Campaigns("fixture");
  ASSERT_TRUE(campaigns.ok());
  EXPECT_EQ(campaigns->front().retried, 2u);
  EXPECT_EQ(campaigns->front().infra_attempts, 3u);

  ASSERT_EQ(m.runs[4].earlier_attempts.size(), 1u);
  EXPECT_EQ(m.runs[4].earlier_attempts[0].infra_cause, "board_died");
  EXPECT_EQ(m.runs[4].AttemptsNote(),
            "attempt 1: infra (board_died) on board 1: board died: signal 9 (SIGKILL); board "
            "respawned\n");
  EXPECT_EQ(m.runs[3].infra_cause, "board_died");
  EXPECT_FALSE(m.runs[0].retried());
  EXPECT_TRUE(m.replays[0].earlier_attempts.empty());
}

}  // namespace
}  // namespace ctte::reports
