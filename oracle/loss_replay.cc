// ReplayLosses (oracle/loss_replay.h): a lossy stream is cut at its Error messages into
// segments, each starting at an anchor (the window's opening SYNC=5, or a recovery's Error +
// SYNC=7, where the encoder's state is clean and known). Per segment the reference encoder is
// replayed from the anchor's beat over the reference beats, its bytes compared with the
// capture's as they come: up to the next Error the first beat whose bytes pass the Error's
// offset is the dropped beat, and its records are the episode's count; the window's last
// segment must equal the replay, closing correlation included. A loop's candidate recovery
// beats share a replay when their beats agree (ReplaySegment).
#include "oracle/loss_replay.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "oracle/judge_util.h"
#include "oracle/loss_anchor.h"
#include "oracle/loss_segment.h"

namespace ctte::oracle {
namespace {

using internal::BeatIndex;
using internal::OpenDropAnchor;
using internal::RecoveryDropAnchor;
using internal::ReplaySegment;
using internal::DropAnchor;
using internal::SegmentEnd;
using internal::SegmentOutcome;
using judge::Num;

/// A message the repeat stage sends for a run it held: RepeatBranch, or ResourceFull HREPEAT.
bool IsRepeatMessage(const Message& m) {
  return m.type() == Tcode::kRepeatBranch ||
         (m.type() == Tcode::kResourceFull && m.get(Field::kRcode) == kRcodeHistRepeat);
}
}  // namespace

LossReplay ReplayLosses(const Expected& e, const DecodedStream& d, const Alignment& a) {
  LossReplay out;
  DroppedRecords& r = out.dropped;
  ReplayedSegments& sb = out.segments;
  r.episodes = a.error_messages.size();
  if (r.episodes == 0) return out;
  // The repeat stage sits between the records and the bytes: the capture holds its messages,
  // the counter counts the records before it, so the count is only bounded (the bytes are still
  // compared).
  const bool repeat_stage = e.features.repeated_history || e.features.repeat_branch;
  const std::string repeat_why =
      "the repeat stage is on: the capture holds messages after it, the counter counts records "
      "before it";
  const auto bound = [&r, &d](size_t mi, const std::string& why) {
    if (r.first_bounded.empty()) {
      r.first_bounded = "Error at byte " + Num(d.messages[mi].offset) + ": " + why;
    }
  };
  const auto not_compared = [&sb](uint64_t byte, const std::string& why) {
    ++sb.segments;
    ++sb.not_compared;
    if (sb.first_not_compared.empty()) {
      sb.first_not_compared = "segment from byte " + Num(byte) + ": " + why;
    }
  };
  const auto compared = [&sb](uint64_t byte, uint64_t end, const SegmentOutcome& n) {
    ++sb.segments;
    if (!n.compared) {
      ++sb.not_compared;
      if (sb.first_not_compared.empty()) {
        sb.first_not_compared = "segment from byte " + Num(byte) + ": " + n.why;
      }
    } else if (n.equal) {
      ++sb.equal;
    } else {
      ++sb.differing;
      if (sb.first_differing.empty()) {
        sb.first_differing = "segment [" + Num(byte) + ", " + Num(end) + "): " + n.why;
        sb.first_differing_byte = n.byte;
      }
    }
  };
  if (e.Beats().empty()) {
    r.min_records = r.episodes;
    r.max_records = r.episodes * kMaxRecordsPerBeat;
    r.first_bounded = "the reference kept no beats";
    not_compared(0, "the reference kept no beats");
    return out;
  }
  std::vector<std::pair<uint64_t, size_t>> after_loss;  // (anchor offset, segment), ascending
  for (size_t i = 0; i < a.segments.size(); ++i) {
    const AlignedSegment& s = a.segments[i];
    if (s.start == AlignedSegment::Start::kAfterLoss && s.anchor_marker != kNone) {
      after_loss.emplace_back(d.markers[s.anchor_marker].offset, i);
    }
  }
  std::sort(after_loss.begin(), after_loss.end());
  BeatIndex index(e.Beats(), AddressMask(e.xlen));
  size_t ei = 0;
  const std::vector<size_t>& errors = a.error_messages;
  for (size_t w = 0; w < a.windows.size() && w < e.windows.size(); ++w) {
    const StreamWindow& sw = a.windows[w];
    while (ei < errors.size() && errors[ei] < sw.first_message) {
      r.min_records += 1;
      r.max_records += kMaxRecordsPerBeat;
      bound(errors[ei], "no window");
      not_compared(d.messages[errors[ei]].offset, "its Error is outside every window");
      ++ei;
    }
    DropAnchor an = OpenDropAnchor(d, sw, e.windows[w]);
    const uint64_t end_beat = e.windows[w].end_beat;
    size_t last_error = kNone;
    for (; ei < errors.size() && errors[ei] < sw.end_message; ++ei) {
      const size_t mi = errors[ei];
      const uint64_t error_byte = d.messages[mi].offset;
      // With the repeat stage, the runs it held when the Error reached it were flushed just
      // before it with the counts they had then (a replay without the loss sends them later,
      // counted further): compared up to them.
      uint64_t compare_end = error_byte;
      if (repeat_stage) {
        for (size_t k = mi; k > sw.first_message && IsRepeatMessage(d.messages[k - 1]) &&
                            (!an.known || d.messages[k - 1].offset >= an.byte);
             --k) {
          compare_end = d.messages[k - 1].offset;
        }
      }
      const SegmentOutcome n =
          ReplaySegment(e, d, an, SegmentEnd{end_beat, compare_end, false, false, repeat_stage},
                        &index);
      compared(an.known ? an.byte : sw.byte_begin, error_byte, n);
      if (n.equal && n.counted) {
        LossCoverage& c = out.coverage;
        ++c.drops;
        c.return_stack += n.at_drop.return_stack ? 1 : 0;
        c.hist += n.at_drop.hist ? 1 : 0;
        c.held_repeat += n.at_drop.held_repeat ? 1 : 0;
        c.seq_jump_setter += n.at_drop.seq_jump_setter ? 1 : 0;
      }
      if (repeat_stage) {
        r.min_records += 1;
        r.max_records += kMaxRecordsPerBeat;
        bound(mi, repeat_why);
      } else {
        r.min_records += n.lo;
        r.max_records += n.hi;
        if (n.lo == n.hi) {
          ++r.exact_episodes;
        } else {
          bound(mi, n.why);
        }
      }
      an = RecoveryDropAnchor(e, d, a, mi, after_loss, index, n.drop_beat, end_beat);
      last_error = mi;
    }
    // The window's last segment, from its last anchor to its end. A window closed during a
    // loss ends Error, ProgTraceCorrelation: nothing follows that Error to compare.
    const bool closed_in_loss = last_error != kNone && last_error + 2 == sw.end_message &&
                                sw.closed;
    // An unclosed window runs to the end of the capture (its byte_end is open).
    const uint64_t window_end = std::min<uint64_t>(sw.byte_end, d.bytes.size());
    if (!closed_in_loss && window_end > (an.known ? an.byte : sw.byte_begin)) {
      const SegmentOutcome n =
          ReplaySegment(e, d, an, SegmentEnd{end_beat, window_end, true, sw.closed, false},
                        &index);
      compared(an.known ? an.byte : sw.byte_begin, window_end, n);
    }
  }
  if (ei < errors.size()) bound(errors[ei], "its stream window pairs with no configured window");
  for (; ei < errors.size(); ++ei) {
    r.min_records += 1;
    r.max_records += kMaxRecordsPerBeat;
    not_compared(d.messages[errors[ei]].offset, "its window pairs with no configured window");
  }
  return out;
}

}  // namespace ctte::oracle
