// Every counter has a rule (issue 32; docs/verdicts.md, "Every counter has a rule"): one row per
// number or flag a board reports about a run or its design, keyed by how the board reports it,
// with the check that covers it and who owns that check.
//
// Keys: `counters.<key>` for the counter registers read after a run (lab::Counters, the board
// protocol's capture object "counters"), `capture.<key>` for the other facts of a capture
// (lab::Capture, the capture object), `reg.<name>` for every register of the encoder's map
// (regmap/regmap.json) a board answers ReadReg for. tests/runner/counter_rules_test.cc fails when
// a key the board reports has no row, when a row names no key the board reports, and when the
// table below and the one in docs/verdicts.md differ.
#pragma once

#include <span>
#include <string_view>

namespace ctte::runner {

/// What the check establishes.
enum class CounterCheck : unsigned char {
  kExact,     ///< equals a value computed from the reference or the capture
  kBound,     ///< within a stated bound (the check says which)
  kIdentity,  ///< compared with the image manifest at deploy; a mismatch is an infra run
  kTest,      ///< checked by a named test, not on every run (a design constant)
  kRecorded,  ///< stored and reported, no rule: `check` says why none can hold
};
const char* CounterCheckName(CounterCheck c);

struct CounterRule {
  const char* key;       ///< "counters.records_dropped", "capture.te_empty", "reg.ctteCaps"
  CounterCheck kind;
  const char* owner;     ///< a verdict code (docs/verdicts.md), "infra", "invalid" or "none"
  const char* rules;     ///< the evidence rules that fail on it ("" for kRecorded)
  const char* check;     ///< the check, or why there is none
};

/// The table, in docs/verdicts.md's order.
std::span<const CounterRule> CounterRules();
/// The row for `key`, or null.
const CounterRule* FindCounterRule(std::string_view key);

}  // namespace ctte::runner
