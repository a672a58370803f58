// The axis table polices itself (runner/axis_values.h): every axis has a row with every column,
// reverts to a baseline's value with every parameter Draw gave it, is named as the only
// differing factor, and round-trips through the config's JSON. An axis added to the table
// without a value here fails AxisTableTest.EveryAxisHasATestValue.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "runner/axis_values.h"
#include "runner/bisect.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/run_config.h"

namespace ctte::runner {
namespace {

using nlohmann::json;

// A value other than the default of every axis, chosen so it draws parameters where the axis
// has any (interrupt schedule, window edges, program seed, clock, sink and stall rates).
const std::map<std::string, json>& OtherValues() {
  static const std::map<std::string, json> values = {
      {"overflow_regime", "saturating"}, {"backpressure", "bursty:2-9"},
      {"mode", "btm"},                   {"sync", "messages:6"},
      {"workload", "random"},            {"window", "pause_resume"},
      {"interrupts", "sparse"},          {"features", json::array({"repeated-history"})},
      {"fabric_mhz", 50},
  };
  return values;
}

SpecCheck SpecWith(const std::string& axis, const json& value) {
  json j = json::parse(R"({"name": "t", "seed": 7, "runs": 40, "images": ["ntrace-full"],
    "clocks": {"fabric_mhz": 90, "sink_mhz": 100}, "axes": {}})");
  for (const internal::AxisDef& d : internal::AxisDefs()) {
    if (std::string(d.default_value).empty()) continue;  // fabric_mhz: the clock
    j["axes"][d.name] = json::array({d.default_value});
  }
  if (!axis.empty()) j["axes"][axis] = json::array({value});
  return ParseCampaignSpec(j.dump());
}

TEST(AxisTableTest, EveryAxisHasATestValueAndEveryColumn) {
  ASSERT_EQ(AxisNames().size(), internal::AxisDefs().size());
  for (const internal::AxisDef& d : internal::AxisDefs()) {
    EXPECT_TRUE(OtherValues().count(d.name))
        << "axis " << d.name << " has no value in OtherValues(): add one";
    EXPECT_TRUE(d.check && d.get && d.json_get && d.json_set && d.revert) << d.name;
  }
}

TEST(AxisTableTest, EveryAxisRevertsWithEveryDrawnParameterAndRoundTrips) {
  const SpecCheck base = SpecWith("", nullptr);
  ASSERT_TRUE(base.ok()) << base.errors[0].ToString();
  for (const auto& [axis, value] : OtherValues()) {
    SCOPED_TRACE(axis);
    const SpecCheck other = SpecWith(axis, value);
    ASSERT_TRUE(other.ok()) << other.errors[0].ToString();
    for (uint64_t i = 0; i < 40; ++i) {
      const RunConfig b = Draw(base.spec, i);
      RunConfig red = Draw(other.spec, i);
      std::vector<Factor> diff = DifferingFactors(red, b);
      ASSERT_EQ(diff.size(), 1u) << i;
      EXPECT_EQ(diff[0].name, axis);
      EXPECT_EQ(red.AxisValue(axis), diff[0].red_value);
      EXPECT_EQ(b.AxisValue(axis), diff[0].base_value);
      Result<RunConfig> back = RunConfigFromJson(RunConfigToJson(red));
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_EQ(*back, red);
      RunConfig forward = b;
      ASSERT_TRUE(RevertFactor(&forward, red, axis).ok());
      EXPECT_EQ(forward, red) << "reverting " << axis << " toward the red draw, run " << i;
      ASSERT_TRUE(RevertFactor(&red, b, axis).ok());
      EXPECT_EQ(red, b) << "reverting " << axis << " left a drawn parameter behind, run " << i;
    }
  }
}

// The check above fails when a revert forgets a parameter: a revert of sync that copies only
// the text leaves sync_params behind and is caught.
TEST(AxisTableTest, ARevertThatForgetsAParameterIsCaught_bad) {
  const SpecCheck base = SpecWith("", nullptr), other = SpecWith("sync", "messages:6");
  ASSERT_TRUE(base.ok() && other.ok());
  const RunConfig b = Draw(base.spec, 0);
  RunConfig red = Draw(other.spec, 0);
  red.sync = b.sync;  // what a text-only revert would do
  EXPECT_NE(red, b);
  EXPECT_FALSE(RevertFactor(&red, b, "colour").ok());
}

}  // namespace
}  // namespace ctte::runner
