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
// segment that did not place), or with no such candidate (or more than 4096), or a run with the
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

/// Pure; linear in the beats of the windows that hold an Error (each beat replayed once).
DroppedRecords CountDroppedRecords(const Expected& e, const DecodedStream& d, const Alignment& a);

}  // namespace ctte::oracle
