// Sequential jump, full addresses and the configuration message in the RTL
// (docs/encoder-behaviour.md sections 11.7-11.9): on ntrace-full, for each feature set, every
// workload's RTL bytes equal the reference encoder's, drop-free, and decode to the ISS's PCs;
// under heavy backpressure (announced loss) every decoded segment is still a run of the ISS's
// PCs and no standing assertion fires.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/config_message.h"
#include "oracle/features.h"
#include "oracle/reconstruct.h"
#include "tests/rtl/rtl_checks.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::EncoderConfig;
using oracle::TraceMode;

oracle::FeatureSet Only(const char* text) { return *oracle::ParseFeatures(text, "test", 16); }

constexpr const char* kEveryFeature =
    "implicit-return,repeated-history,repeat-branch,sequential-jump,full-address,config-message";

struct Case {
  const char* name;
  EncoderConfig encoder;
  uint64_t interrupt_every;
  uint32_t sink_period;
};

std::vector<Case> Cases(const oracle::FeatureSet& f, bool all) {
  std::vector<Case> v = {
      {"htm sync halfwords/64, interrupts", {TraceMode::kHtm, 3, 2, 22, f}, 997, 6},
      {"btm sync messages/16, interrupts", {TraceMode::kBtm, 1, 0, 22, f}, 997, 14},
  };
  if (all) {
    v.push_back({"htm", {TraceMode::kHtm, 0, 0, 22, f}, 0, 10});
    v.push_back({"btm", {TraceMode::kBtm, 0, 0, 22, f}, 0, 10});
  }
  return v;
}

std::string DecodeCheck(const std::vector<uint8_t>& bytes, const oracle::ProgramImage& image,
                        const oracle::FeatureSet& f, const std::vector<uint64_t>& want) {
  oracle::DecodeOptions dopt;
  oracle::Reconstructor::ApplyFeatures(f, &dopt.reconstruct);
  oracle::CollectingSink sink;
  oracle::DecodeStream(bytes, image, dopt, &sink);
  for (const oracle::Marker& m : sink.markers_) {
    if (m.kind == oracle::Marker::Kind::kDecodeError) return m.reason;
  }
  return sink.pcs_ == want ? "" : "decoded PC sequence differs from the ISS's";
}

class SeqAddrRtlTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SeqAddrRtlTest, RtlBytesEqualReferenceBytesAndDecodeExactly) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + GetParam() + ".elf";
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
  if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
  // The last set is every feature at once, with main's repeat stage (sections 11.3-11.5): the
  // configuration message then names the repeat enables too.
  for (const char* set : {"sequential-jump", "full-address",
                          "implicit-return,sequential-jump,full-address,config-message",
                          kEveryFeature}) {
    const oracle::FeatureSet f = Only(set);
    for (const Case& c : Cases(f, std::string(set).find(',') != std::string::npos &&
                                      std::string(set) != kEveryFeature)) {
      SCOPED_TRACE(std::string(GetParam()) + ", " + c.name + ", " + set);
      oracle::IssOptions iss;
      iss.max_instructions = 30'000;
      iss.interrupt_every = c.interrupt_every;
      const IssRun run = RunIss(*image, iss);
      ASSERT_EQ(run.error, "");
      RtlRunOptions opt;
      opt.encoder = c.encoder;
      opt.seed = 11;
      opt.sink_period = c.sink_period;
      RtlRunResult r;
      ASSERT_NO_FATAL_FAILURE(RunDropFree("ntrace-full", run.beats, opt, &r));
      EXPECT_EQ(r.rtl_bytes, r.reference_bytes);
      EXPECT_EQ(DecodeCheck(r.rtl_bytes, *image, f, run.pcs), "");
      if (f.config_message) {
        Result<std::vector<oracle::StreamConfig>> cfg = oracle::FindConfigMessages(r.rtl_bytes);
        ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
        ASSERT_EQ(cfg->size(), 1u);
        EXPECT_EQ(cfg->front().features, f);
        EXPECT_EQ(cfg->front().compiled, oracle::kImplementedFeatureBits);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, SeqAddrRtlTest,
                         ::testing::Values("loop", "calls", "ptrchase", "sort", "switch",
                                           "traps", "spin", "farcalls"));

// Announced loss with every feature on: each decoded segment is a run of the ISS's PCs, no
// decode error (nothing of the sequential-jump state survives a loss), no assertion fires.
TEST(SeqAddrRtlTest, EveryFeatureUnderLossLeavesNoStateBehind) {
  for (const char* workload : {"farcalls", "switch"}) {
    for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
      SCOPED_TRACE(std::string(workload) + (mode == TraceMode::kHtm ? " htm" : " btm"));
      const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + workload + ".elf";
      Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
      if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
      ASSERT_NO_FATAL_FAILURE(ExpectFeaturesSurviveLoss(*image, mode, Only(kEveryFeature), 30'000));
    }
  }
}

}  // namespace
}  // namespace ctte::rtl_test
