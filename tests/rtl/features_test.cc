// Optional compression features in the RTL (docs/encoder-behaviour.md section 11): the WARL
// trTeInstFeatures register and ctteFeatureCaps per profile; on ntrace-full, with every feature
// set, every workload's RTL bytes equal the reference encoder's and decode to the ISS's PCs;
// under heavy backpressure every decoded segment is still a run of the ISS's PCs (no
// compression state survives a loss) and no standing assertion fires.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/files.h"
#include "oracle/features.h"
#include "oracle/reconstruct.h"
#include "tests/rtl/rtl_checks.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::EncoderConfig;
using oracle::TraceMode;

constexpr uint32_t kFullDepth = 16;  // RAS_DEPTH of ntrace-full (rtl/CMakeLists.txt)

nlohmann::json Manifest(const std::string& name) {
  Result<std::string> text =
      ReadFileText(std::string(CTTE_BINARY_DIR) + "/images/" + name + ".manifest.json");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json{};
}

TEST(FeatureRegisterTest, InstFeaturesIsWarlPerProfile) {
  for (const char* name : {"ntrace-slim", "ntrace-shallow", "ntrace-full"}) {
    SCOPED_TRACE(name);
    const bool full = std::string(name) == "ntrace-full";
    const nlohmann::json m = Manifest(name);
    EXPECT_EQ(m.at("features"),
              full ? nlohmann::json::array({"implicit-return", "repeated-history", "repeat-branch",
                                            "sequential-jump", "full-address", "config-message"})
                   : nlohmann::json::array());
    EXPECT_EQ(m.at("return_stack_depth").get<uint32_t>(), full ? kFullDepth : 0u);
    auto h = LoadImage(name);
    ASSERT_NE(h, nullptr);
    h->Reset();
    const uint32_t mode3 = 3u << reg::kFeatImplicitReturnModeLsb;
    EXPECT_EQ(h->ReadReg(reg::kTeInstFeatures), full ? mode3 : 0u) << "reset";
    h->WriteReg(reg::kTeInstFeatures, 0xFFFFFFFFu);
    const uint32_t enables =
        reg::kFeatEnImplicitReturn | reg::kFeatEnRepeatedHistory | reg::kFeatEnRepeatBranch |
        reg::kFeatEnSequentialJump | reg::kFeatNoAddrDiff | reg::kFeatEnConfigMessage;
    EXPECT_EQ(h->ReadReg(reg::kTeInstFeatures), full ? mode3 | enables : 0u)
        << "only a compiled feature's enable holds a 1";
    h->WriteReg(reg::kTeInstFeatures, 0);
    EXPECT_EQ(h->ReadReg(reg::kTeInstFeatures), full ? mode3 : 0u);
    EXPECT_EQ(h->ReadReg(reg::kFeatureCaps),
              full ? (reg::kFeatureCapImplicitReturn | reg::kFeatureCapRepeatedHistory |
                      reg::kFeatureCapRepeatBranch | reg::kFeatureCapSequentialJump |
                      reg::kFeatureCapFullAddress | reg::kFeatureCapConfigMessage |
                      (kFullDepth << reg::kFeatureCapReturnStackDepthLsb))
                   : 0u);
    EXPECT_EQ(h->ReadReg(reg::kCaps), reg::kCapsValue);
    EXPECT_FALSE(h->failed()) << h->failure();
  }
}

struct Case {
  const char* name;
  EncoderConfig encoder;
  uint64_t interrupt_every;
  uint32_t sink_period;
};

std::vector<Case> Cases(const oracle::FeatureSet& f) {
  std::vector<Case> v = {
      {"htm", {TraceMode::kHtm, 0, 0, 22, f}, 0, 10},
      {"btm", {TraceMode::kBtm, 0, 0, 22, f}, 0, 10},
      {"htm sync halfwords/64, interrupts", {TraceMode::kHtm, 3, 2, 22, f}, 997, 6},
      {"btm sync messages/16, interrupts", {TraceMode::kBtm, 1, 0, 22, f}, 997, 14},
  };
  return v;
}

class FullWorkloadTest : public ::testing::TestWithParam<const char*> {};

TEST_P(FullWorkloadTest, EveryFeatureSetGivesReferenceBytesAndIssPcs) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + GetParam() + ".elf";
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
  if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
  oracle::FeatureSet ir;
  ir.implicit_return_depth = kFullDepth;
  oracle::FeatureSet rh;
  rh.repeated_history = true;
  oracle::FeatureSet rb;
  rb.repeat_branch = true;
  oracle::FeatureSet all = ir;
  all.repeated_history = all.repeat_branch = true;
  for (const oracle::FeatureSet& f : {oracle::FeatureSet{}, ir, rh, rb, all}) {
    for (const Case& c : Cases(f)) {
      SCOPED_TRACE(std::string(GetParam()) + ", " + c.name + ", " + oracle::FormatFeatures(f));
      oracle::IssOptions iss;
      iss.max_instructions = 60'000;
      iss.interrupt_every = c.interrupt_every;
      const IssRun run = RunIss(*image, iss);
      ASSERT_EQ(run.error, "");
      RtlRunOptions opt;
      opt.encoder = c.encoder;
      opt.seed = 7;
      opt.sink_period = c.sink_period;
      RtlRunResult r;
      ASSERT_NO_FATAL_FAILURE(RunDropFree("ntrace-full", run.beats, opt, &r));
      oracle::DecodeOptions dopt;
      dopt.reconstruct.implicit_return_depth = f.implicit_return_depth;
      dopt.reconstruct.repeated_history = f.repeated_history;
      dopt.reconstruct.repeat_branch = f.repeat_branch;
      oracle::CollectingSink sink;
      oracle::DecodeStream(r.rtl_bytes, *image, dopt, &sink);
      for (const oracle::Marker& m : sink.markers_) {
        ASSERT_NE(m.kind, oracle::Marker::Kind::kDecodeError) << m.reason;
      }
      EXPECT_TRUE(sink.pcs_ == run.pcs) << "decoded PC sequence differs from the ISS's";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, FullWorkloadTest,
                         ::testing::Values("loop", "calls", "ptrchase", "sort", "switch",
                                           "traps", "spin"));

// Features off on ntrace-full is the slim stream, byte for byte (same QDEPTH and FIFO).
TEST(FullProfileTest, FeaturesOffIsByteIdenticalToSlim) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/calls.elf";
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
  if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
  oracle::IssOptions iss;
  iss.max_instructions = 40'000;
  iss.interrupt_every = 499;
  const IssRun run = RunIss(*image, iss);
  RtlRunOptions opt;
  opt.max_stall = 0;
  opt.sink_accept = 0.05;  // drops too: the loss behaviour must be the same
  opt.seed = 5;
  const RtlRunResult slim = RunThroughImage("ntrace-slim", run.beats, opt);
  const RtlRunResult full = RunThroughImage("ntrace-full", run.beats, opt);
  EXPECT_GT(slim.overflow_episodes, 0u);
  EXPECT_EQ(slim.rtl_bytes, full.rtl_bytes);
}

// Implicit return under announced loss: every decoded segment is a run of the ISS's PCs, no
// decode error, and the standing assertions (stack empty at the trace-off correlation, clean
// state at every recovery sync) hold.
TEST(FullProfileTest, ImplicitReturnUnderLossLeavesNoStateBehind) {
  oracle::FeatureSet ir;
  ir.implicit_return_depth = kFullDepth;
  for (const char* workload : {"calls", "sort"}) {
    for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
      SCOPED_TRACE(std::string(workload) + (mode == TraceMode::kHtm ? " htm" : " btm"));
      const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + workload + ".elf";
      Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
      if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
      ASSERT_NO_FATAL_FAILURE(ExpectFeaturesSurviveLoss(*image, mode, ir, 40'000));
    }
  }
}

}  // namespace
}  // namespace ctte::rtl_test
