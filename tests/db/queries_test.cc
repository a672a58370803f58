#include <gtest/gtest.h>

#include "db/database.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::FreshDbPath;
using testing::OpenOrDie;
using testing::MakeRun;

// A small fixture database:
//   smoke:   0 green loop/htm, 1 red sort/htm, 2 red sort/btm, 3 green loop/btm,
//            4 invalid loop/htm, 5 planned sort/htm, plus a red replay of run 1
//   nightly: 0 red calls/htm, 1 green loop/htm
class QueriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = OpenOrDie(FreshDbPath());
    ASSERT_TRUE(db_);
    smoke_ = *db_->UpsertCampaign(Campaign("smoke", 1));
    nightly_ = *db_->UpsertCampaign(Campaign("nightly", 2));
    Write(smoke_, 0, RunStatus::kGreen, "loop", "htm");
    run1_ = Write(smoke_, 1, RunStatus::kRed, "sort", "htm");
    Write(smoke_, 2, RunStatus::kRed, "sort", "btm");
    Write(smoke_, 3, RunStatus::kGreen, "loop", "btm");
    Write(smoke_, 4, RunStatus::kInvalid, "loop", "htm");
    ASSERT_TRUE(db_->PlanRuns({MakeRun(smoke_, 5, RunStatus::kPlanned, "sort", "htm")}).ok());
    RunRecord replay = MakeRun(smoke_, 1, RunStatus::kRed, "sort", "htm");
    replay.replay_of = run1_;
    ASSERT_TRUE(db_->RecordRun(replay, {}).ok());
    Write(nightly_, 0, RunStatus::kRed, "calls", "htm");
    Write(nightly_, 1, RunStatus::kGreen, "loop", "htm");
  }

  /// Writes a run with two verdicts: "sequence" fails on red runs, "liveness" always passes,
  /// and invalid runs get n/a for both.
  int64_t Write(int64_t campaign, uint64_t index, RunStatus status, const char* workload,
                const char* mode) {
    const Outcome seq = status == RunStatus::kRed       ? Outcome::kFail
                        : status == RunStatus::kInvalid ? Outcome::kNotApplicable
                                                        : Outcome::kPass;
    const Outcome live =
        status == RunStatus::kInvalid ? Outcome::kNotApplicable : Outcome::kPass;
    auto id = db_->RecordRun(MakeRun(campaign, index, status, workload, mode),
                             {{"sequence", seq, "", ""}, {"liveness", live, "", ""}});
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : -1;
  }

  std::unique_ptr<Database> db_;
  int64_t smoke_ = 0, nightly_ = 0, run1_ = 0;
};

TEST_F(QueriesTest, CampaignsCountRunsByStatus) {
  auto all = db_->Campaigns();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  const CampaignSummary& s = (*all)[0];
  EXPECT_EQ(s.name, "smoke");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.green, 2u);
  EXPECT_EQ(s.red, 3u);  // includes the replay
  EXPECT_EQ(s.invalid, 1u);
  EXPECT_EQ(s.planned, 1u);
  EXPECT_EQ(s.infra, 0u);
  EXPECT_EQ(s.total(), 7u);
  auto only = db_->Campaigns("nightly");
  ASSERT_EQ(only->size(), 1u);
  EXPECT_EQ((*only)[0].total(), 2u);
  EXPECT_TRUE(db_->Campaigns("nope")->empty());
}

TEST_F(QueriesTest, RunsOfCampaignAreOrderedByIndex) {
  auto runs = db_->RunsOfCampaign(smoke_);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 7u);
  for (size_t i = 1; i < runs->size(); ++i) {
    EXPECT_LE((*runs)[i - 1].run.index, (*runs)[i].run.index);
  }
  EXPECT_EQ((*runs)[2].run.replay_of, run1_);
}

// RunRow::judged is the same definition OutcomeCounts uses: original green and red runs only.
TEST_F(QueriesTest, RunRowsSayWhetherTheRunIsJudged) {
  auto runs = db_->RunsOfCampaign(smoke_);
  ASSERT_TRUE(runs.ok());
  // By index: 0 green, 1 red, 1 its replay, 2 red, 3 green, 4 invalid, 5 planned.
  const std::vector<bool> expected = {true, true, false, true, true, false, false};
  ASSERT_EQ(runs->size(), expected.size());
  for (size_t i = 0; i < runs->size(); ++i) {
    EXPECT_EQ((*runs)[i].judged, expected[i]) << "row " << i << " index " << (*runs)[i].run.index;
  }
  EXPECT_TRUE(db_->RunById(run1_)->judged);
}

TEST(OutcomeTest, NamesRoundTripAndOtherTextIsRejected) {
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kNotApplicable}) {
    EXPECT_EQ(ParseOutcome(OutcomeName(o)), o);
  }
  EXPECT_FALSE(ParseOutcome("PASS").has_value());
  EXPECT_FALSE(ParseOutcome("").has_value());
}

TEST_F(QueriesTest, RunByIdReturnsTheRowOrNotFound) {
  auto run = db_->RunById(run1_);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->id, run1_);
  EXPECT_EQ(run->campaign_name, "smoke");
  EXPECT_EQ(run->run.index, 1u);
  EXPECT_EQ(run->run.status, RunStatus::kRed);
  auto missing = db_->RunById(999999);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
}

TEST_F(QueriesTest, RedRunsAreListedPerCampaignOrAll) {
  auto smoke = db_->RedRuns("smoke");
  ASSERT_TRUE(smoke.ok());
  ASSERT_EQ(smoke->size(), 3u);
  EXPECT_EQ((*smoke)[0].run.index, 1u);
  EXPECT_EQ((*smoke)[0].run.seed, 0x1001u);
  EXPECT_EQ((*smoke)[2].run.index, 2u);
  EXPECT_EQ(db_->RedRuns()->size(), 4u);
}

// Only judged runs count: run 4 of smoke is invalid (its verdicts are n/a) and is left out.
TEST_F(QueriesTest, OutcomeCountsPerVerdictCountJudgedRunsOnly) {
  auto counts = db_->OutcomeCounts("smoke");
  ASSERT_TRUE(counts.ok());
  ASSERT_EQ(counts->size(), 2u);
  EXPECT_EQ((*counts)[0].verdict, "liveness");
  EXPECT_EQ((*counts)[0].pass, 4u);
  EXPECT_EQ((*counts)[0].fail, 0u);
  EXPECT_EQ((*counts)[0].not_applicable, 0u);
  EXPECT_EQ((*counts)[1].verdict, "sequence");
  EXPECT_EQ((*counts)[1].pass, 2u);
  EXPECT_EQ((*counts)[1].fail, 2u);
  EXPECT_EQ((*counts)[1].not_applicable, 0u);
  auto all = db_->OutcomeCounts();
  EXPECT_EQ((*all)[1].fail, 3u);
}

TEST_F(QueriesTest, FailRatePerFactorValueExcludesReplays) {
  auto rates = db_->FailRateByFactor("workload", "smoke");
  ASSERT_TRUE(rates.ok()) << rates.status().ToString();
  ASSERT_EQ(rates->size(), 2u);
  const FactorRate& loop = (*rates)[0];
  EXPECT_EQ(loop.factor, "workload");
  EXPECT_EQ(loop.value, "loop");
  EXPECT_EQ(loop.runs, 3u);
  EXPECT_EQ(loop.green, 2u);
  EXPECT_EQ(loop.red, 0u);
  EXPECT_DOUBLE_EQ(loop.fail_rate(), 0.0);
  const FactorRate& sort = (*rates)[1];
  EXPECT_EQ(sort.value, "sort");
  EXPECT_EQ(sort.runs, 3u);  // two red and one planned; the replay is not counted
  EXPECT_EQ(sort.red, 2u);
  EXPECT_DOUBLE_EQ(sort.fail_rate(), 1.0);

  auto modes = db_->FailRateByFactor("mode");
  ASSERT_EQ(modes->size(), 2u);
  EXPECT_EQ((*modes)[0].value, "btm");
  EXPECT_DOUBLE_EQ((*modes)[0].fail_rate(), 0.5);
  EXPECT_EQ((*modes)[1].value, "htm");
  EXPECT_EQ((*modes)[1].red, 2u);    // smoke 1, nightly 0
  EXPECT_EQ((*modes)[1].green, 2u);  // smoke 0, nightly 1
}

// The one-pass query of every factor gives, factor by factor, FailRateByFactor's rows (history
// uses it instead of one scan per axis).
TEST_F(QueriesTest, AllFactorsAtOnceEqualOneFactorAtATime) {
  // A control run (config "control") counts in neither.
  RunRecord control = MakeRun(smoke_, 9, RunStatus::kRed, "sort", "htm");
  control.config_json = R"({"axes":{"workload":"sort","mode":"htm"},"control":{"name":"c"}})";
  ASSERT_TRUE(db_->RecordRun(control, {}).ok());
  for (const std::string campaign : {"", "smoke", "nightly"}) {
    auto all = db_->FailRatesByFactor(campaign);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    std::vector<FactorRate> expected;
    for (const char* factor : {"mode", "workload"}) {
      auto one = db_->FailRateByFactor(factor, campaign);
      ASSERT_TRUE(one.ok());
      expected.insert(expected.end(), one->begin(), one->end());
    }
    ASSERT_EQ(all->size(), expected.size()) << campaign;
    for (size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ((*all)[k].factor, expected[k].factor);
      EXPECT_EQ((*all)[k].value, expected[k].value);
      EXPECT_EQ((*all)[k].runs, expected[k].runs) << expected[k].value;
      EXPECT_EQ((*all)[k].green, expected[k].green);
      EXPECT_EQ((*all)[k].red, expected[k].red);
    }
  }
  EXPECT_EQ(db_->FailRatesByFactor("smoke")->at(3).red, 2u);  // workload sort: not the control
}

TEST_F(QueriesTest, ControlRunsOfCampaignAreTheControlsOnly) {
  RunRecord control = MakeRun(smoke_, 9, RunStatus::kGreen, "sort", "htm");
  control.config_json = R"({"axes":{"workload":"sort"},"control":{"name":"c"}})";
  ASSERT_TRUE(db_->RecordRun(control, {}).ok());
  auto controls = db_->ControlRunsOfCampaign(smoke_);
  ASSERT_TRUE(controls.ok());
  ASSERT_EQ(controls->size(), 1u);
  EXPECT_EQ((*controls)[0].run.index, 9u);
  EXPECT_TRUE(db_->ControlRunsOfCampaign(nightly_)->empty());
}

TEST_F(QueriesTest, UnknownFactorGivesNoRowsAndBadNamesAreRejected) {
  auto none = db_->FailRateByFactor("interrupts");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto bad = db_->FailRateByFactor("mode') OR 1=1 --");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace ctte::db

namespace ctte::db {
namespace {

// One rule for "a campaign by id or name" (#29): `soak --resume 3` took the newest campaign
// whose id or name was "3", `report 3` the campaign with id 3. Now both: all digits = the id,
// "name:NAME" = the newest row named NAME, anything else = the newest row named so.
TEST(CampaignByIdOrNameTest, DigitsAreAnIdAndANameIsTheNewestRow) {
  std::unique_ptr<Database> d = testing::OpenOrDie(testing::FreshDbPath());
  const int64_t named3 = *d->UpsertCampaign(testing::Campaign("3", 1));
  const int64_t a1 = *d->UpsertCampaign(testing::Campaign("a", 2));
  const int64_t b = *d->UpsertCampaign(testing::Campaign("b", 3));
  const int64_t a2 = *d->UpsertCampaign(testing::Campaign("a", 4));
  ASSERT_EQ(b, 3);  // so "3" is both b's id and the first campaign's name
  EXPECT_EQ(d->CampaignByIdOrName("3")->id, b);
  EXPECT_EQ(d->CampaignByIdOrName("name:3")->id, named3);
  EXPECT_EQ(d->CampaignByIdOrName("a")->id, a2);
  EXPECT_EQ(d->CampaignByIdOrName("name:a")->id, a2);
  EXPECT_EQ(d->CampaignByIdOrName(std::to_string(a1))->id, a1);
  const Result<CampaignSummary> none = d->CampaignByIdOrName("9");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Status::Code::kNotFound);
  EXPECT_NE(none.status().message().find("no campaign with id 9 (a campaign named 9 is name:9)"),
            std::string::npos)
      << none.status().ToString();
  EXPECT_FALSE(d->CampaignByIdOrName("zzz").ok());
  EXPECT_FALSE(d->CampaignByIdOrName("").ok());
  EXPECT_FALSE(d->CampaignByIdOrName("99999999999999999999999").ok());
}

}  // namespace
}  // namespace ctte::db
