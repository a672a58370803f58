// What ctteRecordsDropped must read, computed from the reference (docs/verdicts.md,
// "counter_consistency" and "Every counter has a rule").
//
// The encoder drops at most one beat per loss episode: the beat whose records do not fit in the
// queue (all or none), after which it forms nothing until it can announce the loss
// (docs/encoder-behaviour.md section 6). ctteRecordsDropped adds the records that beat would
// have formed. The encoder's state at that beat is known: it is what the reference encoder
// reaches by replaying the beats from the episode's previous anchor (the window's opening beat,
// or the beat of the previous recovery's SYNC=7, where the state is clean). So, per episode:
// replay from the anchor; the replay must reproduce the captured bytes from the anchor up to the
// Error byte for byte, ending on a beat boundary; the next beat that forms a record is the
// dropped beat, and the records it forms are the episode's count. Where a loop makes the SYNC=7's
// placement ambiguous, every beat with its address from the earliest to the latest feasible
// placement (oracle/alignment.h) is a candidate: the episode's count is [min, max] over the candidates whose replay reproduces the
// capture (exact when they agree). An episode whose anchor has no known beat (a late re-open, a
// segment that did not place), or with no such candidate (or more than 4096 that
// replay differently, or more than 4096 candidates at all), or a run with the
// repeat stage on (the capture holds messages after it, the counter counts records before it)
// is only bounded: 1 to kMaxRecordsPerBeat records.
#pragma once

#include <cstdint>
#include <string>

#include "oracle/alignment.h"
#include "oracle/run_facts.h"

namespace ctte::oracle {

/// The most records one beat forms (the RTL's three record slots; ev_dropped is two bits).
inline constexpr uint64_t kMaxRecordsPerBeat = 3;

struct DroppedRecords {
  uint64_t episodes = 0;          ///< Error messages in the capture
  uint64_t exact_episodes = 0;    ///< episodes whose dropped records the replay fixes
  uint64_t min_records = 0;       ///< the fewest records the episodes can have dropped
  uint64_t max_records = 0;       ///< the most
  /// The first episode left bounded and why ("" when every episode is exact).
  std::string first_bounded;
  uint64_t min() const { return min_records; }
  uint64_t max() const { return max_records; }
  bool exact() const { return min_records == max_records; }
};

/// The byte-for-byte rule between losses (docs/verdicts.md, decode_integrity "segment_bytes"):
/// each segment from an anchor to the next Error, or to its window's end, against the
/// reference encoder replayed from the anchor.
struct ReplayedSegments {
  uint64_t segments = 0;      ///< segments of the windows of a lossy stream
  uint64_t equal = 0;         ///< equal to the replay byte for byte
  uint64_t differing = 0;     ///< no candidate anchor's replay equals the capture
  uint64_t not_compared = 0;  ///< the anchor's beat is unknown, or too many candidates
  std::string first_differing;      ///< the first differing segment: where and how
  uint64_t first_differing_byte = 0;
  std::string first_not_compared;   ///< the first segment not compared and why
};

/// Loss coverage (docs/verdicts.md "Loss coverage"): of the episodes whose dropped beat the
/// replay found (the earliest reproducing candidate's), how many dropped it with compression
/// state present, the cases the recovery checks and their controls guard.
struct LossCoverage {
  uint64_t drops = 0;             ///< episodes whose dropped beat is known
  uint64_t return_stack = 0;      ///< return-stack entries present (implicit return)
  uint64_t hist = 0;              ///< HIST bits present (HTM)
  uint64_t held_repeat = 0;       ///< the repeat stage held a run
  uint64_t seq_jump_setter = 0;   ///< a sequential-jump setter was pending
};

struct LossReplay {
  DroppedRecords dropped;
  ReplayedSegments segments;
  LossCoverage coverage;
};

/// Pure; empty when the stream has no Error. One replay per candidate anchor beat whose beats
/// differ from every earlier replayed candidate's.
LossReplay ReplayLosses(const Expected& e, const DecodedStream& d, const Alignment& a);

}  // namespace ctte::oracle
