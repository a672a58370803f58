// The error rates of Bisect over many bisections, on a fake executor whose red probabilities
// are known (no board, no images; deterministic seeds). The figures are printed; the asserts
// leave margins that a correct procedure fails with probability below 1e-6.
//  - False culprits: no factor matters and every run is red with probability 1/2 on its own
//    (the worst case for a paired test: the legs are independent of the original). The
//    family-wise rate of blaming anything must stay at or below alpha = 0.05.
//  - Power: reverting `mode` lowers the red rate from 1 to 1/2 (effect 0.5); nothing else
//    matters. At the documented repeats (10, doubling to 40) mode must be found alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "base/random.h"
#include "runner/bisect.h"

namespace ctte::runner {
namespace {

constexpr int kTrials = 200;

RunConfig Red(uint64_t seed) {
  RunConfig c;
  c.campaign = "power";
  c.seed = seed;
  c.image = "ntrace-slim";
  c.overflow_regime = "none";
  c.backpressure = "uniform:50";
  c.backpressure_params = {Backpressure::Kind::kUniform, 50, 0, 0};
  c.mode = "btm";
  c.sync = "halfwords:6";
  c.sync_params = {SyncPolicy::Kind::kHalfwords, 6};
  c.workload = "calls";
  c.window = "full";
  c.interrupts = "none";
  c.fabric_mhz = 90;
  return c;
}

RunConfig Baseline(uint64_t seed) {
  RunConfig c = Red(seed);
  c.backpressure = "none";
  c.backpressure_params = {};
  c.mode = "htm";
  c.sync = "off";
  c.sync_params = {};
  c.workload = "loop";
  return c;
}

// Red with probability p(config), drawn independently for every run (its seed and its
// configuration), so two legs share nothing but their probabilities.
BatchExecutor Bernoulli(std::function<double(const RunConfig&)> p) {
  return [p](const std::vector<RunConfig>& batch) {
    std::vector<LegRun> out;
    for (const RunConfig& c : batch) {
      const uint64_t h = DeriveSeed(c.seed ^ std::hash<std::string>{}(RunConfigToJson(c)), "red");
      LegRun r;
      const double u = static_cast<double>(h >> 11) / 9007199254740992.0;  // [0, 1)
      r.status = u < p(c) ? RunStatus::kRed : RunStatus::kGreen;
      if (r.status == RunStatus::kRed) r.red_verdicts = {"decode_integrity"};
      out.push_back(r);
    }
    return out;
  };
}

BisectOptions Documented() {
  BisectOptions o;  // the defaults: repeats 10, max_repeats 40, alpha 0.05
  o.target_verdicts = {"decode_integrity"};
  return o;
}

TEST(BisectPowerTest, FamilyWiseFalseCulpritRateIsAtMostAlpha) {
  int blamed = 0, reproduced = 0;
  for (int t = 0; t < kTrials; ++t) {
    const uint64_t seed = DeriveSeed(0xfa15e00 + static_cast<uint64_t>(t), "trial");
    Result<BisectResult> r = Bisect(Red(seed), Baseline(seed), Documented(),
                                    Bernoulli([](const RunConfig&) { return 0.5; }));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (r->verdict == BisectVerdict::kNotReproduced) continue;
    ++reproduced;
    if (!r->culprits.empty()) ++blamed;
  }
  const double rate = static_cast<double>(blamed) / reproduced;
  std::printf("false-culprit rate: %d of %d bisections = %.3f (alpha 0.05)\n", blamed,
              reproduced, rate);
  ASSERT_GT(reproduced, kTrials - 5);
  // If the true rate were 0.05, P(X >= 25 of 200) < 1e-6; an uncorrected procedure (10 legs
  // each at 0.05, three looks) is far above it.
  EXPECT_LE(blamed, 24);
}

TEST(BisectPowerTest, ASingleCulpritOfEffectHalfIsFoundAtTheDocumentedRepeats) {
  int found = 0, wrong = 0;
  for (int t = 0; t < kTrials; ++t) {
    const uint64_t seed = DeriveSeed(0x90e700 + static_cast<uint64_t>(t), "trial");
    Result<BisectResult> r =
        Bisect(Red(seed), Baseline(seed), Documented(),
               Bernoulli([](const RunConfig& c) { return c.mode == "btm" ? 1.0 : 0.5; }));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (r->verdict == BisectVerdict::kCulprit &&
        r->culprits == std::vector<std::string>{"mode"}) {
      ++found;
    } else if (!r->culprits.empty()) {
      ++wrong;
    }
  }
  std::printf("power at effect 0.5 (repeats 10..40, 4 differing factors): %d of %d = %.3f; "
              "a wrong factor blamed in %d\n",
              found, kTrials, static_cast<double>(found) / kTrials, wrong);
  // Documented power: at least 0.95 (docs/triage.md). If it were 0.95, P(X <= 178 of 200)
  // < 1e-6.
  EXPECT_GE(found, 179);
  EXPECT_LE(wrong, 24);
}

}  // namespace
}  // namespace ctte::runner
