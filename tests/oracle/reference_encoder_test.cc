// Tests for oracle/reference_encoder: the records docs/encoder-behaviour.md prescribes, on
// hand-made beat sequences, checked message by message.
#include "oracle/reference_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/ntrace_message.h"
#include "oracle/ntrace_reader.h"
#include "oracle/ntrace_writer.h"

namespace ctte::oracle {
namespace {

constexpr uint64_t kBase = 0x80000000ULL;

Retired Beat(uint64_t pc, uint8_t size, IType t) {
  Retired r;
  r.pc = pc;
  r.size = size;
  r.itype = t;
  r.retires = t != IType::kException && t != IType::kInterrupt;
  return r;
}

// The loop of reconstruct_test.cc: li / addi / bnez (taken, taken, not taken) / c.nop / ret /
// c.j at 0x80000100.
std::vector<Retired> LoopBeats() {
  return {Beat(kBase, 4, IType::kNone),           Beat(kBase + 4, 4, IType::kNone),
          Beat(kBase + 8, 4, IType::kTakenBranch), Beat(kBase + 4, 4, IType::kNone),
          Beat(kBase + 8, 4, IType::kTakenBranch), Beat(kBase + 4, 4, IType::kNone),
          Beat(kBase + 8, 4, IType::kNotTakenBranch), Beat(kBase + 0xc, 2, IType::kNone),
          Beat(kBase + 0xe, 4, IType::kReturn),    Beat(kBase + 0x100, 2, IType::kDirectJump)};
}

std::vector<std::string> Encode(const std::vector<Retired>& beats, EncoderConfig config) {
  ReferenceEncoder enc(config);
  enc.Open();
  for (const Retired& b : beats) enc.Beat(b);
  enc.Close();
  std::vector<std::string> out;
  MessageReader reader(enc.bytes(), nullptr);
  Message m;
  while (reader.Next(&m)) out.push_back(m.ToString());
  EXPECT_EQ(reader.corruptions(), 0u);
  EXPECT_EQ(out.size(), enc.messages());
  return out;
}

std::vector<std::string> Strings(const std::vector<Message>& msgs) {
  std::vector<std::string> out;
  for (const Message& m : msgs) out.push_back(m.ToString());
  return out;
}

TEST(ReferenceEncoderTest, TraceStartIsTheDocumentedProgTraceSync) {
  ReferenceEncoder enc({});
  enc.Open();
  enc.Beat(Beat(kBase, 4, IType::kNone));
  EXPECT_EQ(enc.bytes(),
            (std::vector<uint8_t>{0x24, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07}));
}

TEST(ReferenceEncoderTest, HtmLoopFormsSyncIndirectBranchHistAndCorrelation) {
  EXPECT_EQ(Encode(LoopBeats(), {}),
            Strings({Message::ProgTraceSync(5, 0, kBase >> 1),
                     Message::IndirectBranchHist(0, 17, 0x80, 0xE),
                     Message::ProgTraceCorrelation(4, 1, 1, 1)}));
}

TEST(ReferenceEncoderTest, BtmLoopFormsDirectBranchPerTakenBranch) {
  EncoderConfig c;
  c.mode = TraceMode::kBtm;
  EXPECT_EQ(Encode(LoopBeats(), c),
            Strings({Message::ProgTraceSync(5, 0, kBase >> 1), Message::DirectBranch(6),
                     Message::DirectBranch(4), Message::IndirectBranch(0, 7, 0x80),
                     Message::ProgTraceCorrelation(4, 0, 1, 0)}));
}

TEST(ReferenceEncoderTest, SmallIcntWidthFormsResourceFullRcode0) {
  EncoderConfig c;
  c.icnt_bits = 3;  // at most 7 half-words
  EXPECT_EQ(Encode(LoopBeats(), c),
            Strings({Message::ProgTraceSync(5, 0, kBase >> 1), Message::ResourceFull(0, 6),
                     Message::ResourceFull(0, 6),
                     Message::IndirectBranchHist(0, 5, 0x80, 0xE),
                     Message::ProgTraceCorrelation(4, 1, 1, 1)}));
}

TEST(ReferenceEncoderTest, ThirtyOneBranchesFillHistAndFormResourceFullRcode1) {
  std::vector<Retired> beats;
  for (int i = 0; i < 32; ++i) beats.push_back(Beat(kBase, 4, IType::kTakenBranch));
  EXPECT_EQ(Encode(beats, {}),
            Strings({Message::ProgTraceSync(5, 0, kBase >> 1),
                     Message::ResourceFull(1, 0xFFFFFFFFu),
                     Message::ProgTraceCorrelation(4, 1, 64, 0b11)}));
}

TEST(ReferenceEncoderTest, BackToBackExceptionsGiveIcntZero) {
  const std::vector<Retired> beats = {
      Beat(kBase, 4, IType::kNone), Beat(kBase + 4, 4, IType::kException),
      Beat(kBase + 0x100, 4, IType::kException),  // the handler's first instruction faults
      Beat(kBase + 0x100, 4, IType::kNone)};
  EXPECT_EQ(Encode(beats, {}),
            Strings({Message::ProgTraceSync(5, 0, kBase >> 1),
                     Message::IndirectBranchHist(2, 2, 0x80, 1),
                     Message::IndirectBranchHist(2, 0, 0, 1),
                     Message::ProgTraceCorrelation(4, 1, 2, 1)}));
}

TEST(ReferenceEncoderTest, PeriodicSyncByMessagesReplacesTheOwedMessage) {
  EncoderConfig c;
  c.sync_mode = 1;
  c.sync_max = 0;  // every 16 non-sync records
  std::vector<Retired> beats;
  for (int i = 0; i < 17; ++i) {
    beats.push_back(Beat(kBase, 4, IType::kIndirectJump));
  }
  const std::vector<std::string> out = Encode(beats, c);
  ASSERT_EQ(out.size(), 1u + 16u + 1u);
  // 16 plain messages, then the 17th beat finds the counter at 16: the owed message is the
  // sync variant with B-TYPE 0, and the last jump is owed when the window closes.
  EXPECT_EQ(out[16], Message::IndirectBranchHist(0, 2, 0, 1).ToString());
  EXPECT_EQ(out.back(), Message::ProgTraceCorrelation(4, 1, 2, 1).ToString());
  c.sync_max = 0;
  beats.push_back(Beat(kBase, 4, IType::kNone));
  const std::vector<std::string> out2 = Encode(beats, c);
  EXPECT_EQ(out2[17], Message::IndirectBranchHistSync(2, 0, 2, kBase >> 1, 1).ToString());
}

TEST(ReferenceEncoderTest, PeriodicSyncByHalfwordsOnLinearCodeHasBtypeZero) {
  EncoderConfig c;
  c.sync_mode = 3;
  c.mode = TraceMode::kBtm;
  std::vector<Retired> beats;
  for (int i = 0; i < 10; ++i) beats.push_back(Beat(kBase + 4 * i, 4, IType::kNone));
  EXPECT_EQ(Encode(beats, c),
            Strings({Message::ProgTraceSync(5, 0, kBase >> 1),
                     Message::IndirectBranchSync(2, 0, 16, (kBase + 32) >> 1),
                     Message::ProgTraceCorrelation(4, 0, 4, 0)}));
}

TEST(ReferenceEncoderTest, BeatsOutsideTheWindowAreIgnored) {
  ReferenceEncoder enc({});
  enc.Beat(Beat(kBase, 4, IType::kNone));
  EXPECT_TRUE(enc.bytes().empty());
  enc.Open();
  enc.Beat(Beat(kBase, 4, IType::kNone));
  enc.Close();
  const size_t n = enc.bytes().size();
  enc.Beat(Beat(kBase, 4, IType::kNone));
  EXPECT_EQ(enc.bytes().size(), n);
  EXPECT_EQ(enc.messages(), 2u);
}

TEST(ReferenceEncoderTest, WindowClosedBeforeItsFirstBeatFormsOnlyTheCorrelation) {
  EXPECT_EQ(Encode({}, {}), Strings({Message::ProgTraceCorrelation(4, 1, 0, 1)}));
}

// Recover(): the next beat announces a loss from clean state (docs/encoder-behaviour.md section
// 6), as the encoder does after a drop: Error (ETYPE 0, ECODE bit 2), ProgTraceSync SYNC=7 I-CNT 0
// at the beat's address, then the beat itself; the pending I-CNT and HIST before it are gone.
// records() counts every record formed, the Error and the syncs included.
TEST(ReferenceEncoderTest, RecoverAnnouncesTheLossFromCleanState) {
  EncoderConfig config;
  config.mode = TraceMode::kBtm;
  ReferenceEncoder enc(config);
  enc.Open();
  const std::vector<Retired> beats = LoopBeats();
  enc.Beat(beats[0]);  // SYNC=5
  enc.Beat(beats[1]);
  EXPECT_EQ(enc.records(), 1u);
  const size_t before = enc.bytes().size();
  enc.Recover();
  enc.Beat(beats[2]);  // a taken branch: Error, SYNC=7, then its DirectBranch with I-CNT 2
  EXPECT_EQ(enc.records(), 4u);
  const std::vector<uint8_t> tail(enc.bytes().begin() + static_cast<std::ptrdiff_t>(before),
                                  enc.bytes().end());
  std::vector<uint8_t> want;
  MessageWriter().Append(Message::Error(0, kEcodeProgramTraceLost), &want);
  MessageWriter().Append(Message::ProgTraceSync(kSyncOverrunRestart, 0, (kBase + 8) >> 1), &want);
  MessageWriter().Append(Message::DirectBranch(2), &want);
  EXPECT_EQ(tail, want);
  // A fresh encoder replays from a recovery anchor: the same bytes from the same beat.
  ReferenceEncoder replay(config);
  replay.Recover();
  replay.Beat(beats[2]);
  EXPECT_EQ(replay.bytes(), want);
  EXPECT_EQ(replay.records(), 3u);
}

}  // namespace
}  // namespace ctte::oracle
