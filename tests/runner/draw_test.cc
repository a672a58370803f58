#include "runner/draw.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>
#include <string>

#include "base/check.h"
#include "base/files.h"
#include "base/random.h"
#include "runner/campaign_spec.h"
#include "runner/run_config.h"

namespace ctte::runner {
namespace {

using nlohmann::json;

CampaignSpec LoadShipped(const char* name) {
  auto loaded = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/" + name + ".json");
  CTTE_CHECK(loaded.ok() && loaded->ok(), "shipped campaign does not parse");
  return loaded->spec;
}

CampaignSpec ParseOrDie(const json& j) {
  SpecCheck c = ParseCampaignSpec(j.dump());
  CTTE_CHECK(c.ok(), "test spec does not parse");
  return c.spec;
}

json NightlyJson() {
  auto text = ReadFileText(std::string(CTTE_SOURCE_DIR) + "/campaigns/nightly.json");
  CTTE_CHECK(text.ok(), "cannot read nightly.json");
  return json::parse(*text);
}

// The golden file pins the first draws of smoke.json: any change to drawing, the PRNG, the
// regime table or smoke.json shows here. Regenerate with CTTE_UPDATE_GOLDEN=1 (never by hand).
TEST(DrawTest, FirstDrawsOfSmokeMatchGolden) {
  const CampaignSpec spec = LoadShipped("smoke");
  std::string actual = "[\n";
  for (uint64_t i = 0; i < 12; ++i) {
    actual += RunConfigToJson(Draw(spec, i)) + (i + 1 < 12 ? ",\n" : "\n");
  }
  actual += "]\n";
  const std::string golden_path =
      std::string(CTTE_SOURCE_DIR) + "/tests/runner/golden/smoke_draws.json";
  const char* update = std::getenv("CTTE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    ASSERT_TRUE(WriteFileAtomic(golden_path, actual).ok());
    GTEST_SKIP() << "golden file rewritten: " << golden_path;
  }
  auto golden = ReadFileText(golden_path);
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  EXPECT_EQ(actual, *golden) << "draws changed; if intended, rerun with CTTE_UPDATE_GOLDEN=1";
}

TEST(DrawTest, RunSeedIsDerivedFromCampaignSeedAndIndex) {
  const CampaignSpec spec = LoadShipped("nightly");
  for (uint64_t i = 0; i < 64; ++i) {
    const RunConfig c = Draw(spec, i);
    const uint64_t source = c.twin_of ? *c.twin_of : i;
    EXPECT_EQ(c.seed, ctte::RunSeed(spec.seed, source)) << i;
    EXPECT_EQ(c.index, i);
  }
}

TEST(DrawTest, DrawIsAPureFunctionOfSpecAndIndex) {
  const CampaignSpec spec = LoadShipped("nightly");
  const RunConfig late_first = Draw(spec, 41);
  for (uint64_t i = 0; i < 41; ++i) Draw(spec, i);
  EXPECT_EQ(Draw(spec, 41), late_first);
  EXPECT_EQ(Draw(LoadShipped("nightly"), 41), late_first);
}

TEST(DrawTest, ChangingOneAxisNeverShiftsTheOthers) {
  json j = NightlyJson();
  const CampaignSpec before = ParseOrDie(j);
  j["axes"]["workload"] = json::array({"loop", "sort"});  // a different workload axis
  j["axes"]["sync"].erase(0);                              // and a different sync axis
  const CampaignSpec after = ParseOrDie(j);
  int workload_changed = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    const RunConfig a = Draw(before, i);
    const RunConfig b = Draw(after, i);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.image, b.image);
    EXPECT_EQ(a.overflow_regime, b.overflow_regime);
    EXPECT_EQ(a.backpressure, b.backpressure);
    EXPECT_EQ(a.mode, b.mode);
    EXPECT_EQ(a.window, b.window);
    EXPECT_EQ(a.interrupts, b.interrupts);
    EXPECT_EQ(a.fabric_mhz, b.fabric_mhz);
    EXPECT_EQ(a.window_start, b.window_start);
    EXPECT_EQ(a.interrupt_at, b.interrupt_at);
    EXPECT_EQ(a.stall_seed, b.stall_seed);
    workload_changed += a.workload != b.workload;
  }
  EXPECT_GT(workload_changed, 0);  // the edit did take effect
}

TEST(DrawTest, WeightsShapeTheDistribution) {
  json j = NightlyJson();
  j["determinism_pairs"] = 0;
  j["axes"]["mode"] = json::parse(R"([{"value": "htm", "weight": 3}, "btm"])");
  const CampaignSpec spec = ParseOrDie(j);
  int htm = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) htm += Draw(spec, static_cast<uint64_t>(i)).mode == "htm";
  EXPECT_NEAR(static_cast<double>(htm) / n, 0.75, 0.03);
}

TEST(DrawTest, DeterminismTwinsRepeatThePreviousRun) {
  json j = NightlyJson();
  j["determinism_pairs"] = 1;
  const CampaignSpec all = ParseOrDie(j);
  for (uint64_t i = 0; i < 40; ++i) {
    RunConfig c = Draw(all, i);
    if (i % 2 == 0) {
      EXPECT_FALSE(c.twin_of.has_value()) << i;
      continue;
    }
    ASSERT_EQ(c.twin_of, i - 1);
    RunConfig original = Draw(all, i - 1);
    EXPECT_EQ(c.seed, original.seed);
    c.index = original.index;
    c.twin_of.reset();
    EXPECT_EQ(c, original) << "twin " << i << " differs from run " << i - 1;
  }
  j["determinism_pairs"] = 0;
  const CampaignSpec none = ParseOrDie(j);
  for (uint64_t i = 0; i < 200; ++i) EXPECT_FALSE(Draw(none, i).twin_of.has_value());
}

TEST(DrawTest, DeterminismPairFractionIsRespected) {
  json j = NightlyJson();
  j["determinism_pairs"] = 0.25;
  const CampaignSpec spec = ParseOrDie(j);
  int twins = 0;
  const int pairs = 4000;
  for (int k = 0; k < pairs; ++k) twins += IsTwin(spec, 2 * static_cast<uint64_t>(k) + 1);
  EXPECT_NEAR(static_cast<double>(twins) / pairs, 0.25, 0.03);
}

TEST(DrawTest, DerivedParametersFollowTheTables) {
  const CampaignSpec spec = LoadShipped("nightly");
  std::map<std::string, int> seen_windows;
  for (uint64_t i = 0; i < 500; ++i) {
    const RunConfig c = Draw(spec, i);
    const OverflowRegimeRow* row = FindOverflowRegime(c.overflow_regime.c_str());
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(c.sink_hz, uint64_t{spec.sink_mhz} * 1'000'000 / row->sink_divisor);
    EXPECT_EQ(c.fabric_hz, uint64_t{c.fabric_mhz} * 1'000'000);
    EXPECT_EQ(c.core_stall_percent, row->core_stall_percent);
    const uint64_t h = spec.horizon_retirements;
    ++seen_windows[c.window];
    if (c.window == "full") {
      EXPECT_EQ(c.window_start, 0u);
      EXPECT_FALSE(c.window_pause || c.window_resume || c.window_stop);
    } else if (c.window == "late_start") {
      EXPECT_GE(c.window_start, h / 8);
      EXPECT_LT(c.window_start, h / 2);
    } else if (c.window == "pause_resume") {
      ASSERT_TRUE(c.window_pause && c.window_resume);
      EXPECT_GT(*c.window_resume, *c.window_pause);
      EXPECT_LT(*c.window_resume, h);
    } else {
      ASSERT_TRUE(c.window_stop.has_value());
      EXPECT_GE(*c.window_stop, h / 4);
      EXPECT_LT(*c.window_stop, 3 * h / 4);
    }
    if (c.interrupts == "none") {
      EXPECT_TRUE(c.interrupt_at.empty());
      EXPECT_EQ(c.interrupt_every, 0u);
    } else if (c.interrupts == "sparse") {
      ASSERT_FALSE(c.interrupt_at.empty());
      EXPECT_LE(c.interrupt_at.size(), 8u);
      for (size_t k = 1; k < c.interrupt_at.size(); ++k) {
        EXPECT_LT(c.interrupt_at[k - 1], c.interrupt_at[k]);
      }
      EXPECT_LT(c.interrupt_at.back(), h);
    } else {
      EXPECT_GE(c.interrupt_every, 16u);
      EXPECT_LE(c.interrupt_every, 256u);
    }
  }
  EXPECT_EQ(seen_windows.size(), 4u);
}

}  // namespace
}  // namespace ctte::runner
