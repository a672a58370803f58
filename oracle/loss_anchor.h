// The anchors of a lossy stream's segments (oracle/loss_replay.h): where the reference encoder
// is replayed from, the window's opening SYNC=5 or a recovery's Error + SYNC=7, and the beats
// that can be the recovery beat. Internal to the loss replay.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oracle/alignment.h"
#include "oracle/run_facts.h"

namespace ctte::oracle::internal {

/// Where a replay starts: the beat and the capture byte of the anchor's first record.
struct DropAnchor {
  bool known = false;
  bool recovery = false;  ///< the beat forms Error + SYNC=7 (else it opens the window)
  uint64_t beat = 0;      ///< the first candidate beat
  /// Recovery: candidates are every beat from `beat` on (to the window's end) with the SYNC=7's
  /// address, the true one among them (`beat` is the alignment's earliest placement); open: one.
  uint64_t pc = 0;
  uint64_t last_beat = 0; ///< recovery: the last candidate (the latest feasible placement's)
  /// Recovery: when no candidate up to last_beat reproduces the capture, the first one that
  /// does up to this beat (the window's last) is taken (its count bounded).
  uint64_t far_beat = 0;
  uint64_t byte = 0;
  std::string why;        ///< !known: why not
};

/// The reference's beats indexed for the anchors: the beat of each retirement index, and the
/// beats of each address (built once per run with a loss, on the first recovery anchor).
class BeatIndex {
 public:
  BeatIndex(const std::vector<TraceBeat>& beats, uint64_t mask) : beats_(beats), mask_(mask) {
    for (uint64_t k = 0; k < beats.size(); ++k) {
      if (beats[k].retires) beat_.push_back(k);
    }
  }
  bool Find(uint64_t target, uint64_t* beat) const {
    if (target >= beat_.size()) return false;
    *beat = beat_[target];
    return true;
  }
  /// The beats whose address is `pc` (masked to XLEN), ascending.
  const std::vector<uint64_t>& AtAddress(uint64_t pc) {
    if (!by_pc_built_) {
      for (uint64_t k = 0; k < beats_.size(); ++k) by_pc_[beats_[k].pc & mask_].push_back(k);
      by_pc_built_ = true;
    }
    static const std::vector<uint64_t> kNone;
    const auto it = by_pc_.find(pc);
    return it == by_pc_.end() ? kNone : it->second;
  }

 private:
  const std::vector<TraceBeat>& beats_;
  uint64_t mask_;
  std::vector<uint64_t> beat_;
  bool by_pc_built_ = false;
  std::unordered_map<uint64_t, std::vector<uint64_t>> by_pc_;
};

DropAnchor OpenDropAnchor(const DecodedStream& d, const StreamWindow& sw, const ExpectedWindow& x);

/// The anchor after the Error at message `mi`: the beat of its SYNC=7. Its candidates are the
/// beats with the SYNC=7's address from its segment's earliest to its latest feasible placement;
/// when that segment did not place (it decoded no PC: the next Error came first), from the beat
/// after the previous episode's dropped beat (`prev_drop_beat`: the recovery comes after it) to
/// the window's last beat. Past the latest placement up to the window's last beat (`far_beat`)
/// only when none of those reproduces the capture: a segment whose last message's target is not
/// walked (an Error follows) is placed by fewer PCs than its bytes carry, so its bytes can tell
/// apart occurrences its PCs cannot.
DropAnchor RecoveryDropAnchor(const Expected& e, const DecodedStream& d, const Alignment& a,
                              size_t mi,
                              const std::vector<std::pair<uint64_t, size_t>>& after_loss,
                              const BeatIndex& table, uint64_t prev_drop_beat,
                              uint64_t window_end_beat);

}  // namespace ctte::oracle::internal
