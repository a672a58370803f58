#include "runner/run_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runner/campaign_spec.h"
#include "runner/draw.h"

namespace ctte::runner {
namespace {

using nlohmann::ordered_json;

CampaignSpec Nightly() {
  auto loaded = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/nightly.json");
  EXPECT_TRUE(loaded.ok() && loaded->ok());
  return loaded->spec;
}

TEST(RunConfigTest, JsonRoundTripIsExact) {
  const CampaignSpec spec = Nightly();
  for (uint64_t i = 0; i < 300; ++i) {
    const RunConfig c = Draw(spec, i);
    const std::string text = RunConfigToJson(c);
    auto back = RunConfigFromJson(text);
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
    EXPECT_EQ(*back, c) << text;
    EXPECT_EQ(RunConfigToJson(*back), text);
    auto pretty = RunConfigFromJson(RunConfigToJson(c, 2));
    ASSERT_TRUE(pretty.ok());
    EXPECT_EQ(*pretty, c);
  }
}

TEST(RunConfigTest, RoundTripKeepsExtremeSeedsAndOptionalEdges) {
  RunConfig c = Draw(Nightly(), 3);
  c.seed = UINT64_MAX;
  c.stall_seed = 0;
  c.twin_of = 2;
  c.window_pause = 10;
  c.window_resume = 20;
  c.window_stop = UINT64_MAX;
  auto back = RunConfigFromJson(RunConfigToJson(c));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, c);
}

ordered_json DrawnJson() { return ordered_json::parse(RunConfigToJson(Draw(Nightly(), 0))); }

std::string ErrorOf(const ordered_json& j) {
  auto r = RunConfigFromJson(j.dump());
  return r.ok() ? "(parsed)" : r.status().message();
}

TEST(RunConfigTest, MissingFieldNamesItsPath) {
  ordered_json j = DrawnJson();
  j["window"].erase("stop");
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.window.stop: missing required field"));
  j = DrawnJson();
  j.erase("seed");
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.seed: missing required field"));
}

TEST(RunConfigTest, WrongTypeAndUnknownKeyAreRejected) {
  ordered_json j = DrawnJson();
  j["index"] = "zero";
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.index: wrong type"));
  j = DrawnJson();
  j["extra"] = 1;
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.extra: unknown key"));
  j = DrawnJson();
  j["interrupt_at"] = {1, -2};
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.interrupt_at[1]: wrong type"));
  EXPECT_THAT(ErrorOf(ordered_json::array()), testing::HasSubstr("expected an object"));
  auto bad = RunConfigFromJson("{\"campaign\":");
  EXPECT_FALSE(bad.ok());
}

TEST(RunConfigTest, StructuredParametersMustAgreeWithAxisText) {
  ordered_json j = DrawnJson();
  j["axes"]["backpressure"] = "bursty:1-2";
  j["backpressure"] = {{"kind", "bursty"}, {"ready_percent", 0}, {"burst_min", 1},
                       {"burst_max", 3}};
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.backpressure: does not match"));
  j = DrawnJson();
  j["axes"]["sync"] = "halfwords:8";
  j["sync"] = {{"kind", "messages"}, {"period_log2", 8}};
  EXPECT_THAT(ErrorOf(j), testing::HasSubstr("$.sync: does not match"));
}

TEST(RunConfigTest, SeedTextParsesHexAndDecimal) {
  EXPECT_EQ(SeedHex(0x1234), "0x0000000000001234");
  EXPECT_EQ(ParseSeedText("0x1234"), 0x1234u);
  EXPECT_EQ(ParseSeedText("0xffffffffffffffff"), UINT64_MAX);
  EXPECT_EQ(ParseSeedText("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseSeedText("18446744073709551616").has_value());
  EXPECT_FALSE(ParseSeedText("0x").has_value());
  EXPECT_FALSE(ParseSeedText("0x1g").has_value());
  EXPECT_FALSE(ParseSeedText("").has_value());
}

TEST(RunConfigTest, AxisValueParsersAcceptTheGrammar) {
  std::string why;
  auto u = ParseBackpressure("uniform:75", &why);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->kind, Backpressure::Kind::kUniform);
  EXPECT_EQ(u->ready_percent, 75u);
  auto b = ParseBackpressure("bursty:16-256", &why);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->burst_min, 16u);
  EXPECT_EQ(b->burst_max, 256u);
  EXPECT_FALSE(ParseBackpressure("uniform:101", &why).has_value());
  EXPECT_FALSE(ParseBackpressure("bursty:0-5", &why).has_value());
  auto s = ParseSyncPolicy("halfwords:19", &why);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kind, SyncPolicy::Kind::kHalfwords);
  EXPECT_EQ(s->period_log2, 19u);
  EXPECT_FALSE(ParseSyncPolicy("halfwords:20", &why).has_value());
  EXPECT_FALSE(ParseSyncPolicy("messages:", &why).has_value());
}

}  // namespace
}  // namespace ctte::runner
