// The reference part of PrepareRun (docs/soak.md, "Reference cache"): the early-stop budget
// (the beat of the stop's retirement) and oracle::BuildExpected (reference ISS + reference
// encoder with the window edges), cached by content within one process.
//
// A campaign repeats this work: a determinism twin plans exactly its original's run, and runs
// that differ only in board-side axes (overflow regime, backpressure, seeds of the board) have
// the same program, interrupt schedule, budget, encoder configuration and window. The key is a
// SHA-256 over everything the result depends on (ReferenceKeyText); the result is a pure
// function of the program's bytes and those fields, so a hit is the same value a miss computes.
// The board's own ISS is not involved: it runs the program itself, as a real core does.
//
// Second level: most misses differ from an earlier run only in the encoder configuration or the
// window (mode, sync, features, edges, early stop) and share its program and interrupt schedule.
// A miss takes the reference ISS's run from a trace entry (oracle::ReferenceTrace, keyed by
// TraceKeyText: program, budget, interrupt schedule) and runs only the reference encoder over
// it. Recording costs about what the ISS itself does, and many ISS runs happen once (a drawn
// interrupt schedule, a generated program), so a trace is recorded at the second miss of its
// key (the first computes directly and only notes the key, in a set of at most
// kMaxSeenTraceKeys, cleared when full). Both kinds of entry share one LRU and one bound.
//
// Bounded memory: entries are evicted least recently used beyond max_bytes (an entry's bytes:
// its PC, half-word and reference-stream vectors, or a trace's beats); an entry larger than the
// bound is not kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "oracle/program_image.h"
#include "oracle/reference_trace.h"
#include "oracle/run_facts.h"

namespace ctte::runner {

/// What the reference of a run depends on.
struct ReferenceRequest {
  std::string program_sha256;  ///< SHA-256 of the ELF the program image was loaded from
  oracle::ExpectedOptions options;
  /// Stop after this many retirements: the budget becomes min(budget, beat of that retirement).
  std::optional<uint64_t> window_stop;
};

/// The result: the budget after the stop, the reference run and the beat of every edge.
struct Reference {
  uint64_t max_instructions = 0;
  oracle::Expected expected;  ///< image == nullptr (the caller points it at its own program)
  std::vector<uint64_t> edge_beats;

  size_t bytes() const;  ///< what the cache counts against its bound
};

/// The canonical text of every field the result depends on (one "name=value;" each).
std::string ReferenceKeyText(const ReferenceRequest& request);
/// SHA-256 hex of ReferenceKeyText.
std::string ReferenceKey(const ReferenceRequest& request);
/// The canonical text of what the reference ISS's run depends on (program, budget, interrupt
/// schedule): requests with the same trace key share one oracle::ReferenceTrace.
std::string TraceKeyText(const ReferenceRequest& request);
/// SHA-256 hex of TraceKeyText.
std::string TraceKey(const ReferenceRequest& request);

/// The uncached computation: the ISS up to the early stop, then oracle::BuildExpected.
Reference ComputeReference(const oracle::ProgramImage& program, const ReferenceRequest& request);
/// The same value from a trace recorded under request.options.iss (what a miss runs): the
/// early stop's beat read off the trace, then oracle::BuildExpectedFromTrace.
Reference ComputeReferenceFromTrace(const oracle::ReferenceTrace& trace,
                                    const ReferenceRequest& request);

class ReferenceCache {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{256} << 20;
  static constexpr size_t kMaxSeenTraceKeys = size_t{1} << 16;  ///< about 8 MiB of keys
  explicit ReferenceCache(size_t max_bytes = kDefaultMaxBytes) : max_bytes_(max_bytes) {}

  /// The reference of `request` for `program` (which must be the image of
  /// request.program_sha256): from the cache, or computed (over a cached trace when there is
  /// one) and kept. *trace_hit (on a miss): whether the ISS's run was reused. Thread-safe.
  /// Every path gives the value of ComputeReference.
  std::shared_ptr<const Reference> Get(const oracle::ProgramImage& program,
                                       const ReferenceRequest& request, bool* hit = nullptr,
                                       bool* trace_hit = nullptr);

  uint64_t hits() const;
  uint64_t misses() const;
  uint64_t trace_hits() const;     ///< misses whose ISS run came from a trace entry
  uint64_t trace_records() const;  ///< misses that recorded a trace (the rest ran directly)
  size_t bytes() const;
  size_t entries() const;  ///< of both kinds

 private:
  struct Entry {
    std::string key;  ///< a ReferenceKey or a TraceKey (distinct texts, so distinct hashes)
    std::shared_ptr<const Reference> value;         ///< a reference entry, or
    std::shared_ptr<const oracle::ReferenceTrace> trace;  ///< a trace entry
    size_t bytes = 0;
  };
  // With mu_ held: the entry of `key` made most recent, or nullptr; insert and evict.
  const Entry* Find(const std::string& key);
  void Insert(Entry entry);
  mutable std::mutex mu_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0, trace_hits_ = 0, trace_records_ = 0;
  std::unordered_set<std::string> seen_traces_;  ///< trace keys computed once, not recorded
  std::list<Entry> lru_;  ///< most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

/// The one cache of this process (PrepareRun's).
ReferenceCache& ProcessReferenceCache();

}  // namespace ctte::runner
