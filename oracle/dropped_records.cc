// CountDroppedRecords (oracle/dropped_records.h): per loss episode, the reference encoder is
// replayed from the episode's previous anchor (window open or recovery SYNC=7) over the
// reference beats, its bytes compared with the capture's as they come; the first beat whose
// bytes pass the Error's offset is the dropped beat and its records are the episode's count.
// Each beat of a window is replayed at most once (segments between anchors are disjoint).
#include "oracle/dropped_records.h"

#include <algorithm>
#include <vector>

#include "oracle/judge_util.h"
#include "oracle/reference_encoder.h"

namespace ctte::oracle {
namespace {

using judge::Num;

/// Where a replay starts: the beat and the capture byte of the anchor's first record.
struct DropAnchor {
  bool known = false;
  bool recovery = false;  ///< the beat forms Error + SYNC=7 (else it opens the window)
  uint64_t beat = 0;      ///< the first candidate beat
  /// Recovery: candidates are every beat from `beat` on (to the window's end) with the SYNC=7's
  /// address, the true one among them (`beat` is the alignment's earliest placement); open: one.
  uint64_t pc = 0;
  uint64_t last_beat = 0; ///< recovery: the last candidate (the latest feasible placement's)
  uint64_t byte = 0;
  std::string why;        ///< !known: why not
};

/// Candidate recovery beats replayed per episode at most (a loop recurs).
constexpr uint64_t kMaxCandidates = 4096;

/// Beat index of the retiring beat with retirement index `target`, by a cursor that moves
/// forward (anchors come in stream order); restarts from 0 when asked for an earlier one.
class DropBeatCursor {
 public:
  explicit DropBeatCursor(const std::vector<TraceBeat>& beats) : beats_(beats) {}
  bool Find(uint64_t target, uint64_t* beat) {
    if (target < retired_) beat_ = retired_ = 0;
    while (beat_ < beats_.size()) {
      if (beats_[beat_].retires) {
        if (retired_ == target) {
          *beat = beat_;
          return true;
        }
        ++retired_;
      }
      ++beat_;
    }
    return false;
  }

 private:
  const std::vector<TraceBeat>& beats_;
  uint64_t beat_ = 0, retired_ = 0;  ///< retired_: retiring beats before beat_
};

/// The records the dropped beat forms (>= 1), or 0 with *why.
uint64_t ReplayToDrop(const Expected& e, const DecodedStream& d, const DropAnchor& an,
                      uint64_t from, uint64_t end_beat, uint64_t byte_end, std::string* why) {
  ReferenceEncoder enc(e.encoder);
  if (an.recovery) {
    enc.Recover();
  } else {
    enc.Open();
  }
  const uint64_t span = byte_end - an.byte;
  uint64_t checked = 0;
  end_beat = std::min<uint64_t>(end_beat, e.beat_trace.size());
  for (uint64_t k = from; k < end_beat; ++k) {
    const uint64_t records_before = enc.records();
    const uint64_t bytes_before = enc.bytes().size();
    enc.Beat(e.beat_trace[k].ToRetired());
    const std::vector<uint8_t>& out = enc.bytes();
    const uint64_t upto = std::min<uint64_t>(out.size(), span);
    for (; checked < upto; ++checked) {
      if (out[checked] != d.bytes[an.byte + checked]) {
        *why = "the reference encoder replayed from beat " + Num(from) + " differs from the " +
               "capture at byte " + Num(an.byte + checked);
        return 0;
      }
    }
    if (out.size() > span) {
      if (bytes_before != span) {
        *why = "the capture before the Error ends inside the records of beat " + Num(k);
        return 0;
      }
      return enc.records() - records_before;
    }
  }
  *why = "the replay from beat " + Num(from) + " forms no record the capture lacks";
  return 0;
}

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

/// The anchor after the Error at message `mi`: the beat of its SYNC=7.
DropAnchor RecoveryDropAnchor(const Expected& e, const DecodedStream& d, const Alignment& a, size_t mi,
                      const std::vector<std::pair<uint64_t, size_t>>& after_loss,
                      DropBeatCursor* cursor) {
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
  if (!s.placed || s.length() == 0) {
    an.why = "the previous SYNC=7's segment is not placed";
    return an;
  }
  uint64_t b = 0, last = 0;
  if (!cursor->Find(s.ref_begin, &b) || !cursor->Find(std::max(s.ref_latest, s.ref_begin), &last)) {
    an.why = "the previous SYNC=7 is placed past the reference's beats";
    return an;
  }
  // The recovery beat is at or after the placed retirement's (the earliest feasible placement;
  // later ones when it is ambiguous), or a trap beat just before it.
  while (b > 0 && !e.beat_trace[b - 1].retires) --b;
  an.known = true;
  an.recovery = true;
  an.beat = b;
  an.last_beat = last;
  an.pc = (sync.get(Field::kFaddr) << 1) & AddressMask(e.xlen);
  an.byte = d.messages[mi].offset;
  return an;
}

/// One episode's count: [lo, hi] over every candidate anchor beat whose replay reproduces the
/// capture up to the Error; [1, kMaxRecordsPerBeat] when none does or there are too many.
struct EpisodeCount {
  uint64_t lo = 1, hi = kMaxRecordsPerBeat;
  std::string why;  ///< lo != hi: why
};

EpisodeCount CountEpisode(const Expected& e, const DecodedStream& d, const DropAnchor& an,
                          uint64_t end_beat, uint64_t byte_end) {
  EpisodeCount out;
  out.why = an.why;
  if (!an.known) return out;
  if (!an.recovery) {
    const uint64_t n = ReplayToDrop(e, d, an, an.beat, end_beat, byte_end, &out.why);
    if (n > 0) out.lo = out.hi = n;
    return out;
  }
  // In a loop the SYNC=7's address recurs: every occurrence between the earliest and the latest
  // feasible placement whose replay reproduces the capture is a possible recovery beat. Exact
  // when they all drop the same number of records.
  const uint64_t mask = AddressMask(e.xlen);
  const uint64_t end = std::min<uint64_t>({end_beat, e.beat_trace.size(), an.last_beat + 1});
  uint64_t lo = UINT64_MAX, hi = 0, tried = 0;
  std::string why;
  for (uint64_t k = an.beat; k < end; ++k) {
    if ((e.beat_trace[k].pc & mask) != an.pc) continue;
    if (++tried > kMaxCandidates) {
      out.why = "more than " + Num(kMaxCandidates) + " beats could be the recovery beat";
      return out;
    }
    std::string w;
    const uint64_t n = ReplayToDrop(e, d, an, k, end_beat, byte_end, &w);
    if (n == 0) {
      if (why.empty()) why = w;
      continue;
    }
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  if (hi == 0) {
    out.why = tried == 0 ? "no beat after the previous SYNC=7's placement has its address" : why;
    return out;
  }
  out.lo = lo;
  out.hi = hi;
  out.why = "the candidate recovery beats drop between " + Num(lo) + " and " + Num(hi) +
            " records";
  return out;
}

}  // namespace

DroppedRecords CountDroppedRecords(const Expected& e, const DecodedStream& d,
                                   const Alignment& a) {
  DroppedRecords r;
  r.episodes = a.error_messages.size();
  if (r.episodes == 0) return r;
  const auto all_bounded = [&r](const std::string& why) {
    r.min_records = r.episodes;
    r.max_records = r.episodes * kMaxRecordsPerBeat;
    r.first_bounded = why;
    return r;
  };
  if (e.beat_trace.empty()) return all_bounded("the reference kept no beats");
  if (e.features.repeated_history || e.features.repeat_branch) {
    return all_bounded("the repeat stage is on: the capture holds messages after it, the counter "
                       "counts records before it");
  }
  std::vector<std::pair<uint64_t, size_t>> after_loss;  // (anchor offset, segment), ascending
  for (size_t i = 0; i < a.segments.size(); ++i) {
    const AlignedSegment& s = a.segments[i];
    if (s.start == AlignedSegment::Start::kAfterLoss && s.anchor_marker != kNone) {
      after_loss.emplace_back(d.markers[s.anchor_marker].offset, i);
    }
  }
  std::sort(after_loss.begin(), after_loss.end());
  DropBeatCursor cursor(e.beat_trace);
  const auto bound = [&r, &d](size_t mi, const std::string& why) {
    if (r.first_bounded.empty()) {
      r.first_bounded = "Error at byte " + Num(d.messages[mi].offset) + ": " + why;
    }
  };
  size_t ei = 0;
  const std::vector<size_t>& errors = a.error_messages;
  for (size_t w = 0; w < a.windows.size() && w < e.windows.size(); ++w) {
    const StreamWindow& sw = a.windows[w];
    while (ei < errors.size() && errors[ei] < sw.first_message) {
      r.min_records += 1;
      r.max_records += kMaxRecordsPerBeat;
      bound(errors[ei++], "no window");
    }
    DropAnchor an = OpenDropAnchor(d, sw, e.windows[w]);
    for (; ei < errors.size() && errors[ei] < sw.end_message; ++ei) {
      const size_t mi = errors[ei];
      const EpisodeCount n = CountEpisode(e, d, an, e.windows[w].end_beat, d.messages[mi].offset);
      r.min_records += n.lo;
      r.max_records += n.hi;
      if (n.lo == n.hi) {
        ++r.exact_episodes;
      } else {
        bound(mi, n.why);
      }
      an = RecoveryDropAnchor(e, d, a, mi, after_loss, &cursor);
    }
  }
  if (ei < errors.size()) bound(errors[ei], "its stream window pairs with no configured window");
  for (; ei < errors.size(); ++ei) {
    r.min_records += 1;
    r.max_records += kMaxRecordsPerBeat;
  }
  return r;
}

}  // namespace ctte::oracle
