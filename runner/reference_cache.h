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
// Bounded memory: entries are evicted least recently used beyond max_bytes (an entry's bytes:
// its PC, half-word and reference-stream vectors); an entry larger than the bound is not kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "oracle/program_image.h"
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

/// The uncached computation (what a miss runs).
Reference ComputeReference(const oracle::ProgramImage& program, const ReferenceRequest& request);

class ReferenceCache {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{256} << 20;
  explicit ReferenceCache(size_t max_bytes = kDefaultMaxBytes) : max_bytes_(max_bytes) {}

  /// The reference of `request` for `program` (which must be the image of
  /// request.program_sha256): from the cache, or computed and kept. Thread-safe.
  std::shared_ptr<const Reference> Get(const oracle::ProgramImage& program,
                                       const ReferenceRequest& request, bool* hit = nullptr);

  uint64_t hits() const;
  uint64_t misses() const;
  size_t bytes() const;
  size_t entries() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const Reference> value;
  };
  mutable std::mutex mu_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
  std::list<Entry> lru_;  ///< most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

/// The one cache of this process (PrepareRun's).
ReferenceCache& ProcessReferenceCache();

}  // namespace ctte::runner
