// The loop of BuildExpected (oracle/run_facts.h) over any source of beats: the reference ISS
// itself (BuildExpected) or a recorded trace of it (BuildExpectedFromTrace,
// oracle/reference_trace.h). One loop, so the two cannot drift apart. Internal to oracle/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "oracle/reference_encoder.h"
#include "oracle/retired.h"
#include "oracle/run_facts.h"
#include "oracle/trace_stats.h"

namespace ctte::oracle::internal {

/// Feeds every beat `next(&r)` yields (until it returns false) through the window edges and the
/// reference encoder. Sets everything of Expected but image, stop_reason and core_stop (the
/// caller's: they belong to the beat source). `retired_hint`: the retirements to reserve room
/// for (0: unknown).
template <typename NextBeat>
Expected BuildExpectedOver(NextBeat&& next, const ExpectedOptions& options,
                           std::vector<uint64_t>* edge_beats, size_t retired_hint = 0) {
  Expected e;
  e.mode = options.encoder.mode;
  e.sync_mode = options.encoder.sync_mode;
  e.features = options.encoder.features;
  e.xlen = IsValidXlen(options.encoder.xlen) ? options.encoder.xlen : 64;
  e.stopped = options.stop_at_end;
  e.encoder = options.encoder;
  e.pcs.reserve(retired_hint);
  e.halfwords.reserve(retired_hint);
  std::vector<TraceBeat> beat_trace;
  beat_trace.reserve(retired_hint);
  std::vector<RetirementEdge> edges = options.edges;
  if (edges.empty()) edges.push_back(RetirementEdge{0, true});
  if (edge_beats != nullptr) edge_beats->assign(edges.size(), 0);

  ReferenceEncoder enc(options.encoder);
  OutputRateMeter rate;
  bool tracing = false;
  bool closed_before = false;
  size_t next_edge = 0;
  uint64_t beat = 0;
  const auto apply = [&](const RetirementEdge& edge) {
    const uint64_t retired = e.pcs.size();
    if (edge.open && !tracing) {
      enc.Open();
      tracing = true;
      ExpectedWindow w;
      w.begin = w.end = retired;
      w.begin_beat = w.end_beat = beat;
      w.after_pause = closed_before;
      e.windows.push_back(w);
    } else if (!edge.open && tracing) {
      enc.Close();
      tracing = false;
      closed_before = true;
      e.windows.back().end = retired;
      e.windows.back().end_beat = beat;
    }
  };
  Retired r;
  while (next(&r)) {
    while (next_edge < edges.size() && edges[next_edge].at <= e.pcs.size()) {
      if (edge_beats != nullptr) (*edge_beats)[next_edge] = beat;
      apply(edges[next_edge++]);
    }
    if (tracing) {
      ExpectedWindow& w = e.windows.back();
      if (!w.has_beats) {
        w.has_beats = true;
        w.open_pc = r.pc;
      }
    }
    enc.Beat(r);
    if (tracing) rate.Beat(enc.bytes().size(), r.retires);
    beat_trace.push_back(TraceBeat::Of(r));
    if (r.retires) {
      e.pcs.push_back(r.pc);
      e.halfwords.push_back(r.iretire());
    }
    ++beat;
  }
  while (next_edge < edges.size()) {
    if (edge_beats != nullptr) (*edge_beats)[next_edge] = beat;
    apply(edges[next_edge++]);
  }
  if (tracing) {
    e.windows.back().end = e.pcs.size();
    e.windows.back().end_beat = beat;
    if (options.stop_at_end) enc.Close();
  }
  e.beats = beat;
  e.retired = e.pcs.size();
  e.reference_stream = enc.bytes();
  e.reference_messages = enc.messages();
  e.reference_rate = rate.Finish(enc.bytes().size());
  e.beat_trace = std::make_shared<const std::vector<TraceBeat>>(std::move(beat_trace));
  return e;
}

}  // namespace ctte::oracle::internal
