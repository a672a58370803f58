// The features axis end to end (docs/campaign-spec.md, "The features axis"): a soak over the
// slim and full images crossing implicit return. The drawn set is clamped to each run's image
// (slim runs record "none", full runs the drawn set), every run is green, the set shows in
// `history`, `show` and the HTML report, and a stored run with implicit return replays
// bit-identically.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/draw.h"
#include "runner/campaign_spec.h"
#include "tests/runner/soak_test_support.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;
using soak_testing::Cmd;
using soak_testing::RunLab;

constexpr const char* kSpec = R"({
  "name": "features-tiny",
  "seed": "0x00000000000fea70",
  "runs": 12,
  "images": ["ntrace-slim", "ntrace-full"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 3000,
  "axes": {
    "mode": ["htm", "btm"],
    "workload": ["calls"],
    "sync": ["off", "messages:8"],
    "features": ["none", ["implicit-return"]]
  },
  "controls": [
    {"name": "ir", "image": "ntrace-full", "expect_red": [],
     "axes": {"features": ["implicit-return"], "mode": "btm"}}
  ]
})";

TEST(FeaturesSoakTest, DrawnSetsAreClampedToTheImageShownEverywhereAndReplay) {
  const std::string dir = ::testing::TempDir() + "ctte_features_soak_" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string spec = dir + "/features-tiny.json";
  std::ofstream(spec) << kSpec;
  const std::string db_path = dir + "/f.db";
  Cmd soak = RunLab("soak " + spec + " --boards 2 --db " + db_path +
                    " --store-streams all --report-dir " + dir + "/reports");
  ASSERT_EQ(soak.exit_code, 0) << soak.out;

  auto parsed = ParseCampaignSpec(kSpec);
  ASSERT_TRUE(parsed.ok());
  const std::vector<db::RunRow> rows = soak_testing::CampaignRuns(db_path, "features-tiny");
  ASSERT_FALSE(rows.empty());
  std::map<std::string, int> seen;  // image + features
  int64_t ir_run = 0;
  for (const db::RunRow& r : rows) {
    if (r.run.replay_of) continue;
    const nlohmann::json c = nlohmann::json::parse(r.run.config_json);
    ASSERT_TRUE(c["axes"].contains("features")) << r.run.config_json;
    const std::string features = c["axes"]["features"];
    const std::string image = c["image"];
    EXPECT_EQ(r.run.status, db::RunStatus::kGreen) << r.run.config_json;
    if (c.contains("control")) {
      EXPECT_EQ(features, "implicit-return");
      continue;
    }
    const RunConfig drawn = Draw(parsed.spec, r.run.index);
    EXPECT_EQ(drawn.image, image);
    if (image == "ntrace-slim") {
      EXPECT_EQ(features, "none") << "slim compiles no feature: drawn " << drawn.features;
    } else {
      EXPECT_EQ(features, drawn.features);
      if (features == "implicit-return") ir_run = r.id;
    }
    ++seen[image + " " + features];
    ++seen["drawn " + drawn.features];
  }
  // The draws exercised the clamp (implicit-return drawn on slim) and the feature on full.
  EXPECT_GT(seen["drawn implicit-return"], seen["ntrace-full implicit-return"]) << soak.out;
  ASSERT_NE(ir_run, 0) << "no run drew implicit-return on ntrace-full";

  Cmd replay = RunLab("replay " + std::to_string(ir_run) + " --db " + db_path);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_NE(replay.out.find("stream: bit-identical"), std::string::npos) << replay.out;
  Cmd show = RunLab("show " + std::to_string(ir_run) + " --db " + db_path);
  EXPECT_EQ(show.exit_code, 0) << show.out;
  EXPECT_NE(show.out.find("features=implicit-return"), std::string::npos) << show.out;
  Cmd history = RunLab("history --campaign features-tiny --db " + db_path);
  EXPECT_EQ(history.exit_code, 0) << history.out;
  EXPECT_NE(history.out.find("features"), std::string::npos) << history.out;
  EXPECT_NE(history.out.find("implicit-return"), std::string::npos) << history.out;
  std::ifstream html(dir + "/reports/features-tiny-1.html");
  std::stringstream h;
  h << html.rdbuf();
  EXPECT_NE(h.str().find("implicit-return"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ctte::runner
