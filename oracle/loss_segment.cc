// One segment against the reference encoder replayed from its anchor (oracle/loss_segment.h).
// A replay is a function of the beats it reads (the encoder starts from the same clean state at
// each candidate), so a loop's candidate recovery beats share a replay when their beats agree.
#include "oracle/loss_segment.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "oracle/judge_util.h"

namespace ctte::oracle::internal {
namespace {

using judge::Num;

/// Replays per episode at most: candidate recovery beats whose beats differ from the previous
/// replayed one's (a loop's candidates share one replay, CountEpisode).
constexpr uint64_t kMaxReplays = 4096;

/// Candidate recovery beats an episode's count is taken over at most. Past that the placement
/// is ambiguous across a loop: the count is bounded and the segment needs one candidate that
/// reproduces it (scanning thousands of a tight loop's occurrences per episode, thousands of
/// episodes a run, cost seconds a run and told nothing new).
constexpr uint64_t kMaxCountedCandidates = 4096;

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
/// The earlier replay a candidate at beat `k` ends as: one whose beats equal k's over every beat
/// it read (a replay is a function of the beats it reads), or null.
const Replay* SameReplay(const std::vector<TraceBeat>& beats,
                         const std::vector<std::pair<uint64_t, Replay>>& seen, uint64_t k,
                         uint64_t end_beat) {
  for (const auto& [p, pr] : seen) {
    if (k + pr.beats_read <= end_beat &&
        std::equal(beats.begin() + static_cast<std::ptrdiff_t>(k),
                   beats.begin() + static_cast<std::ptrdiff_t>(k + pr.beats_read),
                   beats.begin() + static_cast<std::ptrdiff_t>(p), SameBeat)) {
      return &pr;
    }
  }
  return nullptr;
}

}  // namespace

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
  const auto first = std::lower_bound(at.begin(), at.end(), an.beat);
  const uint64_t candidates =
      static_cast<uint64_t>(std::lower_bound(first, at.end(), end) - first);
  const bool counted = se.to_end || candidates <= kMaxCountedCandidates;
  for (auto it = first; it != at.end() && *it < end; ++it) {
    const uint64_t k = *it;
    ++tried;
    const Replay* same = SameReplay(beats, seen, k, end_beat);
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
    if (!counted) {
      out.why = "the SYNC=7's placement is ambiguous over " + Num(candidates) +
                " candidate beats (more than " + Num(kMaxCountedCandidates) + ")";
      return out;  // reproduced; the count stays bounded
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
      // One that ends as an earlier candidate did not reproduce it either.
      if (SameReplay(beats, seen, k, end_beat) != nullptr) continue;
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

}  // namespace ctte::oracle::internal
