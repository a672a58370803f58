// The campaign features axis (docs/campaign-spec.md, "The features axis"): values, canonical
// text, drawing without disturbing the other axes, the clamp to an image's compiled features and
// the check of controls that fix features.
#include "runner/features_axis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "base/check.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/run_config.h"

namespace ctte::runner {
namespace {

using nlohmann::json;

json Tiny() {
  return json::parse(R"({"name": "t", "seed": 7, "runs": 10,
    "images": ["ntrace-slim", "ntrace-full"], "axes": {"workload": ["loop", "calls"]}})");
}

SpecCheck Parse(const json& j) { return ParseCampaignSpec(j.dump()); }

std::string Errors(const SpecCheck& c) {
  std::string s;
  for (const SpecError& e : c.errors) s += e.ToString() + "\n";
  return s;
}

std::vector<std::string> Values(const json& axis) {
  json j = Tiny();
  j["axes"]["features"] = axis;
  SpecCheck c = Parse(j);
  EXPECT_TRUE(c.ok()) << Errors(c);
  std::vector<std::string> out;
  for (const WeightedValue& v : c.spec.axis("features").values) out.push_back(v.value);
  return out;
}

std::string ErrorOf(const json& axis) {
  json j = Tiny();
  j["axes"]["features"] = axis;
  return Errors(Parse(j));
}

TEST(FeaturesAxisTest, ValuesAreListsOfFeatureNamesInCanonicalForm) {
  EXPECT_EQ(Values(json::parse(R"(["none", ["implicit-return"], ["implicit-return:016"]])")),
            (std::vector<std::string>{"none", "implicit-return", "implicit-return:16"}));
  // [] and "none" are the empty set; the --features text form is accepted too.
  EXPECT_EQ(Values(json::parse(R"([[], {"value": "implicit-return:8", "weight": 3}])")),
            (std::vector<std::string>{"none", "implicit-return:8"}));
  // Left out, the axis is the single value none.
  SpecCheck c = Parse(Tiny());
  ASSERT_TRUE(c.ok()) << Errors(c);
  ASSERT_EQ(c.spec.axis("features").values.size(), 1u);
  EXPECT_EQ(c.spec.axis("features").values[0].value, "none");
}

TEST(FeaturesAxisTest, BadValuesNameTheirJsonPath_bad) {
  EXPECT_THAT(ErrorOf(json::parse(R"(["none", ["bogus"]])")),
              testing::HasSubstr("$.axes.features[1]: feature [0]: 'bogus': unknown feature"));
  EXPECT_THAT(ErrorOf(json::parse(R"([["implicit-return:40"]])")),
              testing::HasSubstr("$.axes.features[0]: feature [0]: 'implicit-return:40': the "
                                 "stack depth must be 1..32"));
  EXPECT_THAT(ErrorOf(json::parse(R"([{"value": ["implicit-return:x"]}])")),
              testing::HasSubstr("$.axes.features[0].value: feature [0]: 'implicit-return:x'"));
  EXPECT_THAT(ErrorOf(json::parse(R"([["implicit-return", "implicit-return:8"]])")),
              testing::HasSubstr("implicit-return is listed twice"));
  EXPECT_THAT(ErrorOf(json::parse(R"([[5]])")),
              testing::HasSubstr("$.axes.features[0]: feature [0]: wrong type"));
  EXPECT_THAT(ErrorOf(json::parse(R"([["implicit-return,none"]])")),
              testing::HasSubstr("one feature name per entry"));
  EXPECT_THAT(ErrorOf(json::parse(R"(["none", []])")),
              testing::HasSubstr("$.axes.features[1]: duplicate value \"none\""));
  EXPECT_THAT(ErrorOf(json::parse(R"([3])")), testing::HasSubstr("$.axes.features[0]: wrong type"));
  EXPECT_THAT(ErrorOf(json::parse(R"([{"value": ["implicit-return:4"]}, ["implicit-return:04"]])")),
              testing::HasSubstr("duplicate value \"implicit-return:4\""));
}

// A spec without the axis draws nothing for it: no "features" key, configs as before. With the
// axis, only the features value moves: every other draw is the same, run for run.
TEST(FeaturesAxisTest, TheAxisMovesNoOtherDraw) {
  json j = Tiny();
  j["runs"] = 300;
  const SpecCheck before = Parse(j);
  j["axes"]["features"] = json::parse(R"(["none", ["implicit-return"]])");
  const SpecCheck after = Parse(j);
  ASSERT_TRUE(before.ok() && after.ok()) << Errors(after);
  std::map<std::string, int> seen;
  for (uint64_t i = 0; i < 300; ++i) {
    const RunConfig a = Draw(before.spec, i);
    RunConfig b = Draw(after.spec, i);
    EXPECT_EQ(a.features, "");
    EXPECT_EQ(RunConfigToJson(a).find("features"), std::string::npos);
    ++seen[b.features];
    EXPECT_NE(RunConfigToJson(b).find("\"features\":\"" + b.features + "\""), std::string::npos);
    EXPECT_EQ(b.features, Draw(after.spec, i).features);  // deterministic
    b.features.clear();
    EXPECT_EQ(a, b) << i;
  }
  EXPECT_GT(seen["none"], 100);
  EXPECT_GT(seen["implicit-return"], 100);
  // A features axis of just none is the same as none at all.
  j["axes"]["features"] = json::array({"none"});
  const SpecCheck none = Parse(j);
  for (uint64_t i = 0; i < 20; ++i) EXPECT_EQ(Draw(none.spec, i), Draw(before.spec, i));
}

lab::ImageManifest Image(const std::string& name, std::vector<std::string> features,
                         uint32_t depth) {
  lab::ImageManifest m;
  m.name = name;
  m.features = std::move(features);
  m.return_stack_depth = depth;
  return m;
}

TEST(FeaturesAxisTest, TheClampDropsWhatTheImageDoesNotCompile) {
  const lab::ImageManifest slim = Image("ntrace-slim", {}, 0);
  const lab::ImageManifest full = Image("ntrace-full", {"implicit-return"}, 16);
  std::vector<std::string> dropped;
  EXPECT_EQ(ClampFeatures("implicit-return", slim, &dropped), "none");
  EXPECT_EQ(dropped, std::vector<std::string>{"implicit-return"});
  EXPECT_EQ(ClampFeatures("implicit-return", full), "implicit-return");
  EXPECT_EQ(ClampFeatures("implicit-return:16", full), "implicit-return:16");
  EXPECT_EQ(ClampFeatures("implicit-return:8", full), "none");  // the depth is the image's
  EXPECT_EQ(ClampFeatures("none", full), "none");
  // A name the manifest does not list is dropped, the others kept (a name the oracle does not
  // implement is dropped too: the spec checker refuses it before any draw).
  dropped.clear();
  EXPECT_EQ(ClampFeatures("implicit-return,repeat-branch", full, &dropped), "implicit-return");
  EXPECT_EQ(dropped, std::vector<std::string>{"repeat-branch"});
  EXPECT_EQ(ClampFeatures("implicit-return", Image("x", {"repeat-branch"}, 16)), "none");
  EXPECT_THAT(FeatureEntryOnImage("implicit-return", slim).message(),
              testing::HasSubstr("image ntrace-slim does not compile implicit-return"));
}

std::string WriteManifest(const std::string& dir, const std::string& name,
                          const std::string& features, uint32_t depth) {
  const std::string path = dir + "/" + name + ".manifest.json";
  std::ofstream(path) << "{\"name\": \"" << name << "\", \"sha256\": \"" << std::string(64, 'a')
                      << "\", \"build_id\": \"0x1\", \"fmax_mhz\": 90, \"features\": " << features
                      << ", \"return_stack_depth\": " << depth << "}";
  return path;
}

TEST(FeaturesAxisTest, AControlThatFixesAFeatureItsImageLacksIsRefused_bad) {
  const std::string dir = ::testing::TempDir() + "ctte_features_axis";
  std::filesystem::create_directories(dir);
  WriteManifest(dir, "ntrace-slim", "[]", 0);
  WriteManifest(dir, "ntrace-full", "[\"implicit-return\"]", 16);
  json j = Tiny();
  j["controls"] = json::parse(R"([
    {"name": "ok", "image": "ntrace-full", "expect_red": [], "axes": {"features": ["implicit-return"]}},
    {"name": "drawn", "image": "ntrace-slim", "expect_red": []},
    {"name": "bad", "image": "ntrace-slim", "expect_red": [], "axes": {"features": ["implicit-return"]}}
  ])");
  SpecCheck c = Parse(j);
  ASSERT_TRUE(c.ok()) << Errors(c);
  const Status st = CheckControlFeatures(c.spec, dir, "");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), testing::HasSubstr("$.controls[2].axes.features: control bad fixes "
                                               "'implicit-return', but image ntrace-slim does "
                                               "not compile implicit-return"));
  j["controls"].erase(2);
  c = Parse(j);
  EXPECT_TRUE(CheckControlFeatures(c.spec, dir, "").ok());
}

}  // namespace
}  // namespace ctte::runner
