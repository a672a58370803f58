// Hand-made beat sequences through ntrace-slim: the bytes must equal the messages that
// docs/encoder-behaviour.md prescribes, packed by the independent oracle::MessageWriter.
#include <vector>

#include <gtest/gtest.h>

#include "oracle/ntrace_message.h"
#include "tests/rtl/image_harness.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

using oracle::Message;

class EncoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_ = LoadImage("ntrace-slim");
    ASSERT_NE(h_, nullptr);
    h_->Reset();
  }
  void Start(uint32_t mode, uint32_t sync_mode = 0, uint32_t sync_max = 0) {
    mode_ = mode;
    h_->WriteReg(reg::kTeControl, ControlWord(true, true, mode, sync_mode, sync_max));
  }
  void Stop() {
    h_->WriteReg(reg::kTeControl, ControlWord(false, false, mode_));
    ASSERT_TRUE(h_->Drain()) << "encoder did not drain";
  }
  void Beat(uint8_t itype, uint64_t addr, uint8_t iretire = 2) {
    h_->Beat(MakeBeat(itype, addr, iretire));
  }
  void ExpectBytes(const std::vector<Message>& msgs) {
    EXPECT_EQ(Hex(h_->bytes()), Hex(Pack(msgs)));
    EXPECT_EQ(h_->ReadReg(reg::kMsgCount), msgs.size());
    EXPECT_EQ(h_->ReadReg(reg::kByteCount), h_->bytes().size());
    EXPECT_FALSE(h_->failed()) << h_->failure();
  }

  std::unique_ptr<ImageHarness> h_;
  uint32_t mode_ = reg::kInstModeHtm;
};

TEST_F(EncoderTest, TraceStartIsTheDocumentedSyncBytes) {
  Start(reg::kInstModeHtm);
  Beat(0, 0x80000000);
  h_->Idle(40);
  const std::vector<uint8_t> want = {0x24, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07};
  EXPECT_EQ(Hex(h_->bytes()), Hex(want));
  EXPECT_EQ(h_->ReadReg(reg::kStatus) & reg::kStatusWindowOpen, reg::kStatusWindowOpen)
      << "window open";
}

TEST_F(EncoderTest, HtmBranchesIndirectJumpAndTrap) {
  Start(reg::kInstModeHtm);
  Beat(0, 0x80000000);        // SYNC=5, icnt 2
  Beat(4, 0x80000004);        // not taken: icnt 4, hist 0b10
  Beat(5, 0x80000008);        // taken: icnt 6, hist 0b101
  Beat(8, 0x80000100);        // indirect call: icnt 8, owed
  Beat(0, 0x80000200);        // IndirectBranchHist(0, 8, U-ADDR, 0b101); icnt 2
  Beat(1, 0x80000204, 0);     // exception: owed btype 2
  Beat(0, 0x80001000);        // IndirectBranchHist(2, 2, U-ADDR, 1); icnt 2
  Beat(2, 0x80001004, 0);     // interrupt: owed btype 3
  Beat(0, 0x80002000);        // IndirectBranchHist(3, 2, ...); icnt 2
  Stop();                     // ProgTraceCorrelation(4, CDF 1, 2, HIST 1)
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000),
               Message::IndirectBranchHist(0, 8, (0x80000200ull ^ 0x80000000ull) >> 1, 0b101),
               Message::IndirectBranchHist(2, 2, (0x80001000ull ^ 0x80000200ull) >> 1, 1),
               Message::IndirectBranchHist(3, 2, (0x80002000ull ^ 0x80001000ull) >> 1, 1),
               Message::ProgTraceCorrelation(4, 1, 2, 1)});
  EXPECT_EQ(h_->ReadReg(reg::kHalfwordsRetired), 14u);
  h_->WriteReg(reg::kTeControl, 0);
  h_->Idle(1);
  EXPECT_EQ(h_->ReadReg(reg::kHalfwordsRetired), 0u) << "counters clear while inactive";
  EXPECT_EQ(h_->ReadReg(reg::kMsgCount), 0u);
}

TEST_F(EncoderTest, BtmDirectBranchesAndReturn) {
  Start(reg::kInstModeBtm);
  Beat(0, 0x80000000);        // SYNC=5, icnt 2
  Beat(4, 0x80000004);        // not taken: icnt 4
  Beat(5, 0x80000008);        // taken: DirectBranch(6), icnt 0
  Beat(13, 0x80000040, 1);    // return (compressed): icnt 1, owed
  Beat(0, 0x80000010);        // IndirectBranch(0, 1, U-ADDR); icnt 2
  Stop();                     // ProgTraceCorrelation(4, CDF 0, 2)
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000), Message::DirectBranch(6),
               Message::IndirectBranch(0, 1, (0x80000010ull ^ 0x80000000ull) >> 1),
               Message::ProgTraceCorrelation(4, 0, 2, 0)});
}

TEST_F(EncoderTest, FirstBeatOfABtmWindowUsesBtmEvenAfterAnHtmWindow) {
  // The mode is taken when the window opens; a beat in that very cycle must already use it.
  Start(reg::kInstModeHtm);
  Beat(0, 0x80000000);
  h_->WriteReg(reg::kTeControl, ControlWord(true, false, reg::kInstModeHtm));
  mode_ = reg::kInstModeBtm;
  h_->WriteReg(reg::kTeControl, ControlWord(true, true, reg::kInstModeBtm));
  Beat(5, 0x80000100);  // first beat: SYNC=5, then a taken branch: DirectBranch(2)
  Stop();
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000),
               Message::ProgTraceCorrelation(4, 1, 2, 1),
               Message::ProgTraceSync(5, 0, 0x80000100ull >> 1), Message::DirectBranch(2),
               Message::ProgTraceCorrelation(4, 0, 0, 0)});
}

TEST_F(EncoderTest, PeriodicSyncByHalfwordsReplacesTheOwedMessage) {
  Start(reg::kInstModeHtm, /*sync_mode=*/3, /*sync_max=*/0);  // period 16 half-words
  uint64_t a = 0x80000000;
  for (int i = 0; i < 8; ++i, a += 4) Beat(0, a);    // syncctr reaches 16
  Beat(0, a);                                         // due: sync on linear code
  const uint64_t sync1 = a;
  a += 4;
  for (int i = 0; i < 6; ++i, a += 4) Beat(0, a);    // syncctr 14
  Beat(10, a);                                        // indirect jump: owed, syncctr 16
  Beat(0, 0x90000000);                                // due while owed: sync with btype 0
  Stop();
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000),
               Message::IndirectBranchHistSync(2, 0, 16, sync1 >> 1, 1),
               Message::IndirectBranchHistSync(2, 0, 16, 0x90000000ull >> 1, 1),
               Message::ProgTraceCorrelation(4, 1, 2, 1)});
}

TEST_F(EncoderTest, PeriodicSyncByMessagesInBtm) {
  Start(reg::kInstModeBtm, /*sync_mode=*/1, /*sync_max=*/0);  // period 16 messages
  std::vector<Message> want = {Message::ProgTraceSync(5, 0, 0x40000000)};
  Beat(0, 0x80000000);
  for (int i = 0; i < 16; ++i) {
    Beat(5, 0x80000004 + 4 * i);
    want.push_back(Message::DirectBranch(i == 0 ? 4 : 2));
  }
  Beat(0, 0x80001000);
  want.push_back(Message::IndirectBranchSync(2, 0, 0, 0x80001000ull >> 1));
  Stop();
  want.push_back(Message::ProgTraceCorrelation(4, 0, 2, 0));
  ExpectBytes(want);
}

TEST_F(EncoderTest, FullHistoryIsSentAsResourceFull) {
  Start(reg::kInstModeHtm);
  Beat(0, 0x80000000);
  uint64_t hist = 1;
  for (int i = 0; i < 31; ++i) {
    const bool taken = (i % 3) == 0;
    Beat(taken ? 5 : 4, 0x80000004 + 4 * i);
    hist = (hist << 1) | (taken ? 1 : 0);
  }
  Stop();
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000), Message::ResourceFull(1, hist),
               Message::ProgTraceCorrelation(4, 1, 64, 1)});
}

TEST_F(EncoderTest, FullInstructionCountIsSentAsResourceFull) {
  Start(reg::kInstModeBtm);
  Beat(0, 0x80000000, 255);
  uint64_t icnt = 255;
  int beats = 1;
  while (icnt + 255 <= (1u << 22) - 1) {
    Beat(0, 0x80000000, 255);
    icnt += 255;
    ++beats;
  }
  Beat(0, 0x80000000, 255);  // overflows: ResourceFull(0, icnt), icnt = 255
  Stop();
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000), Message::ResourceFull(0, icnt),
               Message::ProgTraceCorrelation(4, 0, 255, 0)});
  EXPECT_GT(beats, 16000);
}

TEST_F(EncoderTest, PauseClosesTheWindowAndResumeResyncs) {
  Start(reg::kInstModeHtm);
  Beat(0, 0x80000000);
  Beat(5, 0x80000004);
  h_->WriteReg(reg::kTeControl, ControlWord(true, false, reg::kInstModeHtm));  // pause
  Beat(0, 0x80000100);                                               // not traced
  Beat(8, 0x80000104);                                               // not traced
  EXPECT_EQ(h_->ReadReg(reg::kHalfwordsRetired), 4u);
  h_->WriteReg(reg::kTeControl, ControlWord(true, true, reg::kInstModeHtm));  // resume
  Beat(0, 0x80000200);
  Stop();
  ExpectBytes({Message::ProgTraceSync(5, 0, 0x40000000),
               Message::ProgTraceCorrelation(4, 1, 4, 0b11),
               Message::ProgTraceSync(5, 0, 0x80000200ull >> 1),
               Message::ProgTraceCorrelation(4, 1, 2, 1)});
}

TEST_F(EncoderTest, EmptyIsSetOnlyAfterTheSinkTookEverything) {
  int n = 0;
  h_->set_sink_ready([&n] { return (++n % 5) == 0; });
  Start(reg::kInstModeHtm);
  Beat(0, 0x80000000);
  h_->Idle(3);
  EXPECT_EQ(h_->ReadReg(reg::kTeControl) & reg::kEmpty, 0u);
  h_->WriteReg(reg::kTeControl, ControlWord(false, false, reg::kInstModeHtm));
  ASSERT_TRUE(h_->Drain());
  EXPECT_EQ(h_->bytes().size(), h_->ReadReg(reg::kByteCount));
  EXPECT_EQ(h_->ReadReg(reg::kStatus) & reg::kStatusEmpty, reg::kStatusEmpty);
}

}  // namespace
}  // namespace ctte::rtl_test
