// Repeated history and RepeatBranch in the RTL (docs/encoder-behaviour.md sections 11.3-11.5)
// under announced loss on ntrace-full: heavy backpressure makes the queue overflow (the
// shallow profile's situation); every decoded segment is still a run of the ISS's PCs, nothing
// is a decode error, ctte_repeat's standing assertion (no repeat state spans a sync) holds, and
// the designated workload (spin) takes fewer bytes per recovered instruction with the feature
// than without it, drops and all.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/features.h"
#include "oracle/reconstruct.h"
#include "tests/rtl/rtl_checks.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::TraceMode;

struct LossCase {
  const char* features;
  TraceMode mode;
  uint8_t sync_mode;
  uint8_t sync_max;
};

class RepeatLossTest : public ::testing::TestWithParam<LossCase> {};

TEST_P(RepeatLossTest, SpinUnderLossDecodesInRunsAndIsSmaller) {
  const LossCase& lc = GetParam();
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/spin.elf";
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
  if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
  oracle::IssOptions iss;
  iss.max_instructions = 60'000;
  iss.interrupt_every = 499;
  const IssRun run = RunIss(*image, iss);
  const oracle::FeatureSet f = *oracle::ParseFeatures(lc.features, "test");
  RtlRunOptions opt;
  opt.encoder.mode = lc.mode;
  opt.encoder.sync_mode = lc.sync_mode;
  opt.encoder.sync_max = lc.sync_max;
  opt.max_stall = 0;
  opt.sink_accept = 0.05;
  opt.seed = 3;
  RtlRunOptions off_opt = opt;
  opt.encoder.features = f;
  RtlRunResult r;
  ASSERT_NO_FATAL_FAILURE(RunWithLoss("ntrace-full", run.beats, opt, &r));
  const RtlRunResult off = RunThroughImage("ntrace-full", run.beats, off_opt);
  ASSERT_GT(off.overflow_episodes, 0u);
  const size_t decoded = ExpectSegmentsAreIssRuns(r.rtl_bytes, *image, f, run.pcs);
  // Under a saturated sink both streams are as long as the sink allowed; the feature shows as
  // fewer bytes per instruction the decoder recovers.
  oracle::CollectingSink off_sink;
  oracle::DecodeStream(off.rtl_bytes, *image, oracle::DecodeOptions{}, &off_sink);
  ASSERT_GT(off_sink.pcs_.size(), 0u);
  const double with_bpi = static_cast<double>(r.rtl_bytes.size()) / decoded;
  const double off_bpi = static_cast<double>(off.rtl_bytes.size()) / off_sink.pcs_.size();
  EXPECT_LT(with_bpi, off_bpi) << r.rtl_bytes.size() << " bytes for " << decoded
                               << " instructions, features off " << off.rtl_bytes.size()
                               << " for " << off_sink.pcs_.size();
}

INSTANTIATE_TEST_SUITE_P(
    Loss, RepeatLossTest,
    ::testing::Values(LossCase{"repeated-history", TraceMode::kHtm, 0, 0},
                      LossCase{"repeated-history", TraceMode::kHtm, 3, 6},
                      LossCase{"repeated-history", TraceMode::kHtm, 1, 0},
                      LossCase{"repeat-branch", TraceMode::kBtm, 0, 0},
                      LossCase{"repeat-branch", TraceMode::kBtm, 1, 0},
                      LossCase{"repeated-history,repeat-branch", TraceMode::kBtm, 3, 6}));

}  // namespace
}  // namespace ctte::rtl_test
