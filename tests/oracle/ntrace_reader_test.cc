// Tests for oracle/ntrace_reader: the spec's worked example, every TCODE round-trips through
// the writer, and every corruption is reported with its byte offset.
#include "oracle/ntrace_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/random.h"
#include "oracle/ntrace_writer.h"

namespace ctte::oracle {
namespace {

struct Problem {
  uint64_t offset;
  uint64_t bytes;
  std::string reason;
};

class RecordingReporter : public MessageReader::Reporter {
 public:
  void Corruption(uint64_t offset, uint64_t bytes, const std::string& reason) override {
    corruptions.push_back({offset, bytes, reason});
  }
  void Skipped(const Message& msg, const std::string& reason) override {
    skipped.push_back({msg.offset, msg.size, reason});
  }
  std::vector<Problem> corruptions;
  std::vector<Problem> skipped;
};

std::vector<Message> ReadAll(const std::vector<uint8_t>& bytes, RecordingReporter* rep,
                             MessageReader::Options options = {}) {
  MessageReader reader(bytes, rep, options);
  std::vector<Message> out;
  Message m;
  while (reader.Next(&m)) out.push_back(m);
  return out;
}

TEST(MessageReaderTest, SpecWorkedExampleDecodesToTheStatedFields) {
  const std::vector<uint8_t> bytes = {0xFF, 0x70, 0xD0, 0x1D, 0x1D, 0xF8, 0xFF, 0xFF};
  RecordingReporter rep;
  MessageReader reader(bytes, &rep);
  Message m;
  ASSERT_TRUE(reader.Next(&m));
  EXPECT_EQ(m.tcode, 28);
  EXPECT_EQ(m.offset, 1u);
  EXPECT_EQ(m.size, 6u);
  EXPECT_EQ(m.get(Field::kBtype), 0u);
  EXPECT_EQ(m.get(Field::kIcnt), 0x7Du);
  EXPECT_EQ(m.get(Field::kUaddr), 0x7u);
  EXPECT_EQ(m.get(Field::kHist), 0xFFEu);
  EXPECT_FALSE(reader.Next(&m));
  EXPECT_EQ(reader.idle_bytes(), 2u);
  EXPECT_TRUE(rep.corruptions.empty());
}

std::vector<Message> EveryStandardMessage() {
  std::vector<Message> v;
  v.push_back(Message::DirectBranch(0x3FFFFF));
  v.push_back(Message::IndirectBranch(2, 17, 0x7FFFFFFFFFFFFFFFULL));
  v.push_back(Message::Error(0, kEcodeProgramTraceLost));
  v.push_back(Message::ProgTraceSync(5, 0, 0x40000000));
  v.push_back(Message::IndirectBranchSync(2, 3, 9, 0x40000123));
  v.push_back(Message::ResourceFull(0, 0x3FFFFF));
  v.push_back(Message::ResourceFull(1, 0x80000001u));
  Message rf2 = Message::ResourceFull(2, 0x5);
  rf2.set(Field::kHrepeat, 150);
  v.push_back(rf2);
  v.push_back(Message::IndirectBranchHist(0, 0x7D, 0x7, 0xFFE));
  v.push_back(Message::IndirectBranchHistSync(7, 0, 0, 0x40000000, 1));
  v.push_back(Message::ProgTraceCorrelation(4, 1, 12, 0x5));
  v.push_back(Message::ProgTraceCorrelation(4, 0, 12, 0));
  Message own;
  own.tcode = static_cast<uint8_t>(Tcode::kOwnership);
  own.set(Field::kProcess, 0xC);
  v.push_back(own);
  Message dbs;
  dbs.tcode = static_cast<uint8_t>(Tcode::kDirectBranchSync);
  dbs.set(Field::kSync, 4);
  dbs.set(Field::kIcnt, 300);
  dbs.set(Field::kFaddr, 0x7FFFFFFF00000000ULL);
  v.push_back(dbs);
  Message rb;
  rb.tcode = static_cast<uint8_t>(Tcode::kRepeatBranch);
  rb.set(Field::kBcnt, 0x3FFFF);
  v.push_back(rb);
  return v;
}

TEST(MessageReaderTest, EveryStandardTcodeRoundTripsThroughTheWriter) {
  for (const StreamFormat format : {StreamFormat{}, StreamFormat{12, true}}) {
    std::vector<Message> in = EveryStandardMessage();
    std::vector<uint8_t> bytes;
    MessageWriter writer(format);
    for (Message& m : in) {
      if (format.src_bits) m.set(Field::kSrc, 0xABC);
      if (format.timestamps) m.set(Field::kTstamp, 0x123456789ULL);
      writer.Append(m, &bytes);
      bytes.push_back(0xFF);  // an idle between messages
    }
    RecordingReporter rep;
    MessageReader::Options opt;
    opt.format = format;
    const std::vector<Message> out = ReadAll(bytes, &rep, opt);
    ASSERT_EQ(out.size(), in.size());
    EXPECT_TRUE(rep.corruptions.empty());
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(out[i].ToString(), in[i].ToString()) << i;
      EXPECT_EQ(out[i].present, in[i].present) << i;
    }
  }
}

TEST(MessageReaderTest, VendorAndReservedTcodesAreReportedAndSkipped) {
  std::vector<uint8_t> bytes = {57 << 2, 0x07, 45 << 2 | 3};
  MessageWriter().Append(Message::DirectBranch(5), &bytes);
  RecordingReporter rep;
  const std::vector<Message> out = ReadAll(bytes, &rep);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get(Field::kIcnt), 5u);
  ASSERT_EQ(rep.skipped.size(), 2u);
  EXPECT_EQ(rep.skipped[0].offset, 0u);
  EXPECT_NE(rep.skipped[0].reason.find("Vendor(57)"), std::string::npos);
  EXPECT_EQ(rep.skipped[1].offset, 2u);
  EXPECT_NE(rep.skipped[1].reason.find("Reserved(45)"), std::string::npos);
  EXPECT_TRUE(rep.corruptions.empty());
}

TEST(MessageReaderTest, ReservedMseoIsReportedAndReadingResumesAtTheNextSync) {
  std::vector<uint8_t> bytes;
  MessageWriter w;
  w.Append(Message::DirectBranch(1), &bytes);            // 0..1
  bytes.push_back(0x0E);                                 // 2: MSEO 10
  bytes.push_back(0x07);                                 // 3: end of that broken message
  w.Append(Message::DirectBranch(2), &bytes);            // 4..5: skipped, no SYNC
  w.Append(Message::ProgTraceSync(7, 0, 0x40000000), &bytes);  // 6..
  RecordingReporter rep;
  const std::vector<Message> out = ReadAll(bytes, &rep);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].get(Field::kIcnt), 1u);
  EXPECT_EQ(out[1].get(Field::kSync), 7u);
  EXPECT_EQ(out[1].offset, 6u);
  ASSERT_EQ(rep.corruptions.size(), 2u);
  EXPECT_EQ(rep.corruptions[0].offset, 2u);
  EXPECT_NE(rep.corruptions[0].reason.find("reserved MSEO 10 at byte offset 2"),
            std::string::npos);
  EXPECT_EQ(rep.corruptions[1].offset, 4u);
  EXPECT_EQ(rep.corruptions[1].bytes, 2u);
}

TEST(MessageReaderTest, TruncatedFinalMessageIsReported) {
  std::vector<uint8_t> bytes;
  MessageWriter().Append(Message::ProgTraceSync(5, 0, 0x40000000), &bytes);
  bytes.pop_back();
  RecordingReporter rep;
  EXPECT_TRUE(ReadAll(bytes, &rep).empty());
  ASSERT_EQ(rep.corruptions.size(), 1u);
  EXPECT_EQ(rep.corruptions[0].offset, 0u);
  EXPECT_NE(rep.corruptions[0].reason.find("truncated message at byte offset 0"),
            std::string::npos);
}

TEST(MessageReaderTest, OverlongVariableFieldIsReported) {
  std::vector<uint8_t> bytes = {0x0C};  // DirectBranch, I-CNT of 12 MDOs: 72 bits
  for (int i = 0; i < 11; ++i) bytes.push_back(0x04);
  bytes.push_back(0x07);
  RecordingReporter rep;
  EXPECT_TRUE(ReadAll(bytes, &rep).empty());
  ASSERT_EQ(rep.corruptions.size(), 1u);
  EXPECT_NE(rep.corruptions[0].reason.find("longer than 64 bits"), std::string::npos);
}

TEST(MessageReaderTest, ExtraZeroMdosAreLegal) {
  const std::vector<uint8_t> bytes = {0x0C, 0x04, 0x00, 0x00, 0x03};  // I-CNT 1 with zero MDOs
  RecordingReporter rep;
  const std::vector<Message> out = ReadAll(bytes, &rep);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get(Field::kIcnt), 1u);
}

TEST(MessageReaderTest, OverlongMessageIsReported) {
  std::vector<uint8_t> bytes = {0x0C};
  for (int i = 0; i < 100; ++i) bytes.push_back(0x00);
  bytes.push_back(0x03);
  RecordingReporter rep;
  EXPECT_TRUE(ReadAll(bytes, &rep).empty());
  ASSERT_EQ(rep.corruptions.size(), 1u);
  EXPECT_NE(rep.corruptions[0].reason.find("longer than 64 bytes"), std::string::npos);
  EXPECT_EQ(rep.corruptions[0].bytes, bytes.size());
}

TEST(MessageReaderTest, MissingAndExtraFieldsAreReported) {
  RecordingReporter rep;
  // IndirectBranch ending after I-CNT: U-ADDR missing.
  EXPECT_TRUE(ReadAll({4 << 2, 0x07}, &rep).empty());
  // DirectBranch with a second variable field.
  EXPECT_TRUE(ReadAll({3 << 2, 0x05, 0x07}, &rep).empty());
  ASSERT_EQ(rep.corruptions.size(), 2u);
  EXPECT_NE(rep.corruptions[0].reason.find("ends before"), std::string::npos);
  EXPECT_NE(rep.corruptions[1].reason.find("more fields"), std::string::npos);
}

// A small stream with every message our encoder forms.
std::vector<uint8_t> SmallStream() {
  std::vector<uint8_t> bytes;
  MessageWriter w;
  w.Append(Message::ProgTraceSync(5, 0, 0x40000000), &bytes);
  w.Append(Message::ResourceFull(1, 0x80000001u), &bytes);
  w.Append(Message::IndirectBranchHist(0, 0x7D, 0x7, 0xFFE), &bytes);
  w.Append(Message::DirectBranch(9), &bytes);
  w.Append(Message::ResourceFull(0, 0x3FFFFF), &bytes);
  w.Append(Message::IndirectBranchHistSync(2, 3, 4, 0x40000010, 0x5), &bytes);
  w.Append(Message::Error(0, 4), &bytes);
  w.Append(Message::ProgTraceSync(7, 0, 0x40000000), &bytes);
  w.Append(Message::IndirectBranch(2, 3, 0x20), &bytes);
  w.Append(Message::ProgTraceCorrelation(4, 1, 6, 0x3), &bytes);
  return bytes;
}

// Every single-byte mutation (all 256 values at every position) and every truncation either
// decodes or is reported; the offsets reported lie inside the stream. Run under ASan too.
TEST(MessageReaderTest, EveryMutationAndTruncationIsDecodedOrReported) {
  const std::vector<uint8_t> base = SmallStream();
  uint64_t reported = 0;
  for (size_t pos = 0; pos < base.size(); ++pos) {
    for (int v = 0; v < 256; ++v) {
      std::vector<uint8_t> bytes = base;
      bytes[pos] = static_cast<uint8_t>(v);
      RecordingReporter rep;
      const std::vector<Message> out = ReadAll(bytes, &rep);
      for (const Problem& p : rep.corruptions) {
        ASSERT_LE(p.offset + p.bytes, bytes.size());
        ASSERT_FALSE(p.reason.empty());
      }
      for (const Message& m : out) ASSERT_LE(m.offset + m.size, bytes.size());
      reported += rep.corruptions.size();
    }
  }
  EXPECT_GT(reported, 0u);
  for (size_t len = 0; len < base.size(); ++len) {
    std::vector<uint8_t> bytes(base.begin(), base.begin() + static_cast<long>(len));
    RecordingReporter rep;
    MessageReader reader(bytes, &rep);
    Message m;
    uint64_t end = 0;
    while (reader.Next(&m)) end = m.offset + m.size;
    // Whatever is not a whole message at the end is reported as truncated.
    if (end < len) {
      ASSERT_FALSE(rep.corruptions.empty()) << len;
      EXPECT_NE(rep.corruptions.back().reason.find("truncated"), std::string::npos);
    }
  }
}

TEST(MessageReaderTest, RandomGarbageNeverCrashes) {
  Rng rng(42);
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> bytes(rng.Below(200));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
    RecordingReporter rep;
    MessageReader reader(bytes, &rep);
    Message m;
    uint64_t in_messages = 0;
    while (reader.Next(&m)) {
      ASSERT_LE(m.offset + m.size, bytes.size());
      in_messages += m.size;
    }
    EXPECT_LE(in_messages + reader.idle_bytes() + reader.dropped_bytes(), bytes.size());
  }
}

}  // namespace
}  // namespace ctte::oracle
