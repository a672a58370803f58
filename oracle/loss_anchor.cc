// The anchors of a lossy stream's segments (oracle/loss_anchor.h).
#include "oracle/loss_anchor.h"

#include <algorithm>

namespace ctte::oracle::internal {

/// The anchor a window's first episode replays from.
DropAnchor OpenDropAnchor(const DecodedStream& d, const StreamWindow& sw,
                          const ExpectedWindow& x) {
  DropAnchor an;
  if (!x.has_beats) {
    an.why = "its window has no beat";
  } else if (sw.late_open != 0) {
    an.why = "its window opened late (after a pause whose close waited for room)";
  } else if (x.after_pause && sw.first_message < d.messages.size() &&
             d.messages[sw.first_message].type() == Tcode::kError) {
    an.why = "its window re-opened after a pause with the SYNC=5 dropped: how late is unknown";
  } else {
    an.known = true;
    an.beat = x.begin_beat;
    an.byte = sw.byte_begin;
  }
  return an;
}

DropAnchor RecoveryDropAnchor(const Expected& e, const DecodedStream& d, const Alignment& a,
                              size_t mi,
                              const std::vector<std::pair<uint64_t, size_t>>& after_loss,
                              const BeatIndex& table, uint64_t prev_drop_beat,
                              uint64_t window_end_beat) {
  DropAnchor an;
  if (mi + 1 >= d.messages.size() || d.messages[mi + 1].type() != Tcode::kProgTraceSync ||
      d.messages[mi + 1].get(Field::kSync) != kSyncOverrunRestart) {
    an.why = "the previous Error is not followed by a SYNC=7";
    return an;
  }
  const Message& sync = d.messages[mi + 1];
  auto it = std::lower_bound(after_loss.begin(), after_loss.end(),
                             std::make_pair(sync.offset, size_t{0}));
  if (it == after_loss.end() || it->first != sync.offset) {
    an.why = "the previous SYNC=7 starts no segment";
    return an;
  }
  const AlignedSegment& s = a.segments[it->second];
  uint64_t b = 0, last = 0;
  if (!s.placed || s.length() == 0) {
    if (prev_drop_beat == UINT64_MAX) {
      an.why = "the previous SYNC=7's segment is not placed and the episode before it is not "
               "exact (its dropped beat bounds the recovery beat)";
      return an;
    }
    b = prev_drop_beat + 1;
    last = window_end_beat == 0 ? 0 : window_end_beat - 1;  // no placement bounds it
  } else {
    if (!table.Find(s.ref_begin, &b)) {
      an.why = "the previous SYNC=7 is placed past the reference's beats";
      return an;
    }
    if (!table.Find(std::max(s.ref_latest, s.ref_begin), &last)) last = b;
    // The recovery beat is at or after the placed retirement's (the earliest feasible
    // placement; later ones when it is ambiguous), or a trap beat just before it.
    while (b > 0 && !e.Beats()[b - 1].retires) --b;
  }
  an.known = true;
  an.recovery = true;
  an.beat = b;
  an.last_beat = last;
  an.far_beat = std::max(last, window_end_beat == 0 ? 0 : window_end_beat - 1);
  an.pc = (sync.get(Field::kFaddr) << 1) & AddressMask(e.xlen);
  an.byte = d.messages[mi].offset;
  return an;
}

}  // namespace ctte::oracle::internal
