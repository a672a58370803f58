// Judges over the stream and its alignment: decode integrity, loss accounting, post-recovery
// losslessness; loss episodes and run metrics.
//
// What and how: every judge reads the alignment (oracle/alignment.h) rather than re-deriving
// positions, so the three agree on which reference instructions a segment covers. Failures are
// collected (first one is the evidence, a few more go to the context); pass evidence states what
// was checked.
#include <algorithm>

#include "oracle/judge_util.h"
#include "oracle/judges.h"
#include "oracle/trace_stats.h"

namespace ctte::oracle {

using judge::Failures;
using judge::Num;
using judge::PcText;
using judge::RefText;

namespace {

// The byte range of segment s: from its anchor message to its end marker.
void SegmentBytes(const DecodedStream& d, const AlignedSegment& s, uint64_t* b, uint64_t* e) {
  *b = s.anchor_marker != kNone ? d.markers[s.anchor_marker].offset : 0;
  *e = s.end_marker != kNone ? d.markers[s.end_marker].offset : d.bytes.size();
  if (*e < *b) *e = *b;
}

// Evidence for a segment that does not match the reference.
void AddMismatch(const Expected& e, const DecodedStream& d, const AlignedSegment& s,
                 const char* rule, Failures* f) {
  uint64_t b = 0, end = 0;
  SegmentBytes(d, s, &b, &end);
  const uint64_t dec_index = s.dec_begin + s.matched;
  if (!s.placed) {
    f->Add(rule,
           "segment of " + Num(s.length()) + " PCs anchored at byte " + Num(b) + " (first PC " +
               PcText(e, d.pcs[s.dec_begin]) + ") matches no position of window " +
               Num(s.window) + " in the reference",
           b, end);
    return;
  }
  const uint64_t ref_index = s.ref_begin + s.matched;
  f->Add(rule,
         "index " + Num(ref_index) + ": decoded " + HexShort(d.pcs[dec_index]) + ", " +
             RefText(e, ref_index) + " (decoded PC " + Num(dec_index) + ", segment anchored at byte " +
             Num(b) + ", " + Num(s.matched) + " PCs matched before)",
         b, end, &ref_index);
}

}  // namespace

Verdict JudgeDecodeIntegrity(const Expected& e, const Observed& o, const Alignment& a) {
  return JudgeDecodeIntegrity(e, o, a, ReplayLosses(e, o.stream, a));
}

Verdict JudgeDecodeIntegrity(const Expected& e, const Observed& o, const Alignment& a,
                             const LossReplay& replay) {
  const DecodedStream& d = o.stream;
  Failures f(VerdictCode::kDecodeIntegrity);
  // Mismatches first: they name both sides (a decoder error usually follows one).
  for (const AlignedSegment& s : a.segments) {
    if (s.window >= e.windows.size()) continue;  // window semantics reports extra windows
    if (s.diverged()) AddMismatch(e, d, s, "pc_mismatch", &f);
  }
  for (const StreamProblem& p : d.problems) {
    f.Add(p.skipped_message ? "unknown_message" : "stream_corrupt",
          "byte " + Num(p.offset) + ": " + Num(p.bytes) + " bytes: " + p.reason, p.offset,
          p.offset + p.bytes);
  }
  for (const Marker& m : d.markers) {
    const bool from_reader = std::any_of(d.problems.begin(), d.problems.end(), [&](const StreamProblem& p) {
      return p.offset == m.offset && p.reason == m.reason;
    });
    if (m.kind == Marker::Kind::kDecodeError && !from_reader) {
      f.Add("decoder_error", "byte " + Num(m.offset) + ": " + m.reason, m.offset, m.offset);
    }
  }
  const bool drop_free = a.error_messages.empty() && o.capture.overflow_episodes == 0 &&
                         !o.capture.ring_wrapped;
  const std::vector<uint8_t>& ref = e.reference_stream;
  bool identical = false;
  if (drop_free) {
    const size_t n = std::min(ref.size(), d.bytes.size());
    size_t i = 0;
    while (i < n && ref[i] == d.bytes[i]) ++i;
    identical = i == n && ref.size() == d.bytes.size();
    if (!identical) {
      std::string msg = "byte " + Num(i) + ": captured ";
      msg += i < d.bytes.size() ? HexShort(d.bytes[i]) : std::string("(end of stream)");
      msg += ", reference encoder ";
      msg += i < ref.size() ? HexShort(ref[i]) : std::string("(end of stream)");
      msg += " (drop-free run: " + Num(d.bytes.size()) + " bytes captured, " + Num(ref.size()) +
             " expected)";
      f.Add("reference_bytes", msg, i, i + 1);
    }
  }
  // A lossy stream, segment by segment: from each anchor to the next Error (or the window's
  // end) the bytes must be the reference encoder's replayed from that anchor.
  const ReplayedSegments& sb = replay.segments;
  const bool segments_judged = !drop_free && !o.capture.ring_wrapped && sb.segments > 0;
  if (segments_judged && sb.differing > 0) {
    f.Add("segment_bytes",
          sb.first_differing + " (" + Num(sb.differing) + " of " + Num(sb.segments) +
              " segments between losses differ from the reference encoder replayed from their "
              "anchor)",
          sb.first_differing_byte, sb.first_differing_byte + 1);
  }
  if (d.bytes.empty() && e.InWindowInstructions() == 0 && e.windows.empty()) {
    return f.Finish(Outcome::kNotApplicable, "no window opened and the stream is empty");
  }
  std::string ok = Num(d.messages.size()) + " messages parse; " + Num(a.verified_pcs) +
                   " decoded PCs equal the reference in " + Num(a.segments.size()) + " segments";
  if (identical) {
    ok += "; stream identical to the reference encoder (" + Num(ref.size()) + " bytes)";
  } else if (segments_judged) {
    ok += "; loss announced: " + Num(sb.equal) + " of " + Num(sb.segments) +
          " segments between losses equal the reference encoder replayed from their anchor, "
          "byte for byte";
    if (sb.not_compared > 0) {
      ok += " (" + Num(sb.not_compared) + " not compared; first: " + sb.first_not_compared + ")";
    }
  } else {
    ok += "; loss announced, so no byte comparison with the reference encoder";
  }
  Verdict v = f.Finish(Outcome::kPass, ok);
  v.metrics = {{"verified_pcs", static_cast<double>(a.verified_pcs)},
               {"segments", static_cast<double>(a.segments.size())},
               {"reference_bytes_identical", identical ? 1.0 : 0.0}};
  if (segments_judged) {
    v.metrics.push_back({"segments_bytes_equal", static_cast<double>(sb.equal)});
    v.metrics.push_back({"segments_bytes_not_compared", static_cast<double>(sb.not_compared)});
  }
  if (!d.pcs.empty()) {
    v.metrics.push_back({"payload_bits_per_instruction",
                         PayloadBitsPerInstruction(d.bytes.size(), d.idle_bytes, d.pcs.size())});
    v.metrics.push_back(
        {"wire_bits_per_instruction", WireBitsPerInstruction(d.bytes.size(), d.pcs.size())});
  }
  return v;
}

Verdict JudgeLossAccounting(const Expected& e, const Observed& o, const Alignment& a) {
  const DecodedStream& d = o.stream;
  Failures f(VerdictCode::kLossAccounting);
  uint64_t announced = 0, silent = 0;
  for (const AlignedGap& g : a.gaps) {
    const uint64_t n = g.ref_end - g.ref_begin;
    if (g.announced) {
      announced += n;
      continue;
    }
    silent += n;
    const uint64_t first = g.ref_begin;
    f.Add("silent_loss",
          "window " + Num(g.window) + ": " + Num(n) + " reference instructions (indices " +
              Num(g.ref_begin) + ".." + Num(g.ref_end - 1) + ", first " +
              PcText(e, e.pcs[g.ref_begin]) + ") are missing from the reconstruction without an Error" +
              (g.unexplained ? " (a decoder error or mismatch lies next to them)" : ""),
          0, 0, &first);
  }
  const uint64_t errors = a.error_messages.size();
  for (const size_t i : a.error_messages) {
    const Message& m = d.messages[i];
    if (m.get(Field::kEtype) != 0 || (m.get(Field::kEcode) & kEcodeProgramTraceLost) == 0) {
      f.Add("error_code", "byte " + Num(m.offset) + ": " + m.ToString() +
                              " does not announce lost program-trace messages (ETYPE 0, ECODE bit 2)",
            m.offset, m.offset + m.size);
    }
  }
  const uint64_t episodes = o.capture.overflow_episodes;
  if (errors > episodes) {
    f.Add("phantom_loss", Num(errors) + " Error messages in the stream, the board counted " +
                              Num(episodes) + " overflow episodes");
  } else if (errors < episodes) {
    f.Add("unannounced_episode", "the board counted " + Num(episodes) +
                                     " overflow episodes, the stream announces " + Num(errors));
  }
  Verdict v = f.Finish(Outcome::kPass,
                       Num(errors) + " announced losses = " + Num(episodes) +
                           " counted episodes; " + Num(announced) +
                           " instructions missing, all covered by an Error; no silent loss");
  v.metrics = {{"announced_lost_instructions", static_cast<double>(announced)},
               {"silent_lost_instructions", static_cast<double>(silent)},
               {"errors", static_cast<double>(errors)},
               {"overflow_episodes", static_cast<double>(episodes)}};
  if (errors > 0) {
    v.metrics.push_back({"instructions_missing_per_announcement",
                         static_cast<double>(announced) / static_cast<double>(errors)});
  }
  return v;
}

std::vector<LossEpisode> FindLossEpisodes(const Expected& e, const Observed& o,
                                          const Alignment& a) {
  (void)e;
  const DecodedStream& d = o.stream;
  std::vector<LossEpisode> out;
  out.reserve(a.error_messages.size());
  for (const size_t i : a.error_messages) {
    const Message& m = d.messages[i];
    LossEpisode ep;
    ep.error_offset = m.offset;
    ep.error_message = i;
    for (size_t j = i + 1; j < d.messages.size(); ++j) {
      const Message& n = d.messages[j];
      if (n.type() == Tcode::kProgTraceCorrelation) {
        ep.closed_window = true;
        ep.recovery_messages = j - i;
        ep.recovery_bytes = n.offset + n.size - m.offset;
        break;
      }
      if (n.is_sync()) {
        ep.recovered = true;
        ep.anchor_offset = n.offset;
        ep.anchor_sync = static_cast<uint8_t>(n.get(Field::kSync));
        ep.recovery_messages = j - i;
        ep.recovery_bytes = n.offset + n.size - m.offset;
        break;
      }
    }
    out.push_back(ep);
  }
  // The gap each Error announced (by the loss marker at the Error's offset).
  for (const AlignedGap& g : a.gaps) {
    if (!g.announced || g.loss_marker == kNone) continue;
    const uint64_t off = d.markers[g.loss_marker].offset;
    // Episodes are in message order, so by increasing offset: a binary search, not a scan.
    auto it = std::lower_bound(out.begin(), out.end(), off,
                               [](const LossEpisode& ep, uint64_t at) { return ep.error_offset < at; });
    for (; it != out.end() && it->error_offset == off; ++it) {
      // An ambiguous (loop) placement fixes only the window's total, not this split.
      it->ambiguous = g.ambiguous;
      it->instructions_missing = g.ambiguous ? 0 : g.ref_end - g.ref_begin;
    }
  }
  return out;
}

Verdict JudgePostRecoveryLosslessness(const Expected& e, const Observed& o, const Alignment& a) {
  return JudgePostRecoveryLosslessness(e, o, a, FindLossEpisodes(e, o, a));
}

Verdict JudgePostRecoveryLosslessness(const Expected& e, const Observed& o, const Alignment& a,
                                      const std::vector<LossEpisode>& eps) {
  const DecodedStream& d = o.stream;
  Failures f(VerdictCode::kPostRecoveryLosslessness);
  if (eps.empty()) {
    return f.Finish(Outcome::kNotApplicable, "no loss announced: nothing to recover from");
  }
  const bool htm = e.mode == TraceMode::kHtm;
  for (const LossEpisode& ep : eps) {
    const size_t i = ep.error_message;
    const Message& err = d.messages[i];
    if (i + 1 >= d.messages.size()) {
      f.Add("no_recovery_anchor", "byte " + Num(err.offset) +
                                      ": the stream ends right after the Error (no SYNC=7 anchor)",
            err.offset, err.offset + err.size);
      continue;
    }
    const Message& n = d.messages[i + 1];
    const bool sync7 = n.type() == Tcode::kProgTraceSync && n.get(Field::kSync) == kSyncOverrunRestart;
    const bool close = n.type() == Tcode::kProgTraceCorrelation;
    if (!sync7 && !close) {
      f.Add("no_recovery_anchor",
            "byte " + Num(n.offset) + ": the message after the Error at byte " + Num(err.offset) +
                " is " + n.ToString() + ", not ProgTraceSync SYNC=7",
            err.offset, n.offset + n.size);
      continue;
    }
    if (n.get(Field::kIcnt) != 0 || (close && htm && n.get(Field::kHist) != 1)) {
      f.Add("recovery_not_clean",
            "byte " + Num(n.offset) + ": " + n.ToString() +
                " after an Error carries state (I-CNT must be 0" + (close && htm ? ", HIST 1" : "") +
                "): compression state survived the loss",
            err.offset, n.offset + n.size);
    }
  }
  uint64_t checked = 0;
  for (const AlignedSegment& s : a.segments) {
    if (s.start != AlignedSegment::Start::kAfterLoss || s.window >= e.windows.size()) continue;
    ++checked;
    if (s.diverged()) AddMismatch(e, d, s, "post_recovery_mismatch", &f);
  }
  uint64_t max_msgs = 0, max_bytes = 0, sum_bytes = 0, max_missing = 0, exact = 0;
  for (const LossEpisode& ep : eps) {
    max_msgs = std::max(max_msgs, ep.recovery_messages);
    max_bytes = std::max(max_bytes, ep.recovery_bytes);
    sum_bytes += ep.recovery_bytes;
    max_missing = std::max(max_missing, ep.instructions_missing);
    exact += ep.ambiguous ? 0 : 1;
  }
  Verdict v = f.Finish(Outcome::kPass,
                       Num(eps.size()) + " losses, each followed by a clean SYNC=7 anchor (or the "
                       "closing correlation); " + Num(checked) +
                       " recovered segments equal contiguous runs of the reference; recovery "
                       "distance at most " + Num(max_msgs) + " message(s), " + Num(max_bytes) + " bytes");
  v.metrics = {{"episodes", static_cast<double>(eps.size())},
               {"recovery_messages_max", static_cast<double>(max_msgs)},
               {"recovery_bytes_max", static_cast<double>(max_bytes)},
               {"recovery_bytes_mean", static_cast<double>(sum_bytes) / static_cast<double>(eps.size())},
               {"episodes_with_exact_count", static_cast<double>(exact)},
               {"instructions_missing_max_exact", static_cast<double>(max_missing)}};
  return v;
}

RunMetrics ComputeRunMetrics(const Expected& e, const Observed& o, const Alignment& a) {
  return ComputeRunMetrics(e, o, a, FindLossEpisodes(e, o, a));
}

RunMetrics ComputeRunMetrics(const Expected& e, const Observed& o, const Alignment& a,
                             std::vector<LossEpisode> episodes) {
  RunMetrics r;
  const DecodedStream& d = o.stream;
  r.reference_instructions = e.InWindowInstructions();
  r.decoded_instructions = d.pcs.size();
  r.verified_instructions = a.verified_pcs;
  for (const AlignedGap& g : a.gaps) {
    (g.announced ? r.announced_lost_instructions : r.silent_lost_instructions) +=
        g.ref_end - g.ref_begin;
  }
  for (const StreamWindow& w : a.windows) r.late_open_instructions += w.late_open;
  r.messages = d.messages.size();
  r.stream_bytes = d.bytes.size();
  r.segments = a.segments.size();
  for (const AlignedSegment& s : a.segments) r.ambiguous_segments += s.ambiguous ? 1 : 0;
  r.payload_bits_per_instruction =
      PayloadBitsPerInstruction(r.stream_bytes, d.idle_bytes, r.decoded_instructions);
  r.wire_bits_per_instruction = WireBitsPerInstruction(r.stream_bytes, r.decoded_instructions);
  r.messages_per_kilo_instruction =
      r.decoded_instructions == 0 ? 0.0
                                  : 1000.0 * static_cast<double>(r.messages) /
                                        static_cast<double>(r.decoded_instructions);
  // The reference encoder on the same beats with the same features (Section IX figures): the
  // RTL-against-reference ratio of one run. Its stream has no idles.
  const uint64_t ref_insns = e.reference_rate.instructions;
  r.reference_payload_bits_per_instruction =
      PayloadBitsPerInstruction(e.reference_stream.size(), 0, ref_insns);
  r.reference_wire_bits_per_instruction =
      WireBitsPerInstruction(e.reference_stream.size(), ref_insns);
  r.reference_messages_per_kilo_instruction =
      ref_insns == 0 ? 0.0
                     : 1000.0 * static_cast<double>(e.reference_messages) /
                           static_cast<double>(ref_insns);
  r.output_rate = e.reference_rate;
  r.reference_bytes_identical = d.bytes == e.reference_stream;
  r.ready_stall_bound = ReadyStallBound(o.capture.fabric_hz, o.capture.sink_hz);
  r.episodes = std::move(episodes);
  return r;
}

}  // namespace ctte::oracle
