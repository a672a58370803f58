// The feature capabilities at deploy (docs/board-protocol.md, "Feature capabilities at deploy"):
// after the deploy and the receipt check, the session reads ctteFeatureCaps and trTeInstFeatures
// from the design and refuses a manifest that lies about its features; a run that enables
// features reads the enables back (WARL) and is refused when the design did not take them. Both
// are infra (manifest_mismatch), never judged. On in-process simulated boards.
#include <gtest/gtest.h>

#include <memory>

#include "base/check.h"
#include "lab/board_wrapper.h"
#include "lab/sim/sim_board.h"
#include "regmap/registers.h"
#include "tests/integration/board_fixture.h"

namespace ctte::testing {
namespace {

// A SimBoard whose trTeInstFeatures drops the enable bits in `stuck` on read (hardware that did
// not take them), and that counts its runs.
class StuckEnableBoard : public lab::BoardWrapper {
 public:
  explicit StuckEnableBoard(lab::Board* target) : lab::BoardWrapper(target) {}
  Result<uint32_t> ReadReg(uint32_t offset) override {
    Result<uint32_t> v = lab::BoardWrapper::ReadReg(offset);
    if (v.ok() && offset == reg::kTeInstFeatures) return *v & ~stuck;
    return v;
  }
  Result<lab::Capture> Run(const lab::RunPlan& plan) override {
    ++runs;
    return lab::BoardWrapper::Run(plan);
  }
  uint32_t stuck = 0;
  int runs = 0;
};

class DeployFeaturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!HaveImagesAndWorkloads(&why)) GTEST_SKIP() << why;
    Result<std::unique_ptr<lab::SimBoard>> b = lab::SimBoard::Create({});
    CTTE_CHECK(b.ok(), "cannot create a SimBoard");
    sim_ = std::move(*b);
    board_ = std::make_unique<StuckEnableBoard>(sim_.get());
  }
  static runner::PreparedRun Prepare(const std::string& image, const std::string& features) {
    runner::RunConfig c = BaseConfig(image, "calls");
    c.features = features;
    Result<runner::PreparedRun> p = runner::PrepareRun(c, TestOptions(20'000));
    CTTE_CHECK(p.ok(), p.status().ToString().c_str());
    return std::move(*p);
  }
  runner::RunOutcome Execute(const runner::PreparedRun& run) {
    return runner::ExecuteRun(run, *board_, nullptr, TestOptions(20'000));
  }
  void ExpectRefused(const runner::RunOutcome& out, const std::string& message) {
    EXPECT_EQ(out.status, runner::RunStatus::kInfra) << runner::FormatOutcome(out);
    EXPECT_EQ(out.cause, runner::InfraCause::kManifestMismatch) << out.status_reason;
    EXPECT_NE(out.status_reason.find(message), std::string::npos) << out.status_reason;
    EXPECT_TRUE(out.verdicts.empty());
    EXPECT_EQ(board_->runs, 0) << "a refused deploy must not run";
  }

  std::unique_ptr<lab::SimBoard> sim_;
  std::unique_ptr<StuckEnableBoard> board_;
};

TEST_F(DeployFeaturesTest, HonestImagesDeployAndRunWithTheirFeatures) {
  EXPECT_EQ(Execute(Prepare("ntrace-slim", "")).status, runner::RunStatus::kGreen);
  const runner::RunOutcome full = Execute(Prepare("ntrace-full", "implicit-return"));
  EXPECT_EQ(full.status, runner::RunStatus::kGreen) << runner::FormatOutcome(full);
  EXPECT_EQ(board_->runs, 2);
}

// The slim image's manifest claiming implicit return: the design's ctteFeatureCaps bit 0 is clear.
TEST_F(DeployFeaturesTest, ASlimManifestClaimingImplicitReturnIsRefused_bad) {
  runner::PreparedRun run = Prepare("ntrace-slim", "");
  run.manifest.features.push_back("implicit-return");
  ExpectRefused(Execute(run),
                "manifest mismatch: image ntrace-slim: the manifest lists feature "
                "implicit-return, but ctteFeatureCaps (0x12c) bit 0 reads 0: the design does not "
                "compile it");
}

// The full image's manifest with a feature removed, or another stack depth.
TEST_F(DeployFeaturesTest, AFullManifestMissingAFeatureOrItsDepthIsRefused_bad) {
  runner::PreparedRun run = Prepare("ntrace-full", "");
  std::erase(run.manifest.features, "repeated-history");
  ExpectRefused(Execute(run),
                "image ntrace-full: ctteFeatureCaps (0x12c) bit 4 (repeated-history) reads 1, "
                "but the manifest's features do not list repeated-history");
  run = Prepare("ntrace-full", "");
  run.manifest.return_stack_depth = 8;
  ExpectRefused(Execute(run),
                "ctteFeatureCaps (0x12c) bits 13:8 (return stack depth) read 16, manifest "
                "return_stack_depth 8");
}

// WARL: an enable the design did not take refuses the run before it starts.
TEST_F(DeployFeaturesTest, AnEnableThatDoesNotHoldIsInfra_bad) {
  board_->stuck = reg::kFeatEnRepeatedHistory;
  const runner::PreparedRun ir = Prepare("ntrace-full", "implicit-return");
  EXPECT_EQ(Execute(ir).status, runner::RunStatus::kGreen);  // the stuck bit is not asked for
  board_->runs = 0;
  ExpectRefused(Execute(Prepare("ntrace-full", "implicit-return,repeated-history")),
                "feature enables: image ntrace-full: the repeated-history enable did not hold: "
                "wrote 0x108 to trTeInstFeatures (0x8), read back 0xc8");
}

}  // namespace
}  // namespace ctte::testing
