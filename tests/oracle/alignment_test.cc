// Alignment of decoded segments with the reference (oracle/alignment.h) on hand-built streams:
// loops whose anchor address recurs, divergence and re-anchoring, silent and announced gaps.
#include "oracle/alignment.h"

#include <gtest/gtest.h>

namespace ctte::oracle {
namespace {

// Builds a DecodedStream event by event: PCs, then markers, each marker with its own message.
class StreamBuilder {
 public:
  StreamBuilder& Pcs(std::initializer_list<uint64_t> pcs) {
    d_.pcs.insert(d_.pcs.end(), pcs.begin(), pcs.end());
    return *this;
  }
  StreamBuilder& Anchor(uint64_t pc, uint8_t sync) {
    return Mark(Marker::Kind::kAnchor, Tcode::kProgTraceSync, pc, sync);
  }
  StreamBuilder& Loss() { return Mark(Marker::Kind::kLoss, Tcode::kError, 0, 0); }
  StreamBuilder& Error() { return Mark(Marker::Kind::kDecodeError, Tcode::kIndirectBranchHist, 0, 0); }
  StreamBuilder& Correlation() {
    return Mark(Marker::Kind::kCorrelation, Tcode::kProgTraceCorrelation, 0, 4);
  }
  DecodedStream Build() const { return d_; }

 private:
  StreamBuilder& Mark(Marker::Kind kind, Tcode t, uint64_t pc, uint8_t code) {
    Message msg;
    msg.tcode = static_cast<uint8_t>(t);
    msg.offset = offset_;
    msg.size = 4;
    d_.messages.push_back(msg);
    Marker m;
    m.kind = kind;
    m.pc_index = d_.pcs.size();
    m.offset = offset_;
    m.pc = pc;
    m.code = code;
    d_.markers.push_back(m);
    offset_ += 4;
    return *this;
  }
  DecodedStream d_;
  uint64_t offset_ = 0;
};

// Loop body A B C ten times, then D E: the anchor address A recurs ten times.
constexpr uint64_t A = 0x100, B = 0x104, C = 0x108, D = 0x10c, E = 0x110;

Expected LoopReference() {
  Expected e;
  for (int i = 0; i < 10; ++i) e.pcs.insert(e.pcs.end(), {A, B, C});
  e.pcs.insert(e.pcs.end(), {D, E});
  e.halfwords.assign(e.pcs.size(), 2);
  ExpectedWindow w;
  w.begin = 0;
  w.end = e.pcs.size();
  w.has_beats = true;
  w.open_pc = A;
  e.windows.push_back(w);
  return e;
}

TEST(AlignmentTest, SegmentsAfterLossArePairedByAnchorInALoop) {
  const Expected e = LoopReference();
  const DecodedStream d = StreamBuilder()
                              .Anchor(A, 5).Pcs({A, B, C, A, B, C, A}).Loss()
                              .Anchor(A, 7).Pcs({A, B, C, A}).Loss()
                              .Anchor(A, 7).Pcs({A, B, C, D, E}).Correlation()
                              .Build();
  const Alignment a = Align(e, d);
  ASSERT_EQ(a.segments.size(), 3u);
  EXPECT_EQ(a.segments[0].ref_begin, 0u);
  EXPECT_FALSE(a.segments[0].diverged());
  // The middle one fits at several iterations: verified, but flagged ambiguous.
  EXPECT_FALSE(a.segments[1].diverged());
  EXPECT_TRUE(a.segments[1].ambiguous);
  // The last one is pinned to the window end by the correlation.
  EXPECT_EQ(a.segments[2].ref_begin, e.pcs.size() - 5);
  EXPECT_FALSE(a.segments[2].ambiguous);
  EXPECT_EQ(a.verified_pcs, 16u);
  uint64_t missing = 0;
  for (const AlignedGap& g : a.gaps) {
    EXPECT_TRUE(g.announced);
    missing += g.ref_end - g.ref_begin;
  }
  EXPECT_EQ(missing, e.pcs.size() - 16);
}

TEST(AlignmentTest, WholeSequenceNotAnchorAddressDecidesThePlacement) {
  // After the loss the segment starts at A, but only the occurrence followed by D E fits.
  const Expected e = LoopReference();
  const DecodedStream d = StreamBuilder()
                              .Anchor(A, 5).Pcs({A, B}).Loss()
                              .Anchor(A, 7).Pcs({A, B, C, D}).Loss()
                              .Correlation()
                              .Build();
  const Alignment a = Align(e, d);
  ASSERT_EQ(a.segments.size(), 2u);
  EXPECT_EQ(a.segments[1].ref_begin, 27u);
  EXPECT_FALSE(a.segments[1].diverged());
  EXPECT_FALSE(a.segments[1].ambiguous);
  ASSERT_EQ(a.gaps.size(), 2u);  // 2..26 and the tail E, both announced
  EXPECT_TRUE(a.gaps[0].announced);
  EXPECT_TRUE(a.gaps[1].announced);
  EXPECT_EQ(a.gaps[1].ref_begin, 31u);
}

TEST(AlignmentTest, LaterSegmentsPinAnEarlierRecurringOneFromBehind) {
  // B C D occurs twice, but the pinned tail A B C D E leaves room only for the first.
  Expected e;
  e.pcs = {A, B, C, D, A, B, C, D, E};
  e.halfwords.assign(e.pcs.size(), 2);
  ExpectedWindow w;
  w.end = e.pcs.size();
  w.has_beats = true;
  w.open_pc = A;
  e.windows.push_back(w);
  const DecodedStream d = StreamBuilder()
                              .Anchor(A, 5).Pcs({A}).Loss()
                              .Anchor(B, 7).Pcs({B, C, D}).Loss()
                              .Anchor(A, 7).Pcs({A, B, C, D, E}).Correlation()
                              .Build();
  const Alignment a = Align(e, d);
  ASSERT_EQ(a.segments.size(), 3u);
  EXPECT_EQ(a.segments[1].ref_begin, 1u);
  EXPECT_FALSE(a.segments[1].ambiguous);
  EXPECT_EQ(a.segments[2].ref_begin, 4u);
  EXPECT_TRUE(a.gaps.empty());
}

TEST(AlignmentTest, DivergenceIsCutAndTheRestReplacedFromTheNextAnchor) {
  const Expected e = LoopReference();
  // A wrong PC after 4 good ones; a periodic anchor at iteration 5 puts the decoder back.
  const DecodedStream d = StreamBuilder()
                              .Anchor(A, 5).Pcs({A, B, C, A, 0x200, 0x204})
                              .Anchor(A, 2).Pcs({A, B, C, A, B, C, A, B, C, A, B, C, D, E})
                              .Correlation()
                              .Build();
  const Alignment a = Align(e, d);
  ASSERT_EQ(a.segments.size(), 2u);
  EXPECT_EQ(a.segments[0].matched, 4u);
  EXPECT_TRUE(a.segments[0].diverged());
  EXPECT_EQ(a.segments[1].start, AlignedSegment::Start::kAfterDivergence);
  EXPECT_EQ(a.segments[1].ref_begin, 18u);
  EXPECT_FALSE(a.segments[1].diverged());
  ASSERT_EQ(a.gaps.size(), 1u);
  EXPECT_FALSE(a.gaps[0].announced);  // nothing announced the missing iterations
  EXPECT_TRUE(a.gaps[0].unexplained);
  EXPECT_EQ(a.gaps[0].ref_begin, 4u);
  EXPECT_EQ(a.gaps[0].ref_end, 18u);
}

TEST(AlignmentTest, GapAcrossADecoderErrorIsSilent) {
  const Expected e = LoopReference();
  const DecodedStream d = StreamBuilder()
                              .Anchor(A, 5).Pcs({A, B, C}).Error()
                              .Anchor(A, 2).Pcs({A, B, C, D, E})
                              .Correlation()
                              .Build();
  const Alignment a = Align(e, d);
  ASSERT_EQ(a.gaps.size(), 1u);
  EXPECT_FALSE(a.gaps[0].announced);
  EXPECT_EQ(a.gaps[0].ref_end - a.gaps[0].ref_begin, e.pcs.size() - 8);
}

TEST(AlignmentTest, MissingTailIsAGapAtTheWindowEnd) {
  const Expected e = LoopReference();
  // The stream stops early (no correlation): the last segment floats, the tail is missing.
  const DecodedStream d = StreamBuilder().Anchor(A, 5).Pcs({A, B, C, A, B}).Build();
  const Alignment a = Align(e, d);
  ASSERT_EQ(a.windows.size(), 1u);
  EXPECT_FALSE(a.windows[0].closed);
  ASSERT_EQ(a.gaps.size(), 1u);
  EXPECT_EQ(a.gaps[0].ref_begin, 5u);
  EXPECT_EQ(a.gaps[0].ref_end, e.pcs.size());
  EXPECT_FALSE(a.gaps[0].announced);
}

}  // namespace
}  // namespace ctte::oracle
