// The repeat stage (docs/encoder-behaviour.md sections 11.3-11.5): repeated history
// (ResourceFull RCODE 2 + HREPEAT) and RepeatBranch (TCODE 30 + B-CNT). It sits after the
// record queue: it takes the logical records the encoder formed, in order, and replaces runs of
// identical records by one record and a count. The RTL's ctte_repeat.sv is the same machine.
#pragma once

#include <cstdint>
#include <vector>

#include "oracle/ntrace_message.h"

namespace ctte::oracle {

/// The largest HREPEAT and B-CNT (18-bit fields).
constexpr uint64_t kMaxRepeatCount = (uint64_t{1} << 18) - 1;

class RepeatStage {
 public:
  RepeatStage(bool repeated_history, bool repeat_branch)
      : rh_on_(repeated_history), rb_on_(repeat_branch) {}
  /// One logical record in; the records to send (0, 1 or 2 of them) are appended to *out.
  void Push(const Message& rec, std::vector<Message>* out);
  /// True while a run is held or counted (nothing may be held when a sync leaves the stage).
  bool holding() const { return hrep_ > 0 || bcnt_ > 0; }

 private:
  void FlushHist(std::vector<Message>* out);
  void FlushBranch(std::vector<Message>* out);
  bool rh_on_;
  bool rb_on_;
  uint64_t held_hist_ = 0;  ///< RDATA of the held RCODE 1 run
  uint64_t hrep_ = 0;       ///< records in the held run (0 = none)
  bool have_prev_ = false;  ///< the last record sent was a branch record
  Message prev_;
  uint64_t bcnt_ = 0;       ///< withheld repetitions of prev_
};

}  // namespace ctte::oracle
