// Judges over the run as a whole: counter consistency, liveness, determinism, window semantics,
// flush completeness; and JudgeRun(), which aligns once and runs all eight.
#include <algorithm>
#include <tuple>

#include "oracle/loss_replay.h"
#include "oracle/judge_util.h"
#include "oracle/judges.h"

namespace ctte::oracle {

using judge::Failures;
using judge::Num;
using judge::PcText;

uint64_t ReadyStallBound(uint64_t fabric_hz, uint64_t sink_hz) {
  const uint64_t ratio = fabric_hz == 0 ? 1 : (sink_hz + fabric_hz - 1) / fabric_hz;
  return 64 + 16 * std::max<uint64_t>(ratio, 1);
}

Verdict JudgeCounterConsistency(const Expected& e, const Observed& o, const Alignment& a) {
  return JudgeCounterConsistency(e, o, a, ReplayLosses(e, o.stream, a));
}

Verdict JudgeCounterConsistency(const Expected& e, const Observed& o, const Alignment& a,
                                const LossReplay& lr) {
  const DecodedStream& d = o.stream;
  const CaptureFacts& c = o.capture;
  Failures f(VerdictCode::kCounterConsistency);
  if (c.ring_wrapped) {
    return f.Finish(Outcome::kNotApplicable,
                    "the capture ring wrapped: the capture is not the whole stream (run invalid)");
  }
  const uint32_t size32 = static_cast<uint32_t>(d.bytes.size());
  if (c.bytes != size32 || c.bytes_received != d.bytes.size()) {
    f.Add("byte_count", "ctteByteCount " + Num(c.bytes) + ", sink received " +
                            Num(c.bytes_received) + ", capture holds " + Num(d.bytes.size()) +
                            " bytes");
  }
  if (c.messages != static_cast<uint32_t>(d.framed_messages)) {
    f.Add("message_count", "ctteMsgCount " + Num(c.messages) + ", the capture frames " +
                               Num(d.framed_messages) + " messages");
  }
  const uint64_t errors = a.error_messages.size();
  if (c.overflow_episodes != errors) {
    f.Add("overflow_count", "ctteOverflowEpisodes " + Num(c.overflow_episodes) +
                                ", Error messages in the capture " + Num(errors));
  }
  if (c.records_dropped < c.overflow_episodes ||
      (c.records_dropped == 0) != (c.overflow_episodes == 0)) {
    f.Add("dropped_count", "ctteRecordsDropped " + Num(c.records_dropped) + " with " +
                               Num(c.overflow_episodes) +
                               " overflow episodes (each episode drops at least one record)");
  }
  // trTeInstStallOrOverflow (trTeControl bit 12) is set by a loss episode and cleared only by
  // software (RW1C) or a new Enable: after the run it reads 1 exactly when an episode counted.
  if (((c.control & ::ctte::reg::kStallOrOverflow) != 0) != (c.overflow_episodes != 0)) {
    f.Add("overflow_flag", "trTeInstStallOrOverflow reads " +
                               Num((c.control & ::ctte::reg::kStallOrOverflow) != 0 ? 1 : 0) +
                               " with ctteOverflowEpisodes " + Num(c.overflow_episodes));
  }
  // The mode and sync policy the run was judged under are what trTeControl reads back.
  {
    const uint8_t sync_mode = e.sync_mode == 2 ? 0 : e.sync_mode;  // cycles legalizes to off
    const uint8_t sync_max = sync_mode == 0 ? 0 : e.encoder.sync_max;  // unused when off
    const uint32_t mask = ::ctte::reg::Control(0xff, 0xff, sync_mode == 0 ? 0 : 0xff);
    const uint32_t want = ::ctte::reg::Control(static_cast<uint8_t>(e.mode), sync_mode, sync_max);
    if ((c.control & mask) != want) {
      f.Add("control_readback", "trTeControl reads " + HexShort(c.control) +
                                    " after the run; the run was judged as InstMode " +
                                    Num(static_cast<uint8_t>(e.mode)) + ", InstSyncMode " +
                                    Num(sync_mode) + ", InstSyncMax " + Num(e.encoder.sync_max));
    }
  }
  // Records dropped: per episode the records of the dropped beat, found by replaying the
  // reference encoder from the episode's anchor (oracle/dropped_records.h); exact where the
  // replay finds the beat, else 1 to kMaxRecordsPerBeat for that episode.
  const DroppedRecords& dr = lr.dropped;
  if (dr.exact() && c.records_dropped != dr.min()) {
    f.Add("dropped_exact", "ctteRecordsDropped " + Num(c.records_dropped) +
                               ", the dropped beats of the " + Num(dr.episodes) +
                               " episodes form " + Num(dr.min()) +
                               " records (reference encoder replayed from each anchor)");
  } else if (!dr.exact() && (c.records_dropped < dr.min() || c.records_dropped > dr.max())) {
    f.Add("dropped_bound", "ctteRecordsDropped " + Num(c.records_dropped) + ", outside [" +
                               Num(dr.min()) + ", " + Num(dr.max()) + "]: " +
                               Num(dr.exact_episodes) + " of " + Num(dr.episodes) +
                               " episodes exact, the others bounded (first: " + dr.first_bounded +
                               ")");
  }
  // Half-words: the board counts every beat seen while the window was open. A window that
  // re-opens while the previous close still waits for queue room opens late (encoder contract
  // section 5); when its SYNC=5 was dropped too, how late is unknowable, so that window only
  // bounds the count (between what was reconstructed in it and its configured length).
  uint64_t seen_lo = 0, seen_hi = 0, verified = 0, lost = 0;
  for (size_t w = 0; w < e.windows.size(); ++w) {
    const ExpectedWindow& x = e.windows[w];
    const StreamWindow* sw = w < a.windows.size() ? &a.windows[w] : nullptr;
    const uint64_t late = sw != nullptr ? sw->late_open : 0;
    uint64_t full = 0, head = 0, in_window = 0;
    for (uint64_t i = x.begin; i < x.end; ++i) full += e.halfwords[i];
    for (uint64_t i = x.begin; i < x.begin + late && i < x.end; ++i) head += e.halfwords[i];
    for (const AlignedSegment& s : a.segments) {
      if (s.window != w || !s.placed) continue;
      for (uint64_t i = s.ref_begin; i < s.ref_begin + s.matched; ++i) in_window += e.halfwords[i];
    }
    verified += in_window;
    const bool uncertain = x.after_pause && sw != nullptr &&
                           d.messages[sw->first_message].type() == Tcode::kError;
    seen_lo += uncertain ? in_window : full - head;
    seen_hi += full - head;
  }
  for (const AlignedGap& g : a.gaps) {
    if (!g.announced) continue;
    for (uint64_t i = g.ref_begin; i < g.ref_end; ++i) lost += e.halfwords[i];
  }
  const uint64_t hw = c.halfwords_retired;
  const bool wraps = seen_hi > UINT32_MAX;
  if (!wraps && (hw < seen_lo || hw > seen_hi)) {
    f.Add("halfword_count", "ctteHalfwordsRetired " + Num(hw) + ", the reference retired " +
                                (seen_lo == seen_hi ? Num(seen_hi)
                                                    : "between " + Num(seen_lo) + " and " +
                                                          Num(seen_hi)) +
                                " half-words inside the trace windows");
  }
  if (verified + lost > seen_hi) {
    f.Add("halfword_sum", "reconstructed " + Num(verified) + " + announced lost " + Num(lost) +
                              " half-words exceed the " + Num(seen_hi) + " retired in the windows");
  }
  Verdict v = f.Finish(Outcome::kPass,
                       "messages " + Num(c.messages) + ", bytes " + Num(c.bytes) +
                           ", overflow episodes " + Num(c.overflow_episodes) +
                           " = Error messages; half-words retired " + Num(hw) +
                           (seen_lo == seen_hi ? " = the reference's " + Num(seen_hi)
                                               : " within the reference's [" + Num(seen_lo) +
                                                     ", " + Num(seen_hi) + "] (late re-open)") +
                           "; reconstructed " + Num(verified) + " + announced lost " + Num(lost) +
                           "; records dropped " + Num(c.records_dropped) +
                           (dr.exact() ? " = the dropped beats' " + Num(dr.min())
                                       : " within [" + Num(dr.min()) + ", " + Num(dr.max()) +
                                             "] (" + Num(dr.exact_episodes) + " of " +
                                             Num(dr.episodes) + " episodes exact; first "
                                             "bounded: " + dr.first_bounded + ")"));
  v.metrics = {{"halfwords_retired", static_cast<double>(c.halfwords_retired)},
               {"halfwords_reconstructed", static_cast<double>(verified)},
               {"halfwords_lost", static_cast<double>(lost)},
               {"records_dropped", static_cast<double>(c.records_dropped)},
               {"records_dropped_min", static_cast<double>(dr.min())},
               {"records_dropped_max", static_cast<double>(dr.max())},
               {"episodes_dropped_exact", static_cast<double>(dr.exact_episodes)}};
  return v;
}

Verdict JudgeLiveness(const Expected& e, const Observed& o, const Alignment& a) {
  (void)a;
  const CaptureFacts& c = o.capture;
  Failures f(VerdictCode::kLiveness);
  // Same reason; a fatal stop must also have the same cause.
  const bool same_stop = ParseCoreStop(c.core_stop) == e.stop_reason &&
                         (e.stop_reason != StopReason::kFatal || c.core_stop == e.core_stop);
  if (c.beats != e.beats || c.retired != e.retired || !same_stop) {
    f.Add("core_incomplete", "the board's core presented " + Num(c.beats) + " beats, " +
                                 Num(c.retired) + " retiring (" + c.core_stop +
                                 "), the reference " + Num(e.beats) + ", " + Num(e.retired) +
                                 " retiring (" + e.core_stop + ")");
  }
  if (e.stopped && !(c.drained && c.te_empty)) {
    f.Add("no_drain", "trTeEmpty=" + Num(c.te_empty ? 1 : 0) + " after " +
                          Num(c.drain_sink_cycles) + " sink cycles of drain (budget " +
                          Num(c.drain_budget_sink_cycles) + "): the encoder did not drain");
  }
  const uint64_t bound = ReadyStallBound(c.fabric_hz, c.sink_hz);
  if (!c.max_ready_stall_sink_cycles.has_value()) {
    f.Add("stall_unmeasured",
          "the board does not report how long the output stalled while the sink was ready");
  } else if (*c.max_ready_stall_sink_cycles > bound) {
    f.Add("output_stall", "the output offered no byte for " +
                              Num(*c.max_ready_stall_sink_cycles) +
                              " consecutive sink cycles while the sink was ready and trTeEmpty=0 "
                              "(bound " + Num(bound) + ")");
  }
  Verdict v = f.Finish(Outcome::kPass,
                       "core ran " + Num(c.beats) + " beats (" + c.core_stop + "); drained in " +
                           Num(c.drain_sink_cycles) + " sink cycles; longest ready stall " +
                           Num(c.max_ready_stall_sink_cycles.value_or(0)) + " <= " + Num(bound));
  v.metrics = {{"drain_sink_cycles", static_cast<double>(c.drain_sink_cycles)},
               {"max_ready_stall_sink_cycles",
                static_cast<double>(c.max_ready_stall_sink_cycles.value_or(0))},
               {"ready_stall_bound", static_cast<double>(bound)}};
  return v;
}

Verdict JudgeDeterminism(const Expected& e, const Observed& o, const Alignment& a) {
  (void)e;
  Failures f(VerdictCode::kDeterminism);
  const DecodedStream* twin = o.twin_stream();
  if (twin == nullptr) {
    return f.Finish(Outcome::kNotApplicable, "no twin run (not a determinism pair)");
  }
  const DecodedStream& x = o.stream;
  const DecodedStream& y = *twin;
  // The twin has no alignment, so its Error messages are looked for in its message list (last:
  // the conjunction is the same in any order, and the counters and the run's own Error index
  // usually decide it without that walk).
  const auto lossy = [](const DecodedStream& s) {
    return std::any_of(s.messages.begin(), s.messages.end(),
                       [](const Message& m) { return m.type() == Tcode::kError; });
  };
  const bool drop_free = o.capture.overflow_episodes == 0 &&
                         (!o.twin_capture || o.twin_capture->overflow_episodes == 0) &&
                         a.error_messages.empty() && (&y == &x || !lossy(y));
  std::string how;
  if (drop_free) {
    const size_t n = std::min(x.bytes.size(), y.bytes.size());
    size_t i = 0;
    while (i < n && x.bytes[i] == y.bytes[i]) ++i;
    if (i < n || x.bytes.size() != y.bytes.size()) {
      f.Add("bytes_differ",
            "byte " + Num(i) + ": run " + (i < x.bytes.size() ? HexShort(x.bytes[i]) : "(end)") +
                ", twin " + (i < y.bytes.size() ? HexShort(y.bytes[i]) : "(end)") + " (" +
                Num(x.bytes.size()) + " and " + Num(y.bytes.size()) + " bytes, drop-free)",
            i, i + 1);
    }
    how = "byte-identical (" + Num(x.bytes.size()) + " bytes, drop-free)";
  } else {
    const size_t n = std::min(x.pcs.size(), y.pcs.size());
    size_t i = 0;
    while (i < n && x.pcs[i] == y.pcs[i]) ++i;
    if (i < n || x.pcs.size() != y.pcs.size()) {
      f.Add("decode_differs", "decoded PC " + Num(i) + ": run " +
                                  (i < x.pcs.size() ? HexShort(x.pcs[i]) : "(end)") + ", twin " +
                                  (i < y.pcs.size() ? HexShort(y.pcs[i]) : "(end)"));
    }
    // Markers: anchors (with their addresses), losses, correlations, errors, at the same places.
    const auto key = [](const Marker& m) {
      return std::make_tuple(static_cast<int>(m.kind), m.pc_index, m.pc, m.code, m.value);
    };
    size_t k = 0;
    const size_t nm = std::min(x.markers.size(), y.markers.size());
    while (k < nm && key(x.markers[k]) == key(y.markers[k])) ++k;
    if (k < nm || x.markers.size() != y.markers.size()) {
      f.Add("markers_differ",
            "marker " + Num(k) + ": run " +
                (k < x.markers.size() ? std::string(MarkerKindName(x.markers[k].kind)) + " at PC " +
                                            Num(x.markers[k].pc_index)
                                      : std::string("(end)")) +
                ", twin " +
                (k < y.markers.size() ? std::string(MarkerKindName(y.markers[k].kind)) + " at PC " +
                                            Num(y.markers[k].pc_index)
                                      : std::string("(end)")));
    }
    uint64_t lx = 0;
    for (const Marker& m : x.markers) lx += m.kind == Marker::Kind::kLoss ? 1 : 0;
    how = "decode-equivalent (" + Num(x.pcs.size()) + " PCs, " + Num(lx) + " losses)";
  }
  return f.Finish(Outcome::kPass, "twin " + how);
}

Verdict JudgeWindowSemantics(const Expected& e, const Observed& o, const Alignment& a) {
  const DecodedStream& d = o.stream;
  Failures f(VerdictCode::kWindowSemantics);
  for (size_t k = 0; k < a.windows.size(); ++k) {
    const StreamWindow& w = a.windows[k];
    const Message& first = d.messages[w.first_message];
    if (k >= e.windows.size()) {
      f.Add("message_outside_window",
            "byte " + Num(first.offset) + ": " + first.ToString() + " after the correlation that "
            "closed the last of the " + Num(e.windows.size()) + " configured windows",
            first.offset, first.offset + first.size);
      continue;
    }
    const ExpectedWindow& x = e.windows[k];
    const bool opens = first.type() == Tcode::kError ||
                       (first.type() == Tcode::kProgTraceSync &&
                        first.get(Field::kSync) == kSyncTraceEnable) ||
                       (!x.has_beats && first.type() == Tcode::kProgTraceCorrelation);
    if (!opens) {
      f.Add(k == 0 ? "no_open_anchor" : "message_outside_window",
            "byte " + Num(first.offset) + ": window " + Num(k) + " starts with " +
                first.ToString() + ", not ProgTraceSync SYNC=5" +
                (k > 0 ? " (traced while paused, after the correlation closing window " +
                             Num(k - 1) + ")" : std::string()),
            first.offset, first.offset + first.size);
    } else if (first.type() == Tcode::kProgTraceSync) {
      const uint64_t faddr = first.get(Field::kFaddr) << 1;
      if (faddr != x.open_pc && !(x.after_pause && w.late_open > 0)) {
        const uint64_t idx = x.begin;
        f.Add("open_address", "byte " + Num(first.offset) + ": window " + Num(k) +
                                  " opens at F-ADDR " + HexShort(faddr) + ", reference first beat " +
                                  PcText(e, x.open_pc) + " (retirement index " + Num(idx) + ")",
              first.offset, first.offset + first.size, &idx);
      }
    }
    // The SYNC=5 messages of this window after its first (Alignment::enable_sync_messages).
    const auto& syncs = a.enable_sync_messages;
    for (auto it = std::upper_bound(syncs.begin(), syncs.end(), w.first_message);
         it != syncs.end() && *it < w.end_message; ++it) {
      const size_t m = *it;
      const Message& msg = d.messages[m];
      const bool after_error = d.messages[m - 1].type() == Tcode::kError;
      if (!after_error) {
        f.Add("enable_sync_inside_window", "byte " + Num(msg.offset) + ": " + msg.ToString() +
                                               " inside open window " + Num(k),
              msg.offset, msg.offset + msg.size);
      }
    }
    if (!w.closed && e.stopped) {
      f.Add("window_not_closed", "window " + Num(k) + " (from byte " + Num(first.offset) +
                                     ") ends without a ProgTraceCorrelation",
            first.offset, d.bytes.size());
    }
    const uint64_t decoded = w.pc_end - w.pc_begin, allowed = x.end - x.begin;
    if (decoded > allowed) {
      f.Add("traced_outside_window", "window " + Num(k) + ": " + Num(decoded) +
                                         " instructions reconstructed, the window holds " +
                                         Num(allowed));
    }
  }
  for (size_t k = a.windows.size(); k < e.windows.size(); ++k) {
    if (e.windows[k].has_beats || e.stopped) {
      f.Add("window_missing", "configured window " + Num(k) + " (retirement indices " +
                                  Num(e.windows[k].begin) + ".." + Num(e.windows[k].end) +
                                  ") has no trace in the stream");
    }
  }
  if (e.windows.empty() && d.messages.empty()) {
    return f.Finish(Outcome::kNotApplicable, "no window opened and the stream is empty");
  }
  uint64_t late = 0;
  for (const StreamWindow& w : a.windows) late += w.late_open;
  Verdict v = f.Finish(Outcome::kPass,
                       Num(e.windows.size()) + " window(s): each opens with SYNC=5 at its first "
                       "beat (or an announced loss) and closes with a correlation; nothing traced "
                       "outside" + (late > 0 ? "; opened late by " + Num(late) +
                                                   " instructions (close still queued)" : ""));
  v.metrics = {{"windows", static_cast<double>(e.windows.size())},
               {"late_open_instructions", static_cast<double>(late)}};
  return v;
}

Verdict JudgeFlushCompleteness(const Expected& e, const Observed& o, const Alignment& a) {
  const DecodedStream& d = o.stream;
  Failures f(VerdictCode::kFlushCompleteness);
  if (!e.stopped) return f.Finish(Outcome::kNotApplicable, "the run was not stopped");
  if (!o.capture.te_empty) {
    f.Add("te_empty_zero", "trTeEmpty reads 0 after the stop and drain");
  }
  if (!e.windows.empty()) {
    if (d.messages.empty() || d.messages.back().type() != Tcode::kProgTraceCorrelation) {
      const uint64_t off = d.messages.empty() ? 0 : d.messages.back().offset;
      f.Add("no_final_correlation",
            d.messages.empty() ? std::string("the stream is empty")
                               : "the stream ends with " + d.messages.back().ToString() +
                                     " at byte " + Num(off) + ", not a ProgTraceCorrelation",
            off, d.bytes.size());
    }
  }
  for (const AlignedGap& g : a.gaps) {
    if (g.ref_end != e.windows[g.window].end || g.announced) continue;
    const uint64_t idx = g.ref_begin;
    f.Add("tail_missing", "window " + Num(g.window) + ": the last " + Num(g.ref_end - g.ref_begin) +
                              " instructions before the close (indices " + Num(g.ref_begin) +
                              ".." + Num(g.ref_end - 1) + ", first " + PcText(e, e.pcs[idx]) +
                              ") are not in the stream and no loss was announced",
          0, 0, &idx);
  }
  // The status the stop leaves (docs/encoder-behaviour.md sections 5 and 9): once drained,
  // ctteStatus reads Empty (as trTeControl does), no loss pending, the window closed and no close
  // waiting, and trTeEnable reads 0.
  const CaptureFacts& c = o.capture;
  if (c.drained) {
    const uint32_t want = ::ctte::reg::kStatusEmpty;
    const uint32_t got = c.status & (::ctte::reg::kStatusEmpty | ::ctte::reg::kStatusLost |
                                     ::ctte::reg::kStatusWindowOpen | ::ctte::reg::kStatusCloseWaiting);
    const bool te_empty = (c.control & ::ctte::reg::kEmpty) != 0;
    if (got != want || te_empty != c.te_empty || (c.control & ::ctte::reg::kEnable) != 0) {
      f.Add("status_after_stop",
            "after the stop and drain ctteStatus reads " + HexShort(c.status) +
                " (Empty " + Num((got & ::ctte::reg::kStatusEmpty) != 0 ? 1 : 0) + ", Lost " +
                Num((got & ::ctte::reg::kStatusLost) != 0 ? 1 : 0) + ", WindowOpen " +
                Num((got & ::ctte::reg::kStatusWindowOpen) != 0 ? 1 : 0) + ", CloseWaiting " +
                Num((got & ::ctte::reg::kStatusCloseWaiting) != 0 ? 1 : 0) + ") and trTeControl " +
                HexShort(c.control) + " (Empty " + Num(te_empty ? 1 : 0) + ", Enable " +
                Num((c.control & ::ctte::reg::kEnable) != 0 ? 1 : 0) + "); expected Empty 1 in both, Lost 0, " +
                "WindowOpen 0, CloseWaiting 0, Enable 0");
    }
  }
  return f.Finish(Outcome::kPass, "trTeEmpty=1; the stream ends with a ProgTraceCorrelation; every "
                                  "in-window instruction up to each close is reconstructed or "
                                  "announced lost; ctteStatus after the stop reads Empty only");
}

bool Judgement::red() const {
  return std::any_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.failed(); });
}

Judgement JudgeRun(const Expected& e, const Observed& o) {
  Judgement j;
  j.alignment = Align(e, o.stream);
  const Alignment& a = j.alignment;
  std::vector<LossEpisode> episodes = FindLossEpisodes(e, o, a);  // once, for two readers
  const LossReplay replay = ReplayLosses(e, o.stream, a);         // once, for two readers
  j.verdicts = {JudgeDecodeIntegrity(e, o, a, replay), JudgeLossAccounting(e, o, a),
                JudgePostRecoveryLosslessness(e, o, a, episodes),
                JudgeCounterConsistency(e, o, a, replay),
                JudgeLiveness(e, o, a),           JudgeDeterminism(e, o, a),
                JudgeWindowSemantics(e, o, a),    JudgeFlushCompleteness(e, o, a)};
  j.metrics = ComputeRunMetrics(e, o, a, std::move(episodes));
  j.metrics.loss_coverage = replay.coverage;
  return j;
}

}  // namespace ctte::oracle
