#include "runner/campaign_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ctte::runner {
namespace {

using nlohmann::json;

json ValidSpec() {
  return json::parse(R"({
    "name": "t",
    "seed": 7,
    "runs": 4,
    "images": ["ntrace-slim"],
    "axes": {"mode": ["htm", "btm"], "workload": ["loop"]}
  })");
}

SpecCheck Parse(const json& j) { return ParseCampaignSpec(j.dump()); }

/// Printable list of errors for failure messages.
std::string Dump(const SpecCheck& c) {
  std::string s;
  for (const auto& e : c.errors) s += "  " + e.ToString() + "\n";
  return s;
}

/// True if some error has exactly this path and a reason containing `reason_part`.
bool HasError(const SpecCheck& c, const std::string& path, const std::string& reason_part) {
  for (const auto& e : c.errors) {
    if (e.path == path && e.reason.find(reason_part) != std::string::npos) return true;
  }
  return false;
}

TEST(CampaignSpecTest, ValidSpecParsesWithDefaultsForMissingAxes) {
  SpecCheck c = Parse(ValidSpec());
  ASSERT_TRUE(c.ok()) << Dump(c);
  EXPECT_EQ(c.spec.name, "t");
  EXPECT_EQ(c.spec.seed, 7u);
  EXPECT_EQ(c.spec.runs, 4u);
  EXPECT_FALSE(c.spec.budget_seconds.has_value());
  ASSERT_EQ(c.spec.axes.size(), AxisNames().size());
  EXPECT_EQ(c.spec.axis("mode").values.size(), 2u);
  ASSERT_EQ(c.spec.axis("sync").values.size(), 1u);
  EXPECT_EQ(c.spec.axis("sync").values[0].value, "off");
  EXPECT_EQ(c.spec.axis("fabric_mhz").values[0].value, "100");
}

TEST(CampaignSpecTest, ShippedCampaignsAreValid) {
  for (const char* name : {"smoke", "nightly"}) {
    auto loaded = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/" + name + ".json");
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_TRUE(loaded->ok()) << name << ":\n" << Dump(*loaded);
  }
}

TEST(CampaignSpecTest, NightlyUsesEveryAxisWithMoreThanOneValue) {
  auto loaded = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/nightly.json");
  ASSERT_TRUE(loaded.ok() && loaded->ok());
  for (const Axis& a : loaded->spec.axes) EXPECT_GT(a.values.size(), 1u) << a.name;
  EXPECT_TRUE(loaded->spec.budget_seconds.has_value());
}

// $.capture.ring_bytes: what every run asks its board for; default the old 1 MiB.
TEST(CampaignSpecTest, CaptureRingIsParsedAndValidatedWithItsPath) {
  SpecCheck plain = Parse(ValidSpec());
  ASSERT_TRUE(plain.ok()) << Dump(plain);
  EXPECT_EQ(plain.spec.ring_bytes, lab::kDefaultRingBytes);
  json j = ValidSpec();
  j["capture"] = {{"ring_bytes", 8388608}};
  SpecCheck big = Parse(j);
  ASSERT_TRUE(big.ok()) << Dump(big);
  EXPECT_EQ(big.spec.ring_bytes, 8388608u);
  const std::pair<const char*, const char*> bad[] = {
      {R"({"ring_bytes": 0})", "non-positive ring size 0"},
      {R"({"ring_bytes": 2147483648})", "ring size 2147483648 out of range (at most 1073741824)"},
      {R"({"ring_bytes": "8MiB"})", "wrong type: expected integer"},
      {R"({"ring_bytes": -1})", "non-positive ring size -1"}};
  for (const auto& [value, reason] : bad) {
    j["capture"] = json::parse(value);
    SpecCheck c = Parse(j);
    EXPECT_TRUE(HasError(c, "$.capture.ring_bytes", reason)) << value << ": " << Dump(c);
  }
  j["capture"] = {{"ring_byte", 4096}};
  EXPECT_TRUE(HasError(Parse(j), "$.capture.ring_byte", "unknown key"));
  j["capture"] = 4096;
  EXPECT_TRUE(HasError(Parse(j), "$.capture", "wrong type: expected object"));
}

// Replay, triage and bisect read the ring from the campaign row's stored spec text; a spec
// stored before the field existed gives the ring those runs had (1 MiB).
TEST(CampaignSpecTest, CaptureRingOfAStoredSpecTextDefaultsToTheOldRing) {
  json j = ValidSpec();
  Result<uint64_t> old = CaptureRingOfSpecText(j.dump());
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(*old, lab::kDefaultRingBytes);
  EXPECT_EQ(*CaptureRingOfSpecText(""), lab::kDefaultRingBytes);
  j["capture"] = {{"ring_bytes", 65536}};
  EXPECT_EQ(*CaptureRingOfSpecText(j.dump(2)), 65536u);
  j["capture"] = {{"ring_bytes", "big"}};
  Result<uint64_t> bad = CaptureRingOfSpecText(j.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), testing::HasSubstr("$.capture.ring_bytes"));
  auto nightly = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/nightly.json");
  ASSERT_TRUE(nightly.ok() && nightly->ok());
  EXPECT_EQ(nightly->spec.ring_bytes, 8388608u);  // docs/campaign-spec.md, "Capture ring"
}

TEST(CampaignSpecTest, MissingFileIsAStatus) {
  auto loaded = LoadCampaignSpec("/nonexistent/spec.json");
  EXPECT_FALSE(loaded.ok());
}

TEST(CampaignSpecTest, InvalidJsonNamesTheByteOffset) {
  SpecCheck c = ParseCampaignSpec("{\"name\": \"t\",, }");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].path, "$");
  EXPECT_THAT(c.errors[0].reason, testing::HasSubstr("at byte 13 (line 1, column 14)"));
}

TEST(CampaignSpecTest, UnknownKeysAreReportedWithTheirPath) {
  json j = ValidSpec();
  j["nmae"] = "typo";
  j["clocks"] = {{"fabric_mhz", 100}, {"sink_hz", 5}};
  j["axes"]["colour"] = json::array({"red"});
  j["axes"]["mode"] = json::parse(R"([{"value": "htm", "wieght": 2}])");
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.nmae", "unknown key")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.clocks.sink_hz", "unknown key")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.colour", "unknown key")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.mode[0].wieght", "unknown key")) << Dump(c);
}

TEST(CampaignSpecTest, WrongTypesAreReportedWithTheirPath) {
  json j = ValidSpec();
  j["runs"] = "4";
  j["description"] = 3;
  j["axes"]["workload"] = "loop";
  j["axes"]["mode"] = json::array({1});
  j["axes"]["fabric_mhz"] = json::array({"100"});
  j["determinism_pairs"] = "half";
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.runs", "wrong type: expected integer, got string")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.description", "wrong type")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.workload", "wrong type: expected array")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.mode[0]", "wrong type: expected string")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.fabric_mhz[0]", "wrong type")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.determinism_pairs", "wrong type")) << Dump(c);
}

TEST(CampaignSpecTest, EmptyAxisIsAnError) {
  json j = ValidSpec();
  j["axes"]["interrupts"] = json::array();
  j["images"] = json::array();
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.axes.interrupts", "empty axis")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.images", "empty axis")) << Dump(c);
}

TEST(CampaignSpecTest, NonPositiveWeightIsAnError) {
  json j = ValidSpec();
  j["axes"]["mode"] = json::parse(R"([{"value": "htm", "weight": 0},
                                      {"value": "btm", "weight": -3}])");
  j["axes"]["window"] = json::parse(R"([{"value": "full", "weight": 1.5}])");
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.axes.mode[0].weight", "non-positive weight")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.mode[1].weight", "non-positive weight")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.window[0].weight", "wrong type")) << Dump(c);
}

TEST(CampaignSpecTest, UnknownAxisValuesAreErrors) {
  json j = ValidSpec();
  j["axes"]["workload"] = json::array({"loop", "loops"});
  j["axes"]["backpressure"] = json::array({"uniform:0", "bursty:9-3", "sometimes"});
  j["axes"]["sync"] = json::array({"messages:3", "cycles:8"});
  j["axes"]["fabric_mhz"] = json::array({0, 5000});
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.axes.workload[1]", "unknown axis value \"loops\"")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.backpressure[0]", "unknown axis value")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.backpressure[1]", "min <= max")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.backpressure[2]", "unknown axis value")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.sync[0]", "period_log2 must be 4..19")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.sync[1]", "unknown axis value")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.fabric_mhz[0]", "1..1000 MHz")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.fabric_mhz[1]", "1..1000 MHz")) << Dump(c);
}

TEST(CampaignSpecTest, DuplicateValuesAreErrorsAfterCanonicalisation) {
  json j = ValidSpec();
  j["axes"]["mode"] = json::parse(R"(["htm", {"value": "htm", "weight": 2}])");
  j["axes"]["backpressure"] = json::array({"uniform:50", "uniform:050"});
  j["images"] = json::array({"ntrace-slim", "ntrace-slim"});
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.axes.mode[1].value", "duplicate value \"htm\"")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.backpressure[1]", "duplicate value \"uniform:50\""))
      << Dump(c);
  EXPECT_TRUE(HasError(c, "$.images[1]", "duplicate value")) << Dump(c);
}

TEST(CampaignSpecTest, SeedAcceptsIntegersAndHexStrings) {
  json j = ValidSpec();
  j["seed"] = "0xFFFFFFFFFFFFFFFF";
  SpecCheck c = Parse(j);
  ASSERT_TRUE(c.ok()) << Dump(c);
  EXPECT_EQ(c.spec.seed, UINT64_MAX);
  j["seed"] = json(uint64_t{18446744073709551615ULL});
  c = Parse(j);
  ASSERT_TRUE(c.ok()) << Dump(c);
  EXPECT_EQ(c.spec.seed, UINT64_MAX);
}

TEST(CampaignSpecTest, SeedOutOfRangeIsAnError) {
  for (const char* bad : {"-1", "18446744073709551616", "1.5", "\"0x10000000000000000\""}) {
    json j = ValidSpec();
    j["seed"] = json::parse(bad);
    SpecCheck c = Parse(j);
    EXPECT_TRUE(HasError(c, "$.seed", "seed out of range")) << bad << "\n" << Dump(c);
  }
  json j = ValidSpec();
  j["seed"] = "0xnothex";
  EXPECT_TRUE(HasError(Parse(j), "$.seed", "bad seed"));
}

TEST(CampaignSpecTest, MissingRequiredFieldsAreErrors) {
  json j = ValidSpec();
  j.erase("name");
  j.erase("seed");
  j.erase("images");
  j["axes"]["mode"] = json::parse(R"([{"weight": 2}])");
  SpecCheck c = Parse(j);
  EXPECT_TRUE(HasError(c, "$.name", "missing required field")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.seed", "missing required field")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.images", "missing required field")) << Dump(c);
  EXPECT_TRUE(HasError(c, "$.axes.mode[0].value", "missing required field")) << Dump(c);
}

TEST(CampaignSpecTest, RunsAndBudgetBothOrNeitherAreErrors) {
  json both = ValidSpec();
  both["budget"] = "2h";
  EXPECT_TRUE(HasError(Parse(both), "$.runs", "both given"));
  json neither = ValidSpec();
  neither.erase("runs");
  EXPECT_TRUE(HasError(Parse(neither), "$.runs", "give runs or budget"));
  json zero = ValidSpec();
  zero["runs"] = 0;
  EXPECT_TRUE(HasError(Parse(zero), "$.runs", "non-positive"));
}

TEST(CampaignSpecTest, BudgetDurationsParse) {
  EXPECT_EQ(ParseDuration("2h"), 7200u);
  EXPECT_EQ(ParseDuration("30m"), 1800u);
  EXPECT_EQ(ParseDuration("90s"), 90u);
  EXPECT_EQ(ParseDuration("1h30m"), 5400u);
  EXPECT_FALSE(ParseDuration("").has_value());
  EXPECT_FALSE(ParseDuration("2").has_value());
  EXPECT_FALSE(ParseDuration("2d").has_value());
  EXPECT_FALSE(ParseDuration("0s").has_value());
  json j = ValidSpec();
  j.erase("runs");
  j["budget"] = "2 hours";
  EXPECT_TRUE(HasError(Parse(j), "$.budget", "bad duration"));
  j["budget"] = "45m";
  SpecCheck c = Parse(j);
  ASSERT_TRUE(c.ok()) << Dump(c);
  EXPECT_EQ(c.spec.budget_seconds, 2700u);
}

TEST(CampaignSpecTest, DeterminismPairsMustBeAFraction) {
  json j = ValidSpec();
  j["determinism_pairs"] = 1.5;
  EXPECT_TRUE(HasError(Parse(j), "$.determinism_pairs", "out of range (0..1)"));
  j["determinism_pairs"] = 0.25;
  SpecCheck c = Parse(j);
  ASSERT_TRUE(c.ok()) << Dump(c);
  EXPECT_EQ(c.spec.determinism_pairs_ppm, 250000u);
}

TEST(CampaignSpecTest, AllErrorsAreCollectedNotJustTheFirst) {
  json j = ValidSpec();
  j["bogus"] = 1;
  j["seed"] = -5;
  j["runs"] = "x";
  j["axes"]["mode"] = json::array();
  j["axes"]["workload"] = json::array({"nope"});
  SpecCheck c = Parse(j);
  EXPECT_EQ(c.errors.size(), 5u) << Dump(c);
}

}  // namespace
}  // namespace ctte::runner
