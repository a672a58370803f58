// A recorded run of the reference ISS: every beat it yields under one IssOptions, and how it
// stopped. The reference encoder can then be run over it under any number of encoder
// configurations and trace windows (BuildExpectedFromTrace) without running the ISS again, and
// the early stop's beat (BeatOfRetirement) read off it.
//
// Why a shorter budget is a prefix: the ISS is deterministic and its budget only stops it (the
// beat budget is checked before each beat, after the stop check; the interrupt schedule counts
// retirements, not the budget). So the run under max_instructions = M' <= M yields the first
// min(M', B) beats of the run under M (B beats in all), and stops:
//  - M' < B: on the budget (kMaxInstructions);
//  - M' >= B: as the full run did if that stop came with its last beat (an exit or reset through
//    the test device), else, when M' == B, on the budget (the full run stopped in a later step
//    that yields no beat: a fetch trap loop, or its own budget), else as the full run did.
// tests/oracle/reference_trace_test.cc holds this against the ISS for every such case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/retired.h"
#include "oracle/run_facts.h"

namespace ctte::oracle {

// TraceBeat (a beat as the reference encoder and BuildExpected read it) is in oracle/retired.h.

struct ReferenceTrace {
  IssOptions options;            ///< what it was recorded under (the budget is the largest usable)
  std::vector<TraceBeat> beats;  ///< every beat, in order
  uint64_t retired = 0;          ///< retiring beats among them
  StopReason stop_reason = StopReason::kRunning;  ///< after the last beat
  std::string core_stop;         ///< CoreStopText of that stop
  bool stopped_with_last_beat = false;  ///< the stop was set while the last beat executed

  /// What a cache counts against its bound.
  size_t bytes() const;
};

/// Runs the ISS over `image` under `options` and records it.
ReferenceTrace RecordReferenceTrace(const ProgramImage& image, const IssOptions& options);

/// The number of beats the ISS yields until `retired` instructions have retired (all of them
/// when it stops before): the beat budget of an early stop after `retired` retirements.
uint64_t BeatOfRetirement(const ReferenceTrace& trace, uint64_t retired);

/// Exactly BuildExpected(image, options) for the image the trace was recorded from, when
/// options.iss has the trace's interrupt schedule and a budget no larger than the trace's (a
/// broken invariant otherwise: checked). Expected::image is left null (the caller's).
Expected BuildExpectedFromTrace(const ReferenceTrace& trace, const ExpectedOptions& options,
                                std::vector<uint64_t>* edge_beats = nullptr);

}  // namespace ctte::oracle
