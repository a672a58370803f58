// ReferenceTrace (oracle/reference_trace.h): recording, the early stop's beat, and the
// reference encoder over a prefix of the recorded beats.
#include "oracle/reference_trace.h"

#include <algorithm>

#include "base/check.h"
#include "oracle/expected_builder.h"

namespace ctte::oracle {

// A field added to Retired may be one the reference encoder reads: TraceBeat must then keep it
// (else the trace path feeds it 0). This size fails the build first (LP64: 4 words, insn, and
// size, itype, priv, retires).
static_assert(sizeof(Retired) == 40, "Retired changed: does TraceBeat need the new field?");

size_t ReferenceTrace::bytes() const {
  return sizeof(ReferenceTrace) + beats.capacity() * sizeof(TraceBeat) +
         options.interrupt_at.capacity() * sizeof(uint64_t) + core_stop.capacity();
}

ReferenceTrace RecordReferenceTrace(const ProgramImage& image, const IssOptions& options) {
  ReferenceTrace t;
  t.options = options;
  Iss iss(image, options);
  Retired r;
  while (iss.Step(&r)) {
    t.beats.push_back(TraceBeat::Of(r));
    if (r.retires) ++t.retired;
    t.stopped_with_last_beat = iss.stop_reason() != StopReason::kRunning;
  }
  t.beats.shrink_to_fit();
  t.stop_reason = iss.stop_reason();
  t.core_stop = iss.core_stop();
  return t;
}

uint64_t BeatOfRetirement(const ReferenceTrace& trace, uint64_t retired) {
  uint64_t beat = 0, done = 0;
  const uint64_t n = trace.beats.size();
  while (done < retired && beat < n) {
    if (trace.beats[beat].retires) ++done;
    ++beat;
  }
  return beat;
}

Expected BuildExpectedFromTrace(const ReferenceTrace& trace, const ExpectedOptions& options,
                                std::vector<uint64_t>* edge_beats) {
  CTTE_CHECK(options.iss.interrupt_at == trace.options.interrupt_at &&
                 options.iss.interrupt_every == trace.options.interrupt_every,
             "BuildExpectedFromTrace: the trace was recorded under another interrupt schedule");
  CTTE_CHECK(options.iss.max_instructions <= trace.options.max_instructions,
             "BuildExpectedFromTrace: the budget exceeds the trace's");
  const uint64_t budget = options.iss.max_instructions;
  const uint64_t all = trace.beats.size();
  const size_t n = static_cast<size_t>(std::min<uint64_t>(budget, all));
  size_t retired_hint = trace.retired;
  if (n < all) {
    retired_hint = 0;
    for (size_t i = 0; i < n; ++i) retired_hint += trace.beats[i].retires ? 1 : 0;
  }
  size_t i = 0;
  Expected e = internal::BuildExpectedOver(
      [&](Retired* r) {
        if (i == n) return false;
        *r = trace.beats[i++].ToRetired();
        return true;
      },
      options, edge_beats, retired_hint);
  // How the ISS under this budget stops (the prefix rule of the header).
  if (budget < all || (budget == all && !trace.stopped_with_last_beat)) {
    e.stop_reason = StopReason::kMaxInstructions;
    e.core_stop = CoreStopText(StopReason::kMaxInstructions, "");
  } else {
    e.stop_reason = trace.stop_reason;
    e.core_stop = trace.core_stop;
  }
  return e;
}

}  // namespace ctte::oracle
