// Internal helpers shared by the judges (oracle/judges_*.cc): formatting of evidence that names
// both sides, and a collector that keeps the first failure as the evidence and a few more as
// context.
#pragma once

#include <cstdint>
#include <string>

#include "base/text.h"
#include "oracle/run_facts.h"
#include "oracle/verdict.h"

namespace ctte::oracle::judge {


inline std::string Num(uint64_t v) { return std::to_string(v); }

/// "0x80000100 (in main+0x44)".
inline std::string PcText(const Expected& e, uint64_t pc) {
  std::string s = HexShort(pc);
  if (e.image != nullptr) s += " (in " + e.image->Symbolize(pc) + ")";
  return s;
}

/// "reference index 4121 = 0x80000100 (in main+0x44)", or "reference index N (past the end)".
inline std::string RefText(const Expected& e, uint64_t index) {
  if (index >= e.pcs.size()) return "reference index " + Num(index) + " (past the end)";
  return "reference index " + Num(index) + " = " + PcText(e, e.pcs[index]);
}

class Failures {
 public:
  explicit Failures(VerdictCode code) : code_(code) {}
  void Add(const std::string& rule, const std::string& message, uint64_t byte_begin = 0,
           uint64_t byte_end = 0, const uint64_t* index = nullptr) {
    if (count_++ == 0) {
      ev_.rule = rule;
      ev_.message = message;
      ev_.byte_begin = byte_begin;
      ev_.byte_end = byte_end;
      if (index != nullptr) {
        ev_.has_index = true;
        ev_.retirement_index = *index;
      }
    } else if (count_ <= 6) {
      ev_.context += (ev_.context.empty() ? "" : "\n") + rule + ": " + message;
    }
  }
  uint64_t count() const { return count_; }
  /// The verdict: fail with the first failure, or pass/n/a with `message`.
  Verdict Finish(Outcome otherwise, const std::string& message) {
    Verdict v;
    v.code = code_;
    if (count_ > 0) {
      v.outcome = Outcome::kFail;
      v.evidence = ev_;
      if (count_ > 1) {
        v.evidence.message += " (and " + Num(count_ - 1) + " more)";
      }
    } else {
      v.outcome = otherwise;
      v.evidence.message = message;
      v.evidence.rule = otherwise == Outcome::kPass ? "pass" : "not_exercised";
    }
    return v;
  }

 private:
  VerdictCode code_;
  uint64_t count_ = 0;
  Evidence ev_;
};

}  // namespace ctte::oracle::judge
