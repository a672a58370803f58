// The reconstructor's straight-line fast path (oracle/reconstruct_run.h) against the one-by-one
// walk (ReconstructOptions::straight_line_runs = false): the same PCs, markers and error texts
// for every I-CNT over mixed 2/4-byte code that crosses a page (with a 4-byte instruction
// straddling it) and runs longer than SeqRun::kMaxRun, for XLEN 32 at the top of the address
// space, and for generated programs, clean and with corrupted bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "oracle/ntrace_writer.h"
#include "oracle/program_gen.h"
#include "oracle/reconstruct.h"
#include "tests/oracle/iss_run.h"

namespace ctte::oracle {
namespace {

constexpr uint32_t kNop = 0x00000013;  // addi x0, x0, 0
constexpr uint16_t kCNop = 0x0001;     // c.nop
constexpr uint16_t kCjSelf = 0xa001;   // c.j .

void Put32(std::vector<uint8_t>* b, uint32_t w) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(w >> (8 * i)));
}
void Put16(std::vector<uint8_t>* b, uint16_t h) {
  b->push_back(static_cast<uint8_t>(h));
  b->push_back(static_cast<uint8_t>(h >> 8));
}

// From `base`: 150 sequential instructions, 2 and 4 bytes in a fixed pseudo-random pattern,
// then c.j . (a direct jump, which ends a run). `base` is chosen by the callers so that the
// code crosses a 4 KiB page boundary. A 4-byte instruction straddles `straddle_at`; none
// straddles `avoid_at` (2^32 on XLEN 32: the image has no instruction across the wrap).
ProgramImage StraightImage(uint64_t base, uint64_t straddle_at, uint64_t avoid_at, Xlen xlen) {
  std::vector<uint8_t> b;
  uint32_t x = 12345;
  for (int i = 0; i < 150; ++i) {
    x = x * 1103515245u + 12345u;
    const uint64_t at = base + b.size();
    if (at + 2 == straddle_at || (at + 2 != avoid_at && ((x >> 16) & 1))) {
      Put32(&b, kNop);  // at straddle_at - 2: a 4-byte instruction across the page boundary
    } else {
      Put16(&b, kCNop);
    }
  }
  Put16(&b, kCjSelf);
  // Code past 2^32 on XLEN 32 continues at address 0 (a second segment).
  const uint64_t split = xlen == Xlen::k32 && base + b.size() > (1ULL << 32)
                             ? (1ULL << 32) - base
                             : b.size();
  std::vector<Segment> segs;
  for (int i = 0; i < 2; ++i) {
    Segment s;
    s.vaddr = i == 0 ? base : 0;
    s.bytes.assign(b.begin() + (i == 0 ? 0 : split), i == 0 ? b.begin() + split : b.end());
    s.memsz = s.bytes.size();
    s.executable = true;
    if (!s.bytes.empty()) segs.push_back(std::move(s));
  }
  return ProgramImage::FromSegments(base, std::move(segs), {}, xlen);
}

CollectingSink Run(const std::vector<uint8_t>& bytes, const ProgramImage& image,
                   ReconstructOptions o, bool runs) {
  o.straight_line_runs = runs;
  DecodeOptions d;
  d.reconstruct = o;
  CollectingSink sink;
  DecodeStream(bytes, image, d, &sink);
  return sink;
}

// Decodes with and without the fast path; returns the fast one after checking they agree.
CollectingSink ExpectSame(const std::vector<uint8_t>& bytes, const ProgramImage& image,
                          ReconstructOptions o, const std::string& what) {
  const CollectingSink fast = Run(bytes, image, o, true);
  const CollectingSink slow = Run(bytes, image, o, false);
  EXPECT_EQ(fast.pcs_, slow.pcs_) << what;
  EXPECT_EQ(fast.markers_.size(), slow.markers_.size()) << what;
  for (size_t i = 0; i < fast.markers_.size() && i < slow.markers_.size(); ++i) {
    const Marker& a = fast.markers_[i];
    const Marker& b = slow.markers_[i];
    EXPECT_TRUE(a.kind == b.kind && a.pc_index == b.pc_index && a.offset == b.offset &&
                a.pc == b.pc && a.value == b.value && a.code == b.code && a.reason == b.reason)
        << what << ": marker " << i << ": " << a.reason << " / " << b.reason;
  }
  return fast;
}

size_t Errors(const CollectingSink& s) {
  size_t n = 0;
  for (const Marker& m : s.markers_) n += m.kind == Marker::Kind::kDecodeError;
  return n;
}

// Every I-CNT from 0 to past the end of the code, ended by a correlation (any instruction may
// end it) and by an indirect branch (only an uninferable jump may: always an error here).
void EveryIcnt(uint64_t base, Xlen xlen, uint32_t xlen_bits) {
  const uint64_t page_end = (base | 0xfff) + 1;
  const ProgramImage image = xlen == Xlen::k32 ? StraightImage(base, base + 0x40, page_end, xlen)
                                               : StraightImage(base, page_end, 0, xlen);
  ReconstructOptions o;
  o.xlen = xlen_bits;
  size_t clean = 0, errors = 0;
  for (uint64_t icnt = 0; icnt <= 240; ++icnt) {
    for (int kind = 0; kind < 2; ++kind) {
      MessageWriter w;
      std::vector<uint8_t> bytes;
      w.Append(Message::ProgTraceSync(5, 0, base >> 1), &bytes);
      w.Append(kind == 0 ? Message::ProgTraceCorrelation(4, 0, icnt, 0)
                         : Message::IndirectBranch(0, icnt, 0x40),
               &bytes);
      const CollectingSink s =
          ExpectSame(bytes, image, o, "I-CNT " + std::to_string(icnt) + " kind " +
                                          std::to_string(kind));
      (Errors(s) == 0 ? clean : errors) += 1;
    }
  }
  // Both outcomes occur: I-CNTs that end between instructions and inside a 4-byte one, the
  // c.j . that the walk may not pass, and the uninferable-jump check of the indirect branch.
  EXPECT_GT(clean, 100u);
  EXPECT_GT(errors, 240u);
}

TEST(ReconstructRunTest, EveryIcntAcrossAPageIsTheOneByOneWalk) {
  EveryIcnt(0x80000f80ULL, Xlen::k64, 64);
}

TEST(ReconstructRunTest, EveryIcntAtTheTopOfThe32BitSpaceIsTheOneByOneWalk) {
  // The code starts 0x80 below 2^32 and goes on at 0 (the walk wraps modulo 2^XLEN).
  EveryIcnt(0xffffff80ULL, Xlen::k32, 32);
}

TEST(ReconstructRunTest, ALongRunIsEmittedInOrder) {
  const uint64_t base = 0x80000f80ULL;
  const ProgramImage image = StraightImage(base, base + 0x80, 0, Xlen::k64);
  std::vector<uint64_t> expected;
  uint64_t pc = base, hw = 0;
  for (int i = 0; i < 150; ++i) {  // the PCs the image's sizes give, one by one
    expected.push_back(pc);
    uint32_t raw = 0;
    ASSERT_TRUE(image.FetchInsn(pc, &raw));
    const uint64_t size = (raw & 3) == 3 ? 4 : 2;
    pc += size;
    hw += size / 2;
  }
  MessageWriter w;
  std::vector<uint8_t> bytes;
  w.Append(Message::ProgTraceSync(5, 0, base >> 1), &bytes);
  w.Append(Message::ProgTraceCorrelation(4, 0, hw, 0), &bytes);
  const CollectingSink s = ExpectSame(bytes, image, ReconstructOptions{}, "long run");
  EXPECT_EQ(s.pcs_, expected);
  EXPECT_EQ(Errors(s), 0u);
}

TEST(ReconstructRunTest, GeneratedProgramsCleanAndCorruptedAreTheOneByOneWalk) {
  std::mt19937_64 rng(41);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    ProgramGenOptions g;
    g.max_dynamic = 20'000;
    g.xlen = seed % 2 ? Xlen::k64 : Xlen::k32;
    const ProgramImage image = GenerateProgram(seed, g).ToImage();
    IssOptions io;
    const test_support::IssRun run = test_support::RunIss(image, io);
    EncoderConfig c;
    c.xlen = static_cast<uint8_t>(XlenBits(g.xlen));
    if (seed % 3 == 0) c.mode = TraceMode::kBtm;
    if (seed >= 4) {  // periodic syncs and implicit return
      c.sync_mode = 1;
      c.sync_max = 2;
      c.features.implicit_return_depth = 16;
    }
    const std::vector<uint8_t> bytes = test_support::Encode(run, c);
    ReconstructOptions o;
    o.xlen = c.xlen;
    o.implicit_return_depth = c.features.implicit_return_depth;
    const CollectingSink s = ExpectSame(bytes, image, o, "seed " + std::to_string(seed));
    EXPECT_EQ(s.pcs_, run.pcs) << "seed " << seed;
    for (int k = 0; k < 20; ++k) {  // one byte changed: errors and resyncs, the same either way
      std::vector<uint8_t> bad = bytes;
      bad[rng() % bad.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      ExpectSame(bad, image, o, "seed " + std::to_string(seed) + " corruption " +
                                    std::to_string(k));
    }
  }
}

}  // namespace
}  // namespace ctte::oracle
