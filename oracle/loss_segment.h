// One segment of a lossy stream against the reference encoder replayed from its anchor
// (oracle/loss_replay.h): the replay, and the outcome over every candidate anchor beat. Internal
// to the loss replay.
#pragma once

#include <cstdint>
#include <string>

#include "oracle/loss_anchor.h"
#include "oracle/loss_replay.h"
#include "oracle/reference_encoder.h"
#include "oracle/run_facts.h"

namespace ctte::oracle::internal {

/// Where the replayed segment ends: at the next Error (`byte_end`, the Error's offset), or at
/// the window's end (`to_end`: every byte up to `byte_end` and, when `closed`, the correlation
/// Close() forms after the last beat; a window the run left open is compared as a prefix).
struct SegmentEnd {
  uint64_t end_beat = 0;
  uint64_t byte_end = 0;
  bool to_end = false;
  bool closed = false;
  /// To an Error with the repeat stage on: a capture that ends inside a beat's messages, every
  /// byte matched, reproduces it (Replay::prefix).
  bool prefix_ok = false;
};

/// One segment's outcome over every candidate anchor beat. To an Error: the episode's count is
/// [lo, hi] over the candidates whose replay reproduces the capture up to the Error, and
/// [1, kMaxRecordsPerBeat] when none does or there are too many. To the window's end: equal
/// when a candidate's replay equals the capture.
struct SegmentOutcome {
  uint64_t lo = 1, hi = kMaxRecordsPerBeat;
  bool compared = false;   ///< the anchor is known and the candidates were replayed
  bool equal = false;      ///< a candidate reproduces the capture byte for byte
  uint64_t byte = 0;       ///< !equal && compared: the first differing byte, when one differs
  /// To an Error, equal: the earliest dropped beat over the reproducing candidates (the next
  /// recovery beat comes after it); UINT64_MAX when unknown.
  uint64_t drop_beat = UINT64_MAX;
  /// To an Error, equal: the state the earliest reproducing candidate's dropped beat found.
  ReferenceEncoder::Compression at_drop;
  bool counted = false;    ///< at_drop is known (a reproducing candidate found the drop)
  std::string why;         ///< lo != hi, or !equal: why
};

SegmentOutcome ReplaySegment(const Expected& e, const DecodedStream& d, const DropAnchor& an,
                             const SegmentEnd& se, BeatIndex* index);

}  // namespace ctte::oracle::internal
