// Tests for oracle/ntrace_writer: the byte examples of the spec and of
// docs/encoder-behaviour.md section 8.
#include "oracle/ntrace_writer.h"

#include <gtest/gtest.h>

#include <vector>

namespace ctte::oracle {
namespace {

std::vector<uint8_t> Pack(const Message& m, StreamFormat format = {}) {
  std::vector<uint8_t> out;
  MessageWriter(format).Append(m, &out);
  return out;
}

TEST(MessageWriterTest, SpecWorkedExampleIndirectBranchHist) {
  EXPECT_EQ(Pack(Message::IndirectBranchHist(0, 0x7D, 0x7, 0xFFE)),
            (std::vector<uint8_t>{0x70, 0xD0, 0x1D, 0x1D, 0xF8, 0xFF}));
}

TEST(MessageWriterTest, ProgTraceSyncExampleOfEncoderBehaviourDoc) {
  EXPECT_EQ(Pack(Message::ProgTraceSync(5, 0, 0x80000000ULL >> 1)),
            (std::vector<uint8_t>{0x24, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07}));
}

TEST(MessageWriterTest, ZeroVariableFieldUsesLeftoverBitsOrOneMdo) {
  // DirectBranch: TCODE fills byte 0, I-CNT 0 needs one new MDO.
  EXPECT_EQ(Pack(Message::DirectBranch(0)), (std::vector<uint8_t>{0x0C, 0x03}));
  // Error: ETYPE takes 4 bits of byte 1, ECODE 0b100 does not fit the 2 leftover bits.
  EXPECT_EQ(Pack(Message::Error(0, 4)), (std::vector<uint8_t>{0x20, 0x00, 0x07}));
}

TEST(MessageWriterTest, IndirectBranchSyncStartsIcntInANewByte) {
  // TCODE 12, SYNC 2, B-TYPE 3 fill bytes 0 and 1 exactly; I-CNT 1 then F-ADDR 1.
  EXPECT_EQ(Pack(Message::IndirectBranchSync(2, 3, 1, 1)),
            (std::vector<uint8_t>{0x30, (0x32 << 2), 0x05, 0x07}));
}

TEST(MessageWriterTest, SixtyFourBitValueSpansElevenMdos) {
  const std::vector<uint8_t> b = Pack(Message::DirectBranch(~0ULL));
  ASSERT_EQ(b.size(), 12u);  // TCODE byte + ceil(64 / 6) = 11 MDOs
  EXPECT_EQ(b.back(), ((0xF) << 2 | 3));
}

TEST(MessageWriterTest, SrcFieldShiftsTheLayout) {
  StreamFormat f;
  f.src_bits = 4;
  Message m = Message::DirectBranch(3);
  m.set(Field::kSrc, 0xA);
  // SRC 0xA in MDO bits 3:0 of byte 1, I-CNT 3 in the two leftover bits.
  EXPECT_EQ(Pack(m, f), (std::vector<uint8_t>{0x0C, ((3 << 4 | 0xA) << 2) | 3}));
}

}  // namespace
}  // namespace ctte::oracle
