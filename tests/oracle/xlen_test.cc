// XLEN 32 in the reference encoder and the decoder (spec/ntrace.md section 6): addresses are
// XLEN bits, F-ADDR/U-ADDR carry bits 1..XLEN-1, a walk wraps modulo 2^XLEN, and an address
// field wider than XLEN-1 bits is a decode error. Synthetic retirement sequences at the top of
// the 32-bit address space, where a 64-bit reading would differ.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "oracle/ntrace_message.h"
#include "oracle/ntrace_reader.h"
#include "oracle/ntrace_writer.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"

namespace ctte::oracle {
namespace {

constexpr uint64_t kTop = 0xFFFFFFF8ULL;  // two 4-byte instructions below 2^32
constexpr uint32_t kNop = 0x00000013;      // addi x0, x0, 0
constexpr uint32_t kRet = 0x00008067;      // jalr x0, 0(ra)
constexpr uint32_t kCallPlus8 = 0x008000EF;  // jal ra, +8
constexpr uint16_t kCjSelf = 0xa001;         // c.j .

Segment Seg(uint64_t at, const std::vector<uint8_t>& bytes) {
  Segment s;
  s.vaddr = at;
  s.memsz = bytes.size();
  s.executable = true;
  s.bytes = bytes;
  return s;
}
void Put32(std::vector<uint8_t>* b, uint32_t w) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(w >> (8 * i)));
}
void Put16(std::vector<uint8_t>* b, uint16_t h) {
  b->push_back(static_cast<uint8_t>(h));
  b->push_back(static_cast<uint8_t>(h >> 8));
}

Retired Beat(uint64_t pc, uint8_t size, IType t) {
  Retired r;
  r.pc = pc;
  r.size = size;
  r.itype = t;
  return r;
}

// 0xFFFFFFF8 nop / 0xFFFFFFFC nop / (wraps) 0x0 nop / 0x4 ret -> 0x80000000 c.j .
ProgramImage WrapImage() {
  std::vector<uint8_t> top, low, ram;
  Put32(&top, kNop);
  Put32(&top, kNop);
  Put32(&low, kNop);
  Put32(&low, kRet);
  Put16(&ram, kCjSelf);
  return ProgramImage::FromSegments(kTop, {Seg(kTop, top), Seg(0, low), Seg(0x80000000, ram)});
}
const std::vector<Retired> kWrapBeats = {
    Beat(kTop, 4, IType::kNone), Beat(kTop + 4, 4, IType::kNone), Beat(0x0, 4, IType::kNone),
    Beat(0x4, 4, IType::kReturn), Beat(0x80000000, 2, IType::kDirectJump)};

// 0xFFFFFFF8 nop / 0xFFFFFFFC jal ra,+8 (target 0x4, link 0x0 after the wrap) / 0x4 ret ->
// 0x0 c.j .
ProgramImage CallWrapImage() {
  std::vector<uint8_t> top, low;
  Put32(&top, kNop);
  Put32(&top, kCallPlus8);
  Put16(&low, kCjSelf);
  Put16(&low, 0x0001);
  Put32(&low, kRet);
  return ProgramImage::FromSegments(kTop, {Seg(kTop, top), Seg(0, low)});
}
const std::vector<Retired> kCallWrapBeats = {
    Beat(kTop, 4, IType::kNone), Beat(kTop + 4, 4, IType::kDirectCall),
    Beat(0x4, 4, IType::kReturn), Beat(0x0, 2, IType::kDirectJump)};

std::vector<uint8_t> Encode(const std::vector<Retired>& beats, EncoderConfig c) {
  ReferenceEncoder enc(c);
  enc.Open();
  for (const Retired& b : beats) enc.Beat(b);
  enc.Close();
  return enc.bytes();
}

std::vector<std::string> Messages(const std::vector<uint8_t>& bytes) {
  std::vector<std::string> out;
  MessageReader reader(bytes, nullptr);
  Message m;
  while (reader.Next(&m)) out.push_back(m.ToString());
  EXPECT_EQ(reader.corruptions(), 0u);
  return out;
}
std::vector<std::string> Strings(const std::vector<Message>& msgs) {
  std::vector<std::string> out;
  for (const Message& m : msgs) out.push_back(m.ToString());
  return out;
}

CollectingSink Decode(const std::vector<uint8_t>& bytes, const ProgramImage& image,
                      uint32_t xlen, uint32_t depth = 0) {
  CollectingSink sink;
  DecodeOptions o;
  o.reconstruct.xlen = xlen;
  o.reconstruct.implicit_return_depth = depth;
  DecodeStream(bytes, image, o, &sink);
  return sink;
}
std::vector<std::string> Errors(const CollectingSink& s) {
  std::vector<std::string> out;
  for (const Marker& m : s.markers_) {
    if (m.kind == Marker::Kind::kDecodeError) out.push_back(m.reason);
  }
  return out;
}
std::vector<uint64_t> Pcs(const std::vector<Retired>& beats) {
  std::vector<uint64_t> out;
  for (const Retired& b : beats) out.push_back(b.pc);
  return out;
}

TEST(XlenTest, AddressHelpersFollowTheSpec) {
  EXPECT_EQ(AddressMask(32), 0xFFFFFFFFULL);
  EXPECT_EQ(AddressMask(64), ~0ULL);
  EXPECT_TRUE(AddressFieldFits(0x7FFFFFFF, 32));   // bits 1..31
  EXPECT_FALSE(AddressFieldFits(0x80000000, 32));  // would be address bit 32
  EXPECT_TRUE(AddressFieldFits(0x7FFFFFFFFFFFFFFFULL, 64));
  EXPECT_FALSE(AddressFieldFits(0x8000000000000000ULL, 64));
}

TEST(XlenTest, Rv32WrapAroundEncodesXlenWideAddressesAndDecodesExactly) {
  EncoderConfig c;
  c.xlen = 32;
  const std::vector<uint8_t> bytes = Encode(kWrapBeats, c);
  // F-ADDR carries bits 1..31; U-ADDR is the XOR of two 32-bit addresses, from bit 1.
  EXPECT_EQ(Messages(bytes),
            Strings({Message::ProgTraceSync(5, 0, 0x7FFFFFFC),
                     Message::IndirectBranchHist(0, 8, (0x80000000ULL ^ kTop) >> 1, 1),
                     Message::ProgTraceCorrelation(4, 1, 1, 1)}));
  const ProgramImage image = WrapImage();
  const CollectingSink rv32 = Decode(bytes, image, 32);
  EXPECT_EQ(rv32.pcs_, Pcs(kWrapBeats));
  EXPECT_TRUE(Errors(rv32).empty());
  // Read as XLEN 64 the walk leaves the 32-bit space at 0x100000000: the width matters.
  const std::vector<std::string> rv64 = Errors(Decode(bytes, image, 64));
  ASSERT_EQ(rv64.size(), 1u);
  EXPECT_NE(rv64[0].find("unmapped memory at 0x100000000"), std::string::npos) << rv64[0];
}

TEST(XlenTest, Rv32ImplicitReturnLinkWrapsInEncoderAndDecoder) {
  EncoderConfig c;
  c.xlen = 32;
  c.features.implicit_return_depth = 1;
  const std::vector<uint8_t> bytes = Encode(kCallWrapBeats, c);
  // The link of the call at 0xFFFFFFFC is 0x0: the return to 0x0 is implicit, no message.
  EXPECT_EQ(Messages(bytes), Strings({Message::ProgTraceSync(5, 0, 0x7FFFFFFC),
                                      Message::ProgTraceCorrelation(4, 1, 7, 1)}));
  const CollectingSink rv32 = Decode(bytes, CallWrapImage(), 32, 1);
  EXPECT_EQ(rv32.pcs_, Pcs(kCallWrapBeats));
  EXPECT_TRUE(Errors(rv32).empty());
  // At XLEN 64 the link is 0x100000000: the encoder reports the return's address.
  c.xlen = 64;
  EXPECT_EQ(Messages(Encode(kCallWrapBeats, c)).size(), 3u);
}

TEST(XlenTest, Rv32StreamEqualsRv64StreamBelow2To31) {
  const std::vector<Retired> beats = {
      Beat(0x80000000, 4, IType::kNone), Beat(0x80000004, 4, IType::kTakenBranch),
      Beat(0x80000100, 4, IType::kIndirectJump), Beat(0x80000040, 2, IType::kNone)};
  for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
    EncoderConfig c32, c64;
    c32.mode = c64.mode = mode;
    c32.xlen = 32;
    EXPECT_EQ(Encode(beats, c32), Encode(beats, c64));
  }
}

// 0x80000000 c.jal +4 (RV32 only; c.addiw on RV64) / 0x80000002 c.j . / 0x80000004 c.jr ra: the
// decoder decodes instructions of its XLEN.
TEST(XlenTest, Rv32DecoderWalksRv32OnlyCompressedInstructions) {
  std::vector<uint8_t> code;
  Put16(&code, 0x2011);  // c.jal +4
  Put16(&code, kCjSelf);
  Put16(&code, 0x8082);  // c.jr ra
  const ProgramImage image =
      ProgramImage::FromSegments(0x80000000, {Seg(0x80000000, code)}, {}, Xlen::k32);
  const std::vector<Retired> beats = {Beat(0x80000000, 2, IType::kDirectCall),
                                      Beat(0x80000004, 2, IType::kReturn),
                                      Beat(0x80000002, 2, IType::kDirectJump)};
  EncoderConfig c;
  c.xlen = 32;
  const std::vector<uint8_t> bytes = Encode(beats, c);
  const CollectingSink rv32 = Decode(bytes, image, 32);
  EXPECT_EQ(rv32.pcs_, Pcs(beats));
  EXPECT_TRUE(Errors(rv32).empty());
  EXPECT_FALSE(Errors(Decode(bytes, image, 64)).empty());  // read as c.addiw: no jump
}

TEST(XlenTest, FaddrWiderThanXlenIsADecodeError_bad) {
  const ProgramImage image = WrapImage();
  std::vector<uint8_t> bytes;
  MessageWriter().Append(Message::ProgTraceSync(5, 0, 0x80000000), &bytes);  // address bit 32
  const std::vector<std::string> e = Errors(Decode(bytes, image, 32));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("F-ADDR 0x80000000 has more significant bits than XLEN 32"),
            std::string::npos)
      << e[0];
  EXPECT_TRUE(Errors(Decode(bytes, image, 64)).empty());  // a valid 64-bit anchor
}

TEST(XlenTest, UaddrWiderThanXlenIsADecodeError_bad) {
  const ProgramImage image = WrapImage();
  std::vector<uint8_t> bytes;
  MessageWriter w;
  w.Append(Message::ProgTraceSync(5, 0, kTop >> 1), &bytes);
  w.Append(Message::IndirectBranchHist(0, 8, 0x80000000ULL | ((0x80000000ULL ^ kTop) >> 1), 1),
           &bytes);
  const CollectingSink s = Decode(bytes, image, 32);
  const std::vector<std::string> e = Errors(s);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("U-ADDR 0xbffffffc has more significant bits than XLEN 32"),
            std::string::npos)
      << e[0];
  EXPECT_EQ(s.pcs_.size(), 4u);  // the walk up to the jump is good
}

}  // namespace
}  // namespace ctte::oracle
