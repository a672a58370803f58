// Tests for oracle/trace_stats.
#include "oracle/trace_stats.h"

#include <gtest/gtest.h>

#include <vector>

#include "oracle/ntrace_writer.h"

namespace ctte::oracle {
namespace {

TEST(TraceStatsTest, CountsMessagesAndBytesPerTcodeAndBitsPerInstruction) {
  std::vector<uint8_t> bytes;
  MessageWriter w;
  w.Append(Message::ProgTraceSync(5, 0, 0x40000000), &bytes);         // 8 bytes
  bytes.push_back(0xFF);                                               // idle
  w.Append(Message::IndirectBranchHist(0, 0x7D, 0x7, 0xFFE), &bytes);  // 6 bytes
  w.Append(Message::DirectBranch(1), &bytes);                          // 2 bytes
  const TraceStats s = ComputeTraceStats(bytes, 100);
  EXPECT_EQ(s.messages(9), 1u);
  EXPECT_EQ(s.bytes(9), 8u);
  EXPECT_EQ(s.messages(28), 1u);
  EXPECT_EQ(s.bytes(28), 6u);
  EXPECT_EQ(s.messages(3), 1u);
  EXPECT_EQ(s.total_messages(), 3u);
  EXPECT_EQ(s.wire_bytes(), 17u);
  EXPECT_EQ(s.idle_bytes(), 1u);
  EXPECT_DOUBLE_EQ(s.MessagesPerKiloInstruction(), 30.0);
  EXPECT_DOUBLE_EQ(s.PayloadBitsPerInstruction(), 6.0 * 16 / 100);
  EXPECT_DOUBLE_EQ(s.WireBitsPerInstruction(), 8.0 * 17 / 100);
}

TEST(TraceStatsTest, NoInstructionsGivesZeroRates) {
  const TraceStats s = ComputeTraceStats({}, 0);
  EXPECT_EQ(s.MessagesPerKiloInstruction(), 0.0);
  EXPECT_EQ(s.WireBitsPerInstruction(), 0.0);
}

// Peak against mean: the fullest whole window's bits per instruction; a trace shorter than one
// window has only its mean.
TEST(OutputRateTest, PeakIsTheFullestWholeWindowAndMeanEveryByte) {
  OutputRateMeter m;
  uint64_t total = 0;
  for (uint64_t i = 0; i < 3 * OutputRate::kWindowInstructions + 10; ++i) {
    // Window 1 carries 1 byte per instruction, window 2 3 bytes, the rest 1.
    const bool second = i >= OutputRate::kWindowInstructions &&
                        i < 2 * OutputRate::kWindowInstructions;
    total += second ? 3 : 1;
    m.Beat(total, /*retires=*/true);
    m.Beat(total, /*retires=*/false);  // a trap beat counts no instruction
  }
  const OutputRate r = m.Finish(total);
  EXPECT_EQ(r.instructions, 3 * OutputRate::kWindowInstructions + 10);
  EXPECT_EQ(r.peak_window_bytes, 3 * OutputRate::kWindowInstructions);
  EXPECT_DOUBLE_EQ(r.PeakBitsPerInstruction(), 24.0);
  EXPECT_DOUBLE_EQ(r.MeanBitsPerInstruction(), 8.0 * static_cast<double>(total) /
                                                   static_cast<double>(r.instructions));
  EXPECT_GT(r.PeakToMean(), 1.0);

  OutputRateMeter short_trace;
  short_trace.Beat(5, true);
  const OutputRate s = short_trace.Finish(7);
  EXPECT_EQ(s.peak_window_bytes, 0u);
  EXPECT_DOUBLE_EQ(s.PeakBitsPerInstruction(), 56.0);
  EXPECT_DOUBLE_EQ(s.PeakToMean(), 1.0);
}

}  // namespace
}  // namespace ctte::oracle
