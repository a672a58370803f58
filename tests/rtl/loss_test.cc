// ntrace-shallow under heavy backpressure: every loss is announced (Error, then SYNC=7 with
// I-CNT 0, or the closing correlation), counters agree with the stream, and every decoded
// segment is a contiguous run of the ISS's PC sequence.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/ntrace_message.h"
#include "oracle/reconstruct.h"
#include "tests/rtl/image_harness.h"
#include "tests/rtl/rtl_checks.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::Field;
using oracle::Marker;
using oracle::Message;
using oracle::Tcode;

struct LossCase {
  const char* workload;
  oracle::TraceMode mode;
};

class LossTest : public ::testing::TestWithParam<LossCase> {};

TEST_P(LossTest, HeavyBackpressureAnnouncesEveryLoss) {
  const LossCase& lc = GetParam();
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + lc.workload + ".elf";
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(path);
  if (!image.ok()) GTEST_SKIP() << path << " not built: " << image.status().ToString();
  oracle::IssOptions iss;
  iss.max_instructions = 30'000;
  iss.interrupt_every = 499;
  const IssRun run = RunIss(*image, iss);
  ASSERT_EQ(run.error, "");

  RtlRunOptions opt;
  opt.encoder.mode = lc.mode;
  opt.max_stall = 1;
  opt.sink_accept = 0.15;
  opt.seed = 11;
  RtlRunResult r;
  ASSERT_NO_FATAL_FAILURE(RunWithLoss("ntrace-shallow", run.beats, opt, &r));
  EXPECT_GE(r.records_dropped, r.overflow_episodes);
  EXPECT_EQ(r.control & (1u << 12), 1u << 12) << "trTeInstStallOrOverflow";
  EXPECT_EQ(r.byte_count, r.rtl_bytes.size());

  uint64_t corruptions = 0;
  const std::vector<Message> msgs = Parse(r.rtl_bytes, &corruptions);
  EXPECT_EQ(corruptions, 0u);
  EXPECT_EQ(r.msg_count, msgs.size());
  uint32_t errors = 0;
  uint32_t recoveries = 0;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].type() != Tcode::kError) continue;
    ++errors;
    EXPECT_EQ(msgs[i].get(Field::kEcode), oracle::kEcodeProgramTraceLost);
    ASSERT_LT(i + 1, msgs.size()) << "Error is the last message";
    const Message& next = msgs[i + 1];
    if (next.type() == Tcode::kProgTraceSync) {
      ++recoveries;
      EXPECT_EQ(next.get(Field::kSync), 7u);
      EXPECT_EQ(next.get(Field::kIcnt), 0u);
    } else {
      EXPECT_EQ(next.type(), Tcode::kProgTraceCorrelation) << next.ToString();
      EXPECT_EQ(i + 2, msgs.size()) << "only the window's close may follow an Error";
    }
  }
  EXPECT_EQ(errors, r.overflow_episodes);
  EXPECT_GT(recoveries, 0u);

  oracle::CollectingSink sink;
  oracle::DecodeStream(r.rtl_bytes, *image, {}, &sink);
  uint32_t losses = 0;
  for (const Marker& m : sink.markers_) {
    EXPECT_NE(m.kind, Marker::Kind::kDecodeError) << m.reason;
    if (m.kind == Marker::Kind::kLoss) ++losses;
  }
  EXPECT_EQ(losses, errors);
  EXPECT_GT(sink.pcs_.size(), 0u);
  EXPECT_LT(sink.pcs_.size(), run.pcs.size());
  EXPECT_EQ(CheckSegmentsAreContiguousRuns(run.pcs, sink.pcs_, sink.markers_), "");
}

TEST(ShallowLossTest, StopDuringLossSendsErrorThenTheClosingCorrelation) {
  std::unique_ptr<ImageHarness> h = LoadImage("ntrace-shallow");
  ASSERT_NE(h, nullptr);
  h->set_sink_ready([] { return false; });  // the sink takes nothing
  h->Reset();
  h->WriteReg(reg::kTeControl, ControlWord(true, true, reg::kInstModeBtm));
  for (int i = 0; i < 40; ++i) h->Beat(MakeBeat(5, 0x80000000 + 4 * i, 2));
  EXPECT_EQ(h->ReadReg(reg::kStatus) & reg::kStatusLost, reg::kStatusLost) << "Lost";
  EXPECT_EQ(h->ReadReg(reg::kOverflowEpisodes), 1u);
  EXPECT_GT(h->ReadReg(reg::kRecordsDropped), 0u);
  h->WriteReg(reg::kTeControl, ControlWord(false, false, reg::kInstModeBtm));
  h->Idle(20);
  EXPECT_EQ(h->ReadReg(reg::kStatus) & reg::kStatusCloseWaiting, reg::kStatusCloseWaiting)
      << "close waiting for queue room";
  EXPECT_EQ(h->ReadReg(reg::kTeControl) & reg::kEmpty, 0u) << "not empty while a close waits";
  h->set_sink_ready(nullptr);
  ASSERT_TRUE(h->Drain());
  uint64_t corruptions = 0;
  const std::vector<Message> msgs = Parse(h->bytes(), &corruptions);
  EXPECT_EQ(corruptions, 0u);
  ASSERT_GE(msgs.size(), 3u);
  EXPECT_EQ(msgs[0].type(), Tcode::kProgTraceSync);
  EXPECT_EQ(msgs[msgs.size() - 2].type(), Tcode::kError);
  EXPECT_EQ(msgs.back().ToString(), Message::ProgTraceCorrelation(4, 0, 0, 0).ToString());
  for (size_t i = 1; i + 2 < msgs.size(); ++i) EXPECT_EQ(msgs[i].type(), Tcode::kDirectBranch);
  EXPECT_EQ(h->ReadReg(reg::kMsgCount), msgs.size());
  EXPECT_EQ(h->ReadReg(reg::kStatus) & reg::kStatusLost, 0u) << "the close ends the loss episode";
  EXPECT_FALSE(h->failed()) << h->failure();
}

INSTANTIATE_TEST_SUITE_P(Shallow, LossTest,
                         ::testing::Values(LossCase{"calls", oracle::TraceMode::kHtm},
                                           LossCase{"switch", oracle::TraceMode::kBtm},
                                           LossCase{"traps", oracle::TraceMode::kBtm}),
                         [](const ::testing::TestParamInfo<LossCase>& p) {
                           return std::string(p.param.workload) +
                                  (p.param.mode == oracle::TraceMode::kHtm ? "_htm" : "_btm");
                         });

}  // namespace
}  // namespace ctte::rtl_test
