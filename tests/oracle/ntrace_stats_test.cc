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

}  // namespace
}  // namespace ctte::oracle
