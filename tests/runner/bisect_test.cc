// runner::Bisect on fake executors (no board): the leg rules, pairs, minimization, flakes and
// the infrastructure abort of docs/triage.md. The same logic on real mutant images is
// tests/runner/triage_test.cc.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/random.h"
#include "runner/bisect.h"

namespace ctte::runner {
namespace {

RunConfig Base() {
  RunConfig c;
  c.campaign = "t";
  c.seed = 0x1234;
  c.image = "ntrace-slim";
  c.overflow_regime = "none";
  c.backpressure = "none";
  c.mode = "htm";
  c.sync = "off";
  c.workload = "loop";
  c.window = "full";
  c.interrupts = "none";
  c.fabric_mhz = 90;
  return c;
}

RunConfig Red() {
  RunConfig c = Base();
  c.mode = "btm";
  c.sync = "halfwords:6";
  c.sync_params = {SyncPolicy::Kind::kHalfwords, 6};
  c.workload = "calls";
  c.backpressure = "uniform:50";
  c.backpressure_params = {Backpressure::Kind::kUniform, 50, 0, 0};
  return c;
}

using RedFn = std::function<RunStatus(const RunConfig&)>;

BatchExecutor Fake(RedFn fn, size_t* runs = nullptr) {
  return [fn, runs](const std::vector<RunConfig>& batch) {
    std::vector<LegRun> out;
    for (const RunConfig& c : batch) {
      LegRun r;
      r.status = fn(c);
      if (r.status == RunStatus::kRed) r.red_verdicts = {"decode_integrity"};
      out.push_back(r);
    }
    if (runs) *runs += batch.size();
    return out;
  };
}

RunStatus CrossTerm(const RunConfig& c) {
  return c.mode == "btm" && c.sync_params.kind == SyncPolicy::Kind::kHalfwords ? RunStatus::kRed
                                                                               : RunStatus::kGreen;
}

BisectOptions Opts(uint32_t repeats) {
  BisectOptions o;
  o.repeats = repeats;
  return o;
}

TEST(WilsonTest, KnownValues) {
  const Interval all = WilsonInterval(4, 4), none = WilsonInterval(0, 4);
  EXPECT_NEAR(all.lo, 0.510, 0.001);
  EXPECT_DOUBLE_EQ(all.hi, 1.0);
  EXPECT_DOUBLE_EQ(none.lo, 0.0);
  EXPECT_NEAR(none.hi, 0.490, 0.001);
  const Interval half = WilsonInterval(10, 20);
  EXPECT_NEAR(half.lo, 0.299, 0.001);
  EXPECT_NEAR(half.hi, 0.701, 0.001);
  const Interval empty = WilsonInterval(0, 0);
  EXPECT_EQ(empty.lo, 0.0);
  EXPECT_EQ(empty.hi, 1.0);
}

TEST(BisectTest, DifferingFactorsAndRevertCopyTheDrawnParameters) {
  RunConfig red = Red();
  red.window = "early_stop";
  red.window_stop = 500;
  const RunConfig base = Base();
  std::vector<std::string> names;
  for (const Factor& f : DifferingFactors(red, base)) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"backpressure", "mode", "sync", "workload", "window"}));
  ASSERT_TRUE(RevertFactor(&red, base, "window").ok());
  EXPECT_EQ(red.window, "full");
  EXPECT_FALSE(red.window_stop.has_value());
  ASSERT_TRUE(RevertFactor(&red, base, "sync").ok());
  EXPECT_EQ(red.sync_params, base.sync_params);
  EXPECT_FALSE(RevertFactor(&red, base, "colour").ok());
}

// A run red only because of a compression feature: the features leg reverts the feature (the
// leg's configuration has the baseline's features) and is the culprit.
TEST(BisectTest, AFeatureIsBlamedAsFeatures) {
  RunConfig red = Red();
  red.features = "repeated-history";
  auto by_feature = [](const RunConfig& c) {
    return c.features == "repeated-history" ? RunStatus::kRed : RunStatus::kGreen;
  };
  Result<BisectResult> r = Bisect(red, Base(), Opts(10), Fake(by_feature));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, BisectVerdict::kCulprit) << r->summary;
  EXPECT_EQ(r->culprits, (std::vector<std::string>{"features"}));
  for (const Leg& l : r->legs) {
    if (l.kind == LegKind::kSingle && l.factors[0] == "features") {
      EXPECT_EQ(l.config.features, "");
      EXPECT_EQ(l.red(), 0u);
    }
  }
  ASSERT_TRUE(r->minimal.has_value());
  EXPECT_EQ(r->minimal_differs, (std::vector<std::string>{"features"}));
}

TEST(BisectTest, RepeatsGetFreshSeedsSharedAcrossLegs) {
  const RunConfig a = RepeatConfig(Red(), 7, 0), b = RepeatConfig(Red(), 7, 1);
  EXPECT_NE(a.seed, b.seed);
  EXPECT_NE(a.stall_seed, b.stall_seed);
  EXPECT_EQ(a.program_seed, b.program_seed);
  EXPECT_EQ(RepeatConfig(Base(), 7, 1).seed, b.seed);  // the same power-up in every leg
}

TEST(BisectTest, CrossTermNamesExactlyItsTwoFactorsAndMinimizesToThem) {
  size_t runs = 0;
  Result<BisectResult> r = Bisect(Red(), Base(), Opts(4), Fake(CrossTerm, &runs));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, BisectVerdict::kCulprit);
  EXPECT_EQ(r->culprits, (std::vector<std::string>{"mode", "sync"}));
  EXPECT_FALSE(r->flaky);
  ASSERT_TRUE(r->minimal.has_value());
  EXPECT_EQ(r->minimal_differs, (std::vector<std::string>{"mode", "sync"}));
  EXPECT_EQ(CrossTerm(*r->minimal), RunStatus::kRed);
  // original + one leg per differing factor + the one minimization leg, 4 runs each.
  ASSERT_EQ(r->legs.size(), 1u + 4u + 1u);
  EXPECT_EQ(runs, 6u * 4u);
  for (const Leg& l : r->legs) EXPECT_EQ(l.runs.size(), 4u);
  EXPECT_EQ(r->legs[2].factors[0], "mode");
  EXPECT_EQ(r->legs[2].verdict, LegVerdict::kCulprit);
  EXPECT_EQ(r->legs[1].factors[0], "backpressure");
  EXPECT_EQ(r->legs[1].verdict, LegVerdict::kInnocent);
}

// The thresholds are what decide: with 3 repeats, 3/3 against 0/3 does not separate the Wilson
// intervals, so nothing is called a culprit.
TEST(BisectTest, TooFewRepeatsBlameNothing_bad) {
  Result<BisectResult> r = Bisect(Red(), Base(), Opts(3), Fake(CrossTerm));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->culprits.empty());
  EXPECT_EQ(r->legs[2].verdict, LegVerdict::kInconclusive);
}

TEST(BisectTest, OrOfTwoFactorsIsReportedAsAnInteractionOfThePair) {
  auto either = [](const RunConfig& c) {
    return c.mode == "btm" || c.workload == "calls" ? RunStatus::kRed : RunStatus::kGreen;
  };
  Result<BisectResult> r = Bisect(Red(), Base(), Opts(4), Fake(either));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, BisectVerdict::kInteraction);
  EXPECT_EQ(r->culprits, (std::vector<std::string>{"mode", "workload"}));
  const size_t pairs = static_cast<size_t>(std::count_if(
      r->legs.begin(), r->legs.end(), [](const Leg& l) { return l.kind == LegKind::kPair; }));
  EXPECT_EQ(pairs, 6u);  // every pair of the four differing factors
}

TEST(BisectTest, FlakyFailureReportsItsRateAndBlamesNoFactor) {
  // Red on about half the power-ups, whatever the factors (like mutant-flaky-start).
  auto flaky = [](const RunConfig& c) {
    return (DeriveSeed(c.seed, "model") & 1) ? RunStatus::kRed : RunStatus::kGreen;
  };
  Result<BisectResult> r = Bisect(Red(), Base(), Opts(8), Fake(flaky));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->flaky);
  EXPECT_GT(r->legs[0].red(), 0u);
  EXPECT_LT(r->legs[0].red(), 8u);
  EXPECT_TRUE(r->culprits.empty());
  EXPECT_EQ(r->verdict, BisectVerdict::kNoCulprit);
  for (const Leg& l : r->legs) EXPECT_NE(l.verdict, LegVerdict::kCulprit) << l.Label();
  EXPECT_NE(r->summary.find("flaky"), std::string::npos) << r->summary;
}

TEST(BisectTest, InfrastructureDominatingAbortsWithoutBlame) {
  size_t runs = 0;
  Result<BisectResult> r =
      Bisect(Red(), Base(), Opts(4), Fake([](const RunConfig&) { return RunStatus::kInfra; }, &runs));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, BisectVerdict::kInfrastructure);
  EXPECT_TRUE(r->culprits.empty());
  EXPECT_EQ(runs, 4u);  // it stopped after the original leg
}

TEST(BisectTest, NotReproducedWhenTheOriginalStaysGreen) {
  Result<BisectResult> r =
      Bisect(Red(), Base(), Opts(4), Fake([](const RunConfig&) { return RunStatus::kGreen; }));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, BisectVerdict::kNotReproduced);
  EXPECT_FALSE(r->minimal.has_value());
}

}  // namespace
}  // namespace ctte::runner
