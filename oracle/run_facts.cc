// Builders of the judges' inputs: the reference run (ISS + reference encoder with the same
// window edges) and the decoded stream (reader + reconstruction, problems recorded).
#include "oracle/run_facts.h"

#include "oracle/config_message.h"

#include "oracle/ntrace_reader.h"

namespace ctte::oracle {

uint64_t Expected::InWindowInstructions() const {
  uint64_t n = 0;
  for (const ExpectedWindow& w : windows) n += w.end - w.begin;
  return n;
}

uint64_t Expected::InWindowHalfwords() const {
  uint64_t n = 0;
  for (const ExpectedWindow& w : windows) {
    for (uint64_t i = w.begin; i < w.end; ++i) n += halfwords[i];
  }
  return n;
}

Expected BuildExpected(const ProgramImage& image, const ExpectedOptions& options,
                       std::vector<uint64_t>* edge_beats) {
  Expected e;
  e.image = &image;
  e.mode = options.encoder.mode;
  e.sync_mode = options.encoder.sync_mode;
  e.features = options.encoder.features;
  e.xlen = IsValidXlen(options.encoder.xlen) ? options.encoder.xlen : 64;
  e.stopped = options.stop_at_end;
  std::vector<RetirementEdge> edges = options.edges;
  if (edges.empty()) edges.push_back(RetirementEdge{0, true});
  if (edge_beats != nullptr) edge_beats->assign(edges.size(), 0);

  ReferenceEncoder enc(options.encoder);
  Iss iss(image, options.iss);
  bool tracing = false;
  bool closed_before = false;
  size_t next = 0;
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
  while (iss.Step(&r)) {
    while (next < edges.size() && edges[next].at <= e.pcs.size()) {
      if (edge_beats != nullptr) (*edge_beats)[next] = beat;
      apply(edges[next++]);
    }
    if (tracing) {
      ExpectedWindow& w = e.windows.back();
      if (!w.has_beats) {
        w.has_beats = true;
        w.open_pc = r.pc;
      }
    }
    enc.Beat(r);
    if (r.retires) {
      e.pcs.push_back(r.pc);
      e.halfwords.push_back(r.iretire());
    }
    ++beat;
  }
  while (next < edges.size()) {
    if (edge_beats != nullptr) (*edge_beats)[next] = beat;
    apply(edges[next++]);
  }
  if (tracing) {
    e.windows.back().end = e.pcs.size();
    e.windows.back().end_beat = beat;
    if (options.stop_at_end) enc.Close();
  }
  e.beats = beat;
  e.retired = e.pcs.size();
  e.stop_reason = iss.stop_reason();
  e.core_stop = iss.core_stop();
  e.reference_stream = enc.bytes();
  return e;
}

namespace {

class Collector : public MessageReader::Reporter {
 public:
  Collector(Reconstructor* r, std::vector<StreamProblem>* problems,
            std::span<const uint8_t> bytes)
      : r_(r), problems_(problems), bytes_(bytes) {}
  void Corruption(uint64_t offset, uint64_t bytes, const std::string& reason) override {
    problems_->push_back(StreamProblem{offset, bytes, reason, false});
    r_->OnCorruption(offset, reason);
  }
  void Skipped(const Message& msg, const std::string& reason) override {
    // A well-formed configuration message (section 11.9) is part of the contract, not unknown.
    if (IsConfigMessage(bytes_, msg.offset, msg.size)) return;
    problems_->push_back(StreamProblem{msg.offset, msg.size, reason, true});
  }

 private:
  Reconstructor* r_;
  std::vector<StreamProblem>* problems_;
  std::span<const uint8_t> bytes_;
};

}  // namespace

DecodedStream DecodeForJudging(std::span<const uint8_t> bytes, const ProgramImage& image,
                               TraceMode mode, const FeatureSet& features, uint32_t xlen,
                               uint64_t test_short_repeats_after_anchor,
                               uint32_t test_corrupt_after_anchor, size_t reserve_pcs) {
  DecodedStream d;
  d.bytes.assign(bytes.begin(), bytes.end());
  // End-of-message bytes (MSEO 11), not counting idles (0xFF between messages): counted first,
  // since the reader yields at most that many messages, so the message list is allocated once
  // (growing it by doubling touched about twice its pages, a fault each: issue #17).
  bool boundary = true;
  for (uint8_t b : d.bytes) {
    if (boundary && b == 0xFF) continue;
    boundary = (b & 3) == 3;
    if (boundary) ++d.framed_messages;
  }
  d.messages.reserve(d.framed_messages);
  CollectingSink sink;
  sink.pcs_.reserve(reserve_pcs);
  ReconstructOptions ro;
  ro.mode = mode == TraceMode::kHtm ? ReconstructOptions::Mode::kHtm
                                    : ReconstructOptions::Mode::kBtm;
  Reconstructor::ApplyFeatures(features, &ro);
  ro.xlen = xlen;
  ro.test_short_repeats_after_anchor = test_short_repeats_after_anchor;
  ro.test_corrupt_after_anchor = test_corrupt_after_anchor;
  Reconstructor rec(image, ro, &sink);
  Collector collector(&rec, &d.problems, std::span<const uint8_t>(d.bytes));
  MessageReader reader(std::span<const uint8_t>(d.bytes), &collector);
  Message msg;
  while (reader.Next(&msg)) {
    d.messages.push_back(msg);
    rec.OnMessage(msg);
  }
  rec.Finish();
  d.idle_bytes = reader.idle_bytes();
  d.pcs = std::move(sink.pcs_);
  d.markers = std::move(sink.markers_);
  return d;
}

}  // namespace ctte::oracle
