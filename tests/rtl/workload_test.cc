// Drop-free runs of every workload through ntrace-slim: the RTL's bytes equal the reference
// encoder's, and decoding them gives exactly the ISS's retired PC sequence.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/reconstruct.h"
#include "tests/rtl/rtl_checks.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::EncoderConfig;
using oracle::TraceMode;

struct Case {
  const char* name;
  EncoderConfig encoder;
  uint64_t interrupt_every;
  uint32_t sink_period;  // fabric period is 10
};

std::vector<Case> Cases() {
  return {
      {"htm", {TraceMode::kHtm, 0, 0, 22}, 0, 10},
      {"btm", {TraceMode::kBtm, 0, 0, 22}, 0, 10},
      {"htm sync halfwords/64, interrupts, sink clock 10/6", {TraceMode::kHtm, 3, 2, 22}, 997,
       6},
      {"btm sync messages/16, interrupts, sink clock 10/14", {TraceMode::kBtm, 1, 0, 22}, 997,
       14},
  };
}

class WorkloadTest : public ::testing::TestWithParam<const char*> {};

TEST_P(WorkloadTest, DropFreeRunGivesReferenceBytesAndIssPcs) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + GetParam() + ".elf";
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
  if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(GetParam()) + ", " + c.name);
    oracle::IssOptions iss;
    iss.max_instructions = 60'000;
    iss.interrupt_every = c.interrupt_every;
    const IssRun run = RunIss(*image, iss);
    ASSERT_EQ(run.error, "");
    ASSERT_GT(run.pcs.size(), 1000u);

    RtlRunOptions opt;
    opt.encoder = c.encoder;
    opt.seed = 7;
    opt.sink_period = c.sink_period;
    RtlRunResult r;
    ASSERT_NO_FATAL_FAILURE(RunDropFree("ntrace-slim", run.beats, opt, &r));
    EXPECT_EQ(r.byte_count, r.rtl_bytes.size());
    EXPECT_EQ(r.control & reg::kEmpty, reg::kEmpty) << "trTeEmpty after the drain";

    uint32_t halfwords = 0;
    for (const oracle::Retired& b : run.beats) halfwords += b.iretire();
    EXPECT_EQ(r.halfwords_retired, halfwords);

    oracle::CollectingSink sink;
    oracle::DecodeStream(r.rtl_bytes, *image, {}, &sink);
    for (const oracle::Marker& m : sink.markers_) {
      ASSERT_NE(m.kind, oracle::Marker::Kind::kDecodeError) << m.reason;
      ASSERT_NE(m.kind, oracle::Marker::Kind::kLoss);
    }
    ASSERT_EQ(sink.pcs_.size(), run.pcs.size());
    EXPECT_TRUE(sink.pcs_ == run.pcs) << "decoded PC sequence differs from the ISS's";
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadTest,
                         ::testing::Values("loop", "calls", "ptrchase", "sort", "switch",
                                           "traps"));

}  // namespace
}  // namespace ctte::rtl_test
