// Repeated history and RepeatBranch in the RTL (docs/encoder-behaviour.md sections 11.3-11.5)
// under announced loss on ntrace-full: heavy backpressure makes the queue overflow (the
// shallow profile's situation); every decoded segment is still a run of the ISS's PCs, nothing
// is a decode error, ctte_repeat's standing assertion (no repeat state spans a sync) holds, and
// the designated workload (spin)'s stream is smaller with the feature than without it, drops and all.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/features.h"
#include "oracle/reconstruct.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::TraceMode;

struct LossCase {
  const char* features;
  TraceMode mode;
  uint8_t sync_mode;
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
  opt.encoder.sync_max = 0;
  opt.max_stall = 0;
  opt.sink_accept = 0.05;
  opt.seed = 3;
  RtlRunOptions off_opt = opt;
  opt.encoder.features = f;
  const RtlRunResult r = RunThroughImage("ntrace-full", run.beats, opt);
  const RtlRunResult off = RunThroughImage("ntrace-full", run.beats, off_opt);
  ASSERT_TRUE(r.drained);
  EXPECT_EQ(r.failure, "");
  ASSERT_GT(r.overflow_episodes, 0u) << "backpressure was not heavy enough to drop";
  EXPECT_LT(r.rtl_bytes.size(), off.rtl_bytes.size());
  oracle::DecodeOptions dopt;
  dopt.reconstruct.repeated_history = f.repeated_history;
  dopt.reconstruct.repeat_branch = f.repeat_branch;
  oracle::CollectingSink sink;
  oracle::DecodeStream(r.rtl_bytes, *image, dopt, &sink);
  for (const oracle::Marker& m : sink.markers_) {
    EXPECT_NE(m.kind, oracle::Marker::Kind::kDecodeError) << m.reason;
  }
  EXPECT_GT(sink.pcs_.size(), 100u);
  EXPECT_EQ(CheckSegmentsAreContiguousRuns(run.pcs, sink.pcs_, sink.markers_), "");
}

INSTANTIATE_TEST_SUITE_P(
    Loss, RepeatLossTest,
    ::testing::Values(LossCase{"repeated-history", TraceMode::kHtm, 0},
                      LossCase{"repeated-history", TraceMode::kHtm, 3},
                      LossCase{"repeat-branch", TraceMode::kBtm, 0},
                      LossCase{"repeat-branch", TraceMode::kBtm, 1},
                      LossCase{"repeated-history,repeat-branch", TraceMode::kBtm, 3}));

}  // namespace
}  // namespace ctte::rtl_test
