// A soak whose image lies about its features (docs/board-protocol.md, "Feature capabilities at
// deploy"): a copy of ntrace-slim's manifest that claims implicit return (a consistent lie:
// features, return_stack_depth and feature_caps) next to an honest ntrace-full. Every run of the
// lying image is one infra failure (manifest_mismatch) naming the image, the register, the bit
// and the feature, never red and never retried; the honest image's runs (with implicit return
// and determinism twins) are green; the soak finishes (exit 2: infra runs) and stores every run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/runner/soak_test_support.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;
using soak_testing::Cmd;
using soak_testing::RunLab;

constexpr const char* kSpec = R"({
  "name": "lying-image",
  "seed": "0x000000000000ca75",
  "runs": 10,
  "images": ["ntrace-slim", "ntrace-full"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 3000,
  "determinism_pairs": 0.5,
  "axes": {"mode": ["htm"], "workload": ["calls"], "features": ["none", ["implicit-return"]]}
})";

// Copies build/images/NAME.manifest.json into `dir`, its image path made absolute, edited.
void CopyManifest(const std::string& name, const std::string& dir, bool lie) {
  const std::string images = std::string(CTTE_BINARY_DIR) + "/images/";
  std::ifstream in(images + name + ".manifest.json");
  nlohmann::json m = nlohmann::json::parse(in);
  m["image"] = images + m["image"].get<std::string>();
  if (lie) {  // what ntrace-full claims, on the slim design
    m["features"] = {"implicit-return"};
    m["return_stack_depth"] = 16;
    m["feature_caps"] = 0x1001;
  }
  std::ofstream(dir + "/" + name + ".manifest.json") << m.dump(2);
}

TEST(DeployCapsSoakTest, ALyingImageIsInfraForEachOfItsRunsAndTheSoakGoesOn_bad) {
  const std::string dir = ::testing::TempDir() + "ctte_caps_soak_" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir + "/images");
  CopyManifest("ntrace-slim", dir + "/images", /*lie=*/true);
  CopyManifest("ntrace-full", dir + "/images", /*lie=*/false);
  const std::string spec = dir + "/lying-image.json";
  std::ofstream(spec) << kSpec;
  const std::string db_path = dir + "/c.db";
  const Cmd soak = RunLab("soak " + spec + " --boards 2 --db " + db_path + " --image-dir " + dir +
                          "/images --workload-dir " + CTTE_BINARY_DIR + "/workloads" +
                          " --report-dir " + dir + "/reports");
  // The soak finishes: infra runs exit 2 (infrastructure), not 1 (red) and not a crash.
  EXPECT_EQ(soak.exit_code, 2) << soak.out;
  EXPECT_NE(soak.out.find("0 red"), std::string::npos) << soak.out;
  EXPECT_NE(soak.out.find("0 runs retried"), std::string::npos) << soak.out;

  const std::vector<db::RunRow> rows = soak_testing::CampaignRuns(db_path, "lying-image");
  ASSERT_FALSE(rows.empty());
  int slim = 0, full_ir = 0;
  for (const db::RunRow& r : rows) {
    const nlohmann::json c = nlohmann::json::parse(r.run.config_json);
    if (c["image"] == "ntrace-slim") {
      ++slim;
      EXPECT_EQ(r.run.status, db::RunStatus::kInfra) << r.run.config_json;
      EXPECT_EQ(r.run.infra_cause, "manifest_mismatch");  // stored one to one (#29)
      EXPECT_EQ(r.earlier_attempts, 0u) << "a lying image is not retried";
      const std::string reason = db::StatusReasonOf(r.run.metrics_json);
      EXPECT_NE(reason.find("manifest mismatch: image ntrace-slim: the manifest lists feature "
                            "implicit-return, but ctteFeatureCaps (0x12c) bit 0 reads 0"),
                std::string::npos)
          << reason;
    } else {
      EXPECT_EQ(r.run.status, db::RunStatus::kGreen) << r.run.metrics_json;
      full_ir += c["axes"]["features"] == "implicit-return";
    }
  }
  EXPECT_GE(static_cast<int>(rows.size()), 10);  // every drawn run stored (and the twins)
  EXPECT_GT(slim, 0);
  EXPECT_GT(full_ir, 0) << "no honest run enabled a feature";
  EXPECT_EQ(soak.out.find("quarantined"), std::string::npos) << soak.out;  // not a board fault
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ctte::runner
