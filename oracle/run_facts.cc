// Builders of the judges' inputs: the reference run (ISS + reference encoder with the same
// window edges) and the decoded stream (reader + reconstruction, problems recorded).
#include "oracle/run_facts.h"

#include "oracle/config_message.h"
#include "oracle/expected_builder.h"

#include "oracle/ntrace_reader.h"

namespace ctte::oracle {

const std::vector<TraceBeat>& Expected::Beats() const {
  static const std::vector<TraceBeat> kNone;
  return beat_trace != nullptr ? *beat_trace : kNone;
}

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
  Iss iss(image, options.iss);
  Expected e = internal::BuildExpectedOver([&iss](Retired* r) { return iss.Step(r); }, options,
                                           edge_beats);
  e.image = &image;
  e.stop_reason = iss.stop_reason();
  e.core_stop = iss.core_stop();
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
