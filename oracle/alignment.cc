// Alignment: see alignment.h for the rules. How: stream windows from the message list, segments
// from the markers, placement per window front to back with a lower bound (the end of the
// previous verified part), KMP for floating segments (linear in the window and the segment).
#include "oracle/alignment.h"

#include <algorithm>
#include <cstring>

namespace ctte::oracle {
namespace {

struct Search {
  bool found = false;
  uint64_t pos = 0;        ///< start of the first full match (text index)
  bool second = false;     ///< a second full match may exist (set with found)
  uint64_t best_len = 0;   ///< longest prefix of the pattern found anywhere
  uint64_t best_pos = 0;   ///< where it starts
};

// The KMP failure function of the pattern p(0) .. p(m - 1): fail[i] is the length of the longest
// proper prefix of p[0, i] that is also its suffix.
template <typename Pattern>
std::vector<uint64_t> FailureFunction(uint64_t m, const Pattern& p) {
  std::vector<uint64_t> fail(m, 0);
  for (uint64_t i = 1, k = 0; i < m; ++i) {
    while (k > 0 && p(i) != p(k)) k = fail[k - 1];
    if (p(i) == p(k)) ++k;
    fail[i] = k;
  }
  return fail;
}

// KMP: the first occurrence of pat[0, m) in text[0, n), and the longest prefix seen. It stops
// at the first full match: whether a second one exists is left to the backward pass (FindLast
// between this placement and the next segment's), so a run of many segments in one window costs
// the distance between them, not the rest of the window for each.
Search FindFirst(const uint64_t* pat, uint64_t m, const uint64_t* text, uint64_t n) {
  Search s;
  if (m == 0) {
    s.found = true;
    return s;
  }
  const std::vector<uint64_t> fail = FailureFunction(m, [pat](uint64_t k) { return pat[k]; });
  uint64_t q = 0;
  for (uint64_t t = 0; t < n; ++t) {
    while (q > 0 && text[t] != pat[q]) q = fail[q - 1];
    if (text[t] == pat[q]) ++q;
    if (q > s.best_len) {
      s.best_len = q;
      s.best_pos = t + 1 - q;
    }
    if (q == m) {
      s.found = true;
      s.pos = t + 1 - m;
      s.second = true;  // may be: FindLast decides
      return s;
    }
  }
  return s;
}

// The latest start s in [lo, hi - m] with text[s, s + m) == pat[0, m): KMP over the reversed
// pattern, scanning the text backwards from hi. Returns false when there is none.
bool FindLast(const uint64_t* pat, uint64_t m, const uint64_t* text, uint64_t lo, uint64_t hi,
              uint64_t* start) {
  if (m == 0 || hi < lo || hi - lo < m) return false;
  const auto rp = [&](uint64_t k) { return pat[m - 1 - k]; };
  const std::vector<uint64_t> fail = FailureFunction(m, rp);
  uint64_t q = 0;
  for (uint64_t t = hi; t-- > lo;) {
    while (q > 0 && text[t] != rp(q)) q = fail[q - 1];
    if (text[t] == rp(q)) ++q;
    if (q == m) {
      *start = t;
      return true;
    }
  }
  return false;
}

// Blocks of equal PCs are skipped with memcmp (vectorised by the C library); the first block
// that differs is walked PC by PC. A whole window that matches is one pass at memory speed.
uint64_t CommonPrefix(const uint64_t* a, const uint64_t* b, uint64_t n) {
  constexpr uint64_t kBlock = 256;
  uint64_t i = 0;
  while (n - i >= kBlock && std::memcmp(a + i, b + i, kBlock * sizeof(uint64_t)) == 0) {
    i += kBlock;
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

void FindWindows(const DecodedStream& d, Alignment* out) {
  const std::vector<Message>& msgs = d.messages;
  size_t first = 0;
  uint64_t byte_begin = 0;
  for (size_t i = 0; i < msgs.size(); ++i) {
    const Tcode t = msgs[i].type();
    if (t == Tcode::kError) out->error_messages.push_back(i);
    if (t == Tcode::kProgTraceSync && msgs[i].get(Field::kSync) == kSyncTraceEnable) {
      out->enable_sync_messages.push_back(i);
    }
    if (t != Tcode::kProgTraceCorrelation) continue;
    StreamWindow w;
    w.first_message = first;
    w.end_message = i + 1;
    w.closed = true;
    w.byte_begin = byte_begin;
    w.byte_end = msgs[i].offset + msgs[i].size;
    out->windows.push_back(w);
    first = i + 1;
    byte_begin = w.byte_end;
  }
  if (first < msgs.size()) {
    StreamWindow w;
    w.first_message = first;
    w.end_message = msgs.size();
    w.byte_begin = byte_begin;
    w.byte_end = UINT64_MAX;
    out->windows.push_back(w);
  } else if (!out->windows.empty()) {
    out->windows.back().byte_end = UINT64_MAX;  // trailing corruption belongs to the last
  }
  // Markers and PCs per window (markers are in stream order).
  size_t m = 0;
  uint64_t pc = 0;
  for (StreamWindow& w : out->windows) {
    w.marker_begin = m;
    w.pc_begin = pc;
    while (m < d.markers.size() && d.markers[m].offset < w.byte_end) ++m;
    w.marker_end = m;
    w.pc_end = d.pcs.size();
    if (w.closed && m > w.marker_begin &&
        d.markers[m - 1].kind == Marker::Kind::kCorrelation) {
      w.pc_end = d.markers[m - 1].pc_index;
    }
    pc = w.pc_end;
  }
}

// Cuts stream window `wi` into segments (before placement).
void FindSegments(const DecodedStream& d, const StreamWindow& w, size_t wi,
                  std::vector<AlignedSegment>* out) {
  using Start = AlignedSegment::Start;
  using End = AlignedSegment::End;
  AlignedSegment cur;
  bool open = false;
  Start next_start = Start::kWindowOpen;
  const auto close = [&](End end, size_t marker, uint64_t pc_index) {
    if (!open) return;
    cur.end = end;
    cur.end_marker = marker;
    cur.dec_end = pc_index;
    out->push_back(cur);
    open = false;
  };
  for (size_t m = w.marker_begin; m < w.marker_end; ++m) {
    const Marker& k = d.markers[m];
    switch (k.kind) {
      case Marker::Kind::kAnchor:
        if (open) break;  // a re-anchor of a known position: the segment continues
        cur = AlignedSegment{};
        cur.window = wi;
        cur.dec_begin = k.pc_index;
        cur.anchor_marker = m;
        cur.start = next_start;
        if (cur.start == Start::kWindowOpen && k.code != kSyncTraceEnable) {
          cur.start = Start::kUnexpected;
        }
        open = true;
        break;
      case Marker::Kind::kLoss:
        close(End::kLoss, m, k.pc_index);
        next_start = Start::kAfterLoss;
        break;
      case Marker::Kind::kDecodeError:
        close(End::kDecodeError, m, k.pc_index);
        next_start = Start::kAfterDecodeError;
        break;
      case Marker::Kind::kCorrelation:
        close(End::kCorrelation, m, k.pc_index);
        break;
    }
  }
  close(End::kStreamEnd, kNone, w.pc_end);
}

// Places segments [first, end) of window `wi` against configured window `ew`; may insert
// continuation segments after a divergence.
void PlaceWindow(const Expected& e, const DecodedStream& d, size_t ew, size_t first,
                 Alignment* a) {
  using Start = AlignedSegment::Start;
  using End = AlignedSegment::End;
  const ExpectedWindow& win = e.windows[ew];
  const uint64_t* ref = e.pcs.data();
  const uint64_t* dec = d.pcs.data();
  uint64_t lower = win.begin;
  std::vector<AlignedSegment>& segs = a->segments;
  for (size_t i = first; i < segs.size() && segs[i].window == segs[first].window; ++i) {
    AlignedSegment& s = segs[i];
    const uint64_t len = s.length();
    const uint64_t room = win.end > lower ? win.end - lower : 0;
    const bool last = i + 1 >= segs.size() || segs[i + 1].window != s.window;
    const Marker* anchor = s.anchor_marker == kNone ? nullptr : &d.markers[s.anchor_marker];
    bool fixed = false;
    uint64_t at = 0;
    if (s.start == Start::kWindowOpen && anchor != nullptr && anchor->pc == win.open_pc &&
        lower == win.begin) {
      fixed = true;
      at = win.begin;
    } else if (s.start == Start::kWindowOpen && win.after_pause) {
      s.late_open = true;  // placed floating below; the skipped head is not in the window
    } else if (last && s.end == End::kCorrelation && len <= room &&
               CommonPrefix(dec + s.dec_begin, ref + win.end - len, len) == len) {
      fixed = true;
      at = win.end - len;
    }
    if (fixed) {
      const uint64_t n = std::min(len, win.end > at ? win.end - at : 0);
      s.placed = true;
      s.ref_begin = at;
      s.matched = CommonPrefix(dec + s.dec_begin, ref + at, n);
    } else {
      Search f = FindFirst(dec + s.dec_begin, len, ref + lower, room);
      if (f.found) {
        s.placed = true;
        s.ref_begin = lower + f.pos;
        s.matched = len;
        s.ambiguous = f.second;
      } else if (f.best_len > 0) {
        s.placed = true;
        s.ref_begin = lower + f.best_pos;
        s.matched = f.best_len;
      }
    }
    if (s.late_open && s.placed) {
      a->windows[s.window].late_open = s.ref_begin - win.begin;
    }
    if (s.placed) lower = s.ref_begin + s.matched;
    a->verified_pcs += s.matched;
    if (!s.diverged()) continue;
    // Cut at the divergence; re-place the rest from its next anchor.
    const uint64_t cut = s.dec_begin + s.matched;
    const size_t stop = s.end_marker == kNone ? d.markers.size() : s.end_marker;
    for (size_t m = s.anchor_marker + 1; m < stop; ++m) {
      const Marker& k = d.markers[m];
      if (k.kind != Marker::Kind::kAnchor || k.pc_index < cut || k.pc_index <= s.dec_begin) {
        continue;
      }
      AlignedSegment rest = s;
      rest.dec_begin = k.pc_index;
      rest.anchor_marker = m;
      rest.start = Start::kAfterDivergence;
      rest.placed = rest.ambiguous = rest.late_open = false;
      rest.ref_begin = rest.matched = 0;
      s.end = End::kDecodeError;  // the unverified tail ends this one
      s.end_marker = kNone;
      s.dec_end = k.pc_index;
      segs.insert(segs.begin() + static_cast<std::ptrdiff_t>(i) + 1, rest);
      break;
    }
  }
  // Backward pass: the latest placement of each floating segment that still leaves room for the
  // ones after it. Where latest == earliest the placement (and so the gaps beside it) is exact.
  // A found segment ends at or before the next placed one's start (lower moved past it), so
  // [ref_begin, upper) always holds its earliest match and FindLast succeeds.
  size_t end = first;
  while (end < segs.size() && segs[end].window == segs[first].window) ++end;
  uint64_t upper = win.end;
  for (size_t i = end; i-- > first;) {
    AlignedSegment& s = segs[i];
    if (!s.placed) continue;
    uint64_t latest = s.ref_begin;
    if (s.ambiguous && !s.diverged() &&
        FindLast(dec + s.dec_begin, s.length(), ref, s.ref_begin, upper, &latest)) {
      s.ambiguous = latest != s.ref_begin;
    }
    s.ref_latest = std::max(latest, s.ref_begin);
    upper = s.ref_latest;
  }
}

// Gaps of configured window `ew` given its placed segments [first, end).
void FindGaps(const Expected& e, size_t ew, size_t first, size_t end, const StreamWindow* sw,
              Alignment* a) {
  using Start = AlignedSegment::Start;
  using End = AlignedSegment::End;
  const ExpectedWindow& win = e.windows[ew];
  uint64_t cursor = win.begin + (sw != nullptr ? sw->late_open : 0);
  // What lies between the previous verified part and the next: loss / error seen.
  bool loss = false, unexplained = false, ambiguous = false;
  size_t loss_marker = kNone;
  // A window whose stream opens with an Error (the SYNC=5 was dropped) starts announced.
  if (first < end && a->segments[first].start == Start::kAfterLoss) {
    loss = true;
  }
  const auto emit = [&](uint64_t upto) {
    if (upto > cursor) {
      AlignedGap g;
      g.window = ew;
      g.ref_begin = cursor;
      g.ref_end = upto;
      g.unexplained = unexplained;
      g.announced = loss && !unexplained;
      g.loss_marker = loss_marker;
      g.ambiguous = ambiguous;
      a->gaps.push_back(g);
    }
  };
  for (size_t i = first; i < end; ++i) {
    const AlignedSegment& s = a->segments[i];
    if (s.start == Start::kAfterLoss && loss_marker == kNone && i > first) {
      const AlignedSegment& p = a->segments[i - 1];
      if (p.end == End::kLoss) loss_marker = p.end_marker;
      loss = true;
    }
    if (s.start == Start::kAfterDecodeError || s.start == Start::kAfterDivergence ||
        s.start == Start::kUnexpected) {
      unexplained = true;
    }
    if (s.placed && s.matched > 0 && s.ref_begin >= cursor) {
      ambiguous = ambiguous || s.ambiguous;
      emit(s.ref_begin);
      cursor = s.ref_begin + s.matched;
      loss = unexplained = false;
      ambiguous = s.ambiguous;
      loss_marker = kNone;
    }
    if (s.diverged() || s.end == End::kDecodeError) unexplained = true;
    if (s.end == End::kLoss) {
      loss = true;
      if (loss_marker == kNone) loss_marker = s.end_marker;
    }
  }
  emit(win.end);
}

}  // namespace

Alignment Align(const Expected& e, const DecodedStream& d) {
  Alignment a;
  FindWindows(d, &a);
  for (size_t w = 0; w < a.windows.size(); ++w) {
    FindSegments(d, a.windows[w], w, &a.segments);
  }
  // Place window by window (placement may insert segments, so walk by index).
  size_t i = 0;
  for (size_t w = 0; w < a.windows.size(); ++w) {
    while (i < a.segments.size() && a.segments[i].window < w) ++i;
    if (w < e.windows.size() && i < a.segments.size() && a.segments[i].window == w) {
      PlaceWindow(e, d, w, i, &a);
    }
  }
  // Gaps per configured window (a configured window without a stream window is all gap).
  i = 0;
  for (size_t w = 0; w < e.windows.size(); ++w) {
    size_t first = i;
    while (first < a.segments.size() && a.segments[first].window < w) ++first;
    size_t end = first;
    while (end < a.segments.size() && a.segments[end].window == w) ++end;
    FindGaps(e, w, first, end, w < a.windows.size() ? &a.windows[w] : nullptr, &a);
    i = end;
  }
  return a;
}

}  // namespace ctte::oracle
