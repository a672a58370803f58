// Alignment of a decoded stream with the reference retirement sequence (docs/verdicts.md,
// "Alignment").
//
// The stream is cut into *stream windows* at each ProgTraceCorrelation; stream window k is
// paired with configured window k. Inside a window the decoded PCs form *segments*: a segment
// starts at a sync anchor met without a position (window open, after an Error, after a decoder
// error) and runs through every later anchor (a periodic sync re-anchors a known position: the
// transition is verified by the contiguity of the segment) up to the next Error, decoder error
// or the correlation. Placement, by anchor, never by position alone:
//  - a segment opened by SYNC=5 whose F-ADDR is the window's first beat starts at the window's
//    first retirement;
//  - the last segment of a window closed by its correlation (no Error in between) ends at the
//    window's last retirement;
//  - any other segment (after a loss) is placed at the earliest occurrence of its whole PC
//    sequence after the previous segment (KMP over the reference), so a recurring anchor address
//    in a loop cannot mislead it; a backward pass finds its latest placement that leaves room
//    for the segments after it; if that differs the placement is flagged ambiguous (content is
//    still verified, the split of the gaps beside it is not).
// A segment that does not match is cut at its first divergence; the decoded PCs from there to
// its next anchor are unverified, and the rest is placed again from that anchor.
// Reference instructions covered by no verified PC form gaps; a gap is *announced* when an
// Error lies between its two sides and no decoder error or divergence does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "oracle/run_facts.h"

namespace ctte::oracle {

constexpr size_t kNone = static_cast<size_t>(-1);

struct AlignedSegment {
  enum class Start : uint8_t { kWindowOpen, kAfterLoss, kAfterDecodeError, kAfterDivergence,
                               kUnexpected };
  enum class End : uint8_t { kLoss, kCorrelation, kDecodeError, kStreamEnd };
  size_t window = 0;            ///< stream window index
  uint64_t dec_begin = 0;       ///< decoded PC index range [dec_begin, dec_end)
  uint64_t dec_end = 0;
  Start start = Start::kUnexpected;
  End end = End::kStreamEnd;
  size_t anchor_marker = kNone; ///< the anchor that starts it
  size_t end_marker = kNone;    ///< the marker that ends it (loss, correlation, decode error)
  bool placed = false;          ///< a reference position was found for its first PC
  uint64_t ref_begin = 0;       ///< retirement index of its first PC (when placed)
  uint64_t matched = 0;         ///< PCs that equal the reference from ref_begin on
  bool ambiguous = false;       ///< earliest and latest feasible placement differ (loop)
  /// The latest feasible placement of its first PC (== ref_begin unless ambiguous).
  uint64_t ref_latest = 0;
  bool late_open = false;       ///< window opened after its configured edge (close waited)

  uint64_t length() const { return dec_end - dec_begin; }
  bool diverged() const { return matched < length(); }
};

struct AlignedGap {
  size_t window = 0;            ///< configured window index
  uint64_t ref_begin = 0, ref_end = 0;
  bool announced = false;
  size_t loss_marker = kNone;   ///< the Error that announced it
  bool unexplained = false;     ///< a decoder error or divergence lies on its sides
  bool ambiguous = false;       ///< its bounds depend on an ambiguous placement
};

struct StreamWindow {
  size_t first_message = 0, end_message = 0;  ///< message index range [first, end)
  bool closed = false;                        ///< ends with a ProgTraceCorrelation
  uint64_t byte_begin = 0, byte_end = 0;
  uint64_t pc_begin = 0, pc_end = 0;          ///< decoded PC index range
  size_t marker_begin = 0, marker_end = 0;    ///< marker index range
  uint64_t late_open = 0;                     ///< instructions skipped by a late open
};

struct Alignment {
  std::vector<StreamWindow> windows;
  std::vector<AlignedSegment> segments;
  std::vector<AlignedGap> gaps;
  uint64_t verified_pcs = 0;    ///< decoded PCs equal to the reference at their position
  /// Indices (ascending) of the stream's Error messages and of its ProgTraceSync SYNC=5
  /// messages, found in the one pass over the message list that cuts the windows: the judges
  /// read these instead of walking the messages again (a message is 160 bytes, so each walk
  /// of a long stream is megabytes of memory traffic; issue #17).
  std::vector<size_t> error_messages;
  std::vector<size_t> enable_sync_messages;
};

Alignment Align(const Expected& expected, const DecodedStream& stream);

}  // namespace ctte::oracle
