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
#include <unordered_map>
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
  /// Recovery: when no candidate up to last_beat reproduces the capture, the first one that
  /// does up to this beat (the window's last) is taken (its count bounded).
  uint64_t far_beat = 0;
  uint64_t byte = 0;
  std::string why;        ///< !known: why not
};

/// Replays per episode at most: candidate recovery beats whose beats differ from the previous
/// replayed one's (a loop's candidates share one replay, CountEpisode).
constexpr uint64_t kMaxReplays = 4096;

/// The reference's beats indexed for the anchors: the beat of each retirement index, and the
/// beats of each address (built once per run with a loss, on the first recovery anchor).
class BeatIndex {
 public:
  BeatIndex(const std::vector<TraceBeat>& beats, uint64_t mask) : beats_(beats), mask_(mask) {
    for (uint64_t k = 0; k < beats.size(); ++k) {
      if (beats[k].retires) beat_.push_back(k);
    }
  }
  bool Find(uint64_t target, uint64_t* beat) const {
    if (target >= beat_.size()) return false;
    *beat = beat_[target];
    return true;
  }
  /// The beats whose address is `pc` (masked to XLEN), ascending.
  const std::vector<uint64_t>& AtAddress(uint64_t pc) {
    if (!by_pc_built_) {
      for (uint64_t k = 0; k < beats_.size(); ++k) by_pc_[beats_[k].pc & mask_].push_back(k);
      by_pc_built_ = true;
    }
    static const std::vector<uint64_t> kNone;
    const auto it = by_pc_.find(pc);
    return it == by_pc_.end() ? kNone : it->second;
  }

 private:
  const std::vector<TraceBeat>& beats_;
  uint64_t mask_;
  std::vector<uint64_t> beat_;
  bool by_pc_built_ = false;
  std::unordered_map<uint64_t, std::vector<uint64_t>> by_pc_;
};

/// A message the repeat stage sends for a run it held: RepeatBranch, or ResourceFull HREPEAT.
bool IsRepeatMessage(const Message& m) {
  return m.type() == Tcode::kRepeatBranch ||
         (m.type() == Tcode::kResourceFull && m.get(Field::kRcode) == kRcodeHistRepeat);
}

bool SameBeat(const TraceBeat& x, const TraceBeat& y) {
  return x.pc == y.pc && x.insn == y.insn && x.size == y.size && x.itype == y.itype &&
         x.retires == y.retires;
}

/// How a replay ended: its count (0: it did not reproduce the capture) and the beats it read,
/// the last one included. `decided`: it ended on a beat (a differing byte, or the dropped beat
/// found); a replay that ran out of beats is not, and shares its result with no other.
struct Replay {
  uint64_t records = 0;     ///< to an Error: the dropped beat's records (0: not reproduced)
  bool equal = false;       ///< to the window's end: the capture equals the replay
  uint64_t beats_read = 0;
  bool decided = false;
  bool differs = false;     ///< a byte differs (else: the bytes end out of step, `why`)
  bool prefix = false;      ///< to an Error: every captured byte matched, ending inside a beat
  uint64_t drop_beat = 0;   ///< to an Error, reproduced: the beat whose records passed it
  ReferenceEncoder::Compression at_drop;  ///< the state that beat found (what the drop discards)
  uint64_t byte = 0;        ///< the first differing byte (capture offset)
  std::string why;          ///< not reproduced: where and how
};

/// Where the replayed segment ends: at the next Error (`byte_end`, the Error's offset), or at
/// the window's end (`to_end`: every byte up to `byte_end` and, when `closed`, the correlation
/// Close() forms after the last beat; a window the run left open is compared as a prefix).
struct SegmentEnd {
  uint64_t end_beat = 0;
  uint64_t byte_end = 0;
  bool to_end = false;
  bool closed = false;
  /// To an Error with the repeat stage on: a capture that ends inside a beat's messages, every
  /// byte matched, reproduces it (Replay::prefix).
  bool prefix_ok = false;
};

bool Reproduces(const Replay& r, const SegmentEnd& se) {
  return se.to_end ? r.equal : (r.records > 0 || (se.prefix_ok && r.prefix));
}

std::string DiffersText(const DecodedStream& d, uint64_t from, uint64_t at,
                        const std::vector<uint8_t>& out, uint64_t i) {
  return "the reference encoder replayed from beat " + Num(from) + " differs from the capture " +
         "at byte " + Num(at) + " (captured " +
         (at < d.bytes.size() ? HexShort(d.bytes[at]) : std::string("(end)")) + ", reference " +
         (i < out.size() ? HexShort(out[i]) : std::string("(end)")) + ")";
}

Replay ReplayFrom(const Expected& e, const DecodedStream& d, const DropAnchor& an,
                  uint64_t from, const SegmentEnd& se) {
  ReferenceEncoder enc(e.encoder);
  if (an.recovery) {
    enc.Recover();
  } else {
    enc.Open();
  }
  const uint64_t span = se.byte_end - an.byte;
  uint64_t checked = 0;
  const uint64_t end_beat = std::min<uint64_t>(se.end_beat, e.Beats().size());
  Replay r;
  const auto differs = [&](const std::vector<uint8_t>& out) {
    const uint64_t upto = std::min<uint64_t>(out.size(), span);
    for (; checked < upto; ++checked) {
      if (out[checked] != d.bytes[an.byte + checked]) {
        r.decided = r.differs = true;
        r.byte = an.byte + checked;
        r.why = DiffersText(d, from, r.byte, out, checked);
        return true;
      }
    }
    return false;
  };
  for (uint64_t k = from; k < end_beat; ++k) {
    const uint64_t records_before = enc.records();
    const uint64_t bytes_before = enc.bytes().size();
    const ReferenceEncoder::Compression before = enc.compression();
    enc.Beat(e.Beats()[k].ToRetired());
    r.beats_read = k - from + 1;
    const std::vector<uint8_t>& out = enc.bytes();
    if (differs(out)) return r;
    if (out.size() > span) {
      r.decided = true;
      r.drop_beat = k;
      r.at_drop = before;
      if (se.to_end) {
        r.differs = true;
        r.byte = se.byte_end;
        r.why = DiffersText(d, from, se.byte_end, out, span);
        return r;
      }
      if (bytes_before != span) {
        r.why = "the capture before the Error at byte " + Num(se.byte_end) +
                " ends inside the records of beat " + Num(k) + " (replayed from beat " +
                Num(from) + ")";
        // The repeat stage flushes what it holds when the Error reaches it, so the capture may
        // stop inside a beat's messages: equal as a prefix (every captured byte matched). The
        // stage held a run at the drop then; which beat was dropped is not known (at or before
        // this one), so it bounds no later anchor.
        r.prefix = true;
        r.drop_beat = UINT64_MAX;
        r.at_drop.held_repeat = true;
        return r;
      }
      r.records = enc.records() - records_before;
      return r;
    }
  }
  if (se.to_end) {
    if (se.closed) enc.Close();
    const std::vector<uint8_t>& out = enc.bytes();
    if (differs(out)) return r;
    if (out.size() == span || (!se.closed && out.size() > span)) {
      r.equal = true;
    } else {
      r.differs = true;
      r.byte = an.byte + std::min<uint64_t>(out.size(), span);
      r.why = DiffersText(d, from, r.byte, out, std::min<uint64_t>(out.size(), span));
    }
    return r;
  }
  r.why = "the replay from beat " + Num(from) + " forms no record the capture lacks before " +
          "the Error at byte " + Num(se.byte_end);
  return r;
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

/// The anchor after the Error at message `mi`: the beat of its SYNC=7. Its candidates are the
/// beats with the SYNC=7's address from its segment's earliest to its latest feasible placement;
/// when that segment did not place (it decoded no PC: the next Error came first), from the beat
/// after the previous episode's dropped beat (`prev_drop_beat`: the recovery comes after it) to
/// the window's last beat. Past the latest placement up to the window's last beat (`far_beat`)
/// only when none of those reproduces the capture: a segment whose last message's target is not
/// walked (an Error follows) is placed by fewer PCs than its bytes carry, so its bytes can tell
/// apart occurrences its PCs cannot.
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

/// One segment's outcome over every candidate anchor beat. To an Error: the episode's count is
/// [lo, hi] over the candidates whose replay reproduces the capture up to the Error, and
/// [1, kMaxRecordsPerBeat] when none does or there are too many. To the window's end: equal
/// when a candidate's replay equals the capture.
struct SegmentOutcome {
  uint64_t lo = 1, hi = kMaxRecordsPerBeat;
  bool compared = false;   ///< the anchor is known and the candidates were replayed
  bool equal = false;      ///< a candidate reproduces the capture byte for byte
  uint64_t byte = 0;       ///< !equal && compared: the first differing byte, when one differs
  /// To an Error, equal: the earliest dropped beat over the reproducing candidates (the next
  /// recovery beat comes after it); UINT64_MAX when unknown.
  uint64_t drop_beat = UINT64_MAX;
  /// To an Error, equal: the state the earliest reproducing candidate's dropped beat found.
  ReferenceEncoder::Compression at_drop;
  bool counted = false;    ///< at_drop is known (a reproducing candidate found the drop)
  std::string why;         ///< lo != hi, or !equal: why
};

SegmentOutcome ReplaySegment(const Expected& e, const DecodedStream& d, const DropAnchor& an,
                             const SegmentEnd& se, BeatIndex* index) {
  SegmentOutcome out;
  out.why = an.why;
  if (!an.known) return out;
  out.compared = true;
  if (!an.recovery) {
    const Replay r = ReplayFrom(e, d, an, an.beat, se);
    out.why = r.why;
    out.byte = r.byte;
    if (r.records > 0) out.lo = out.hi = r.records;
    out.equal = Reproduces(r, se);
    if (out.equal && !se.to_end) {
      out.drop_beat = r.drop_beat;
      out.at_drop = r.at_drop;
      out.counted = true;
    }
    return out;
  }
  // In a loop the SYNC=7's address recurs: every occurrence between the earliest and the latest
  // feasible placement whose replay reproduces the capture is a possible recovery beat. Exact
  // when they all drop the same number of records. A replay is a function of the beats it reads
  // (the encoder starts from the same clean state at each candidate), so a candidate whose beats
  // equal an earlier replayed candidate's over every beat that replay read ends the same way,
  // and is not replayed again: a loop's candidates cost one replay per distinct outcome.
  const std::vector<TraceBeat>& beats = e.Beats();
  const uint64_t end_beat = std::min<uint64_t>(se.end_beat, beats.size());
  const uint64_t end = std::min<uint64_t>(end_beat, an.last_beat + 1);
  uint64_t lo = UINT64_MAX, hi = 0, tried = 0, replays = 0;
  // Each distinct replay so far: its first beat and how it ended.
  std::vector<std::pair<uint64_t, Replay>> seen;
  const Replay* first_failure = nullptr;
  Replay first_failure_copy;
  const std::vector<uint64_t>& at = index->AtAddress(an.pc);
  for (auto it = std::lower_bound(at.begin(), at.end(), an.beat); it != at.end() && *it < end;
       ++it) {
    const uint64_t k = *it;
    ++tried;
    const Replay* same = nullptr;
    for (const auto& [p, pr] : seen) {
      if (k + pr.beats_read <= end_beat &&
          std::equal(beats.begin() + static_cast<std::ptrdiff_t>(k),
                     beats.begin() + static_cast<std::ptrdiff_t>(k + pr.beats_read),
                     beats.begin() + static_cast<std::ptrdiff_t>(p), SameBeat)) {
        same = &pr;
        break;
      }
    }
    Replay r;
    if (same != nullptr) {
      r = *same;
    } else {
      if (++replays > kMaxReplays) {
        out.compared = false;
        out.equal = false;
        out.lo = 1;
        out.hi = kMaxRecordsPerBeat;
        out.why = "more than " + Num(kMaxReplays) + " candidate recovery beats replay differently";
        return out;
      }
      r = ReplayFrom(e, d, an, k, se);
      if (r.decided) seen.emplace_back(k, r);
      if (first_failure == nullptr && !Reproduces(r, se)) {
        first_failure_copy = r;
        first_failure = &first_failure_copy;
      }
    }
    if (!Reproduces(r, se)) continue;
    out.equal = true;
    if (se.to_end) return out;  // one candidate reproduces the segment: nothing to count
    if (!out.counted || r.drop_beat < out.drop_beat) {
      out.drop_beat = r.drop_beat;
      out.at_drop = r.at_drop;
      out.counted = true;
    }
    if (r.records == 0) continue;
    lo = std::min(lo, r.records);
    hi = std::max(hi, r.records);
  }
  // Phase 2: no candidate in the placement's range reproduces the capture; the first one past
  // it that does places the segment by its bytes (its count bounded).
  if (!out.equal && replays <= kMaxReplays) {
    for (auto it = std::upper_bound(at.begin(), at.end(), end == 0 ? 0 : end - 1);
         it != at.end() && *it <= std::min<uint64_t>(an.far_beat, end_beat - 1); ++it) {
      const uint64_t k = *it;
      const Replay* same = nullptr;
      for (const auto& [p, pr] : seen) {
        if (k + pr.beats_read <= end_beat &&
            std::equal(beats.begin() + static_cast<std::ptrdiff_t>(k),
                       beats.begin() + static_cast<std::ptrdiff_t>(k + pr.beats_read),
                       beats.begin() + static_cast<std::ptrdiff_t>(p), SameBeat)) {
          same = &pr;
          break;
        }
      }
      if (same != nullptr) continue;  // ends as a candidate that did not reproduce it
      if (++replays > kMaxReplays) break;
      const Replay r = ReplayFrom(e, d, an, k, se);
      if (r.decided) seen.emplace_back(k, r);
      if (!Reproduces(r, se)) continue;
      out.equal = true;
      out.drop_beat = r.drop_beat;
      out.at_drop = r.at_drop;
      out.counted = !se.to_end;
      out.why = "the SYNC=7 is placed by its bytes at beat " + Num(k) +
                ", past its PCs' latest placement";
      return out;
    }
  }
  if (!out.equal) {
    if (tried == 0) {
      out.compared = false;
      out.why = "no beat after the previous SYNC=7's placement has its address";
    } else if (first_failure != nullptr) {
      out.why = first_failure->why;
      out.byte = first_failure->byte;
    }
    return out;
  }
  if (hi == 0) {
    out.why = "the capture ends inside the messages the repeat stage flushed at the Error";
    return out;
  }
  out.lo = lo;
  out.hi = hi;
  out.why = "the candidate recovery beats drop between " + Num(lo) + " and " + Num(hi) +
            " records";
  return out;
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
