// history --pairs (db/history_pairs.cc, docs/triage.md "History: cross terms"): the factors come
// from $.axes of the stored configs, every pair carries its Wilson interval, and pairs are ranked
// by the lower bound of their excess, so a pair seen 3 times does not outrank one seen 30 times.
#include <gtest/gtest.h>

#include "db/triage_store.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::FreshDbPath;
using testing::MakeRun;
using testing::OpenOrDie;

// tiny+btm 3 red, tiny+htm 9 green, big+htm 30 red, big+btm 30 green, loop+htm 60 green:
//   tiny+btm: rate 1, rate(tiny) = 3/12, rate(btm) = 3/33: excess 0.75, Wilson lo(3/3) = 0.44;
//   big+htm:  rate 1, rate(big) = 30/60, rate(htm) = 30/99: excess 0.50, lo(30/30) = 0.89.
class HistoryPairsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = OpenOrDie(FreshDbPath());
    ASSERT_TRUE(db_);
    campaign_ = *db_->UpsertCampaign(testing::Campaign("pairs", 1));
    Add(3, RunStatus::kRed, "tiny", "btm");
    Add(9, RunStatus::kGreen, "tiny", "htm");
    Add(30, RunStatus::kRed, "big", "htm");
    Add(30, RunStatus::kGreen, "big", "btm");
    Add(60, RunStatus::kGreen, "loop", "htm");
  }
  void Add(int n, RunStatus status, const char* workload, const char* mode) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(db_->RecordRun(MakeRun(campaign_, index_++, status, workload, mode), {}).ok());
    }
  }
  std::unique_ptr<Database> db_;
  int64_t campaign_ = 0;
  uint64_t index_ = 0;
};

TEST_F(HistoryPairsTest, RanksByTheLowerBoundNotThePointEstimate) {
  auto pairs = TriageStore::PairRates(*db_, "pairs", 3);
  ASSERT_TRUE(pairs.ok()) << pairs.status().ToString();
  ASSERT_EQ(pairs->size(), 5u);
  const PairRate& first = (*pairs)[0];
  EXPECT_EQ(first.factor_a, "workload");  // the $.axes order of the config
  EXPECT_EQ(first.value_a, "big");
  EXPECT_EQ(first.factor_b, "mode");
  EXPECT_EQ(first.value_b, "htm");
  EXPECT_EQ(first.runs, 30u);
  EXPECT_NEAR(first.excess, 1.0 - 30.0 / 60, 1e-12);
  EXPECT_NEAR(first.lo, 0.8865, 1e-4);  // Wilson 30/30
  EXPECT_EQ(first.hi, 1.0);
  const PairRate& second = (*pairs)[1];
  EXPECT_EQ(second.value_a, "tiny");
  EXPECT_GT(second.excess, first.excess);  // a point estimate would have put it first
  EXPECT_NEAR(second.lo, 0.4385, 1e-4);   // Wilson 3/3
  EXPECT_NEAR(second.excess_lo, 0.4385 - 0.25, 1e-4);
}

TEST_F(HistoryPairsTest, TheMinimumSampleLeavesSmallPairsOut) {
  auto pairs = TriageStore::PairRates(*db_, "pairs", 4);
  ASSERT_TRUE(pairs.ok());
  ASSERT_EQ(pairs->size(), 4u);
  for (const PairRate& p : *pairs) EXPECT_GE(p.runs, 4u) << p.value_a << " " << p.value_b;
}

}  // namespace
}  // namespace ctte::db
