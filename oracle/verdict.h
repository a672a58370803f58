// A verdict: what one judge concluded about one run (docs/verdicts.md).
//
// VerdictCode is stable: the numbers are stored in databases and reports link
// docs/verdicts.md#<name>. Never renumber or reuse a value; a retired code stays in the enum,
// commented "historical, never issued".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctte::oracle {

enum class VerdictCode : uint16_t {
  /// The stream frames and parses, every reconstructed PC equals the reference at its aligned
  /// position, no decoder error; a drop-free stream equals the reference encoder byte for byte.
  kDecodeIntegrity = 1,
  /// Every missing stretch of reference instructions is covered by an announced loss (Error),
  /// and every Error corresponds to an overflow episode the board counted.
  kLossAccounting = 2,
  /// After each Error the next message is a SYNC=7 anchor with I-CNT 0 (or the closing
  /// correlation), and from there the reconstruction is a contiguous run of the reference.
  kPostRecoveryLosslessness = 3,
  /// The board's counters equal what the capture shows.
  kCounterConsistency = 4,
  /// The run finished, the encoder drained after the stop, and the output never stalled while
  /// the sink was ready.
  kLiveness = 5,
  /// The twin run produced a byte-identical (drop-free) or decode-equivalent stream.
  kDeterminism = 6,
  /// Nothing outside the trace windows is traced; each window opens with an anchor and closes
  /// with a ProgTraceCorrelation.
  kWindowSemantics = 7,
  /// After the stop every in-window instruction is in the stream (or announced lost), the stream
  /// ends with a correlation and trTeEmpty reads 1.
  kFlushCompleteness = 8,
  /// Not one of the eight: the design fired a standing RTL assertion during the run, so no
  /// capture exists; issued by the runner with the assertion text as evidence.
  kRtlAssertion = 9,
};

/// Every code that may be issued, in order.
const std::vector<VerdictCode>& AllVerdictCodes();
/// "decode_integrity", ... (the docs/verdicts.md anchor and the database verdict name).
const char* VerdictCodeName(VerdictCode code);
std::optional<VerdictCode> ParseVerdictCode(std::string_view name);

enum class Outcome : uint8_t {
  kPass,           ///< every required observation was seen and no failure was seen
  kFail,           ///< a failure was seen (or a required observation is missing)
  kNotApplicable,  ///< the run did not exercise this verdict; never counted as a pass
};
const char* OutcomeName(Outcome outcome);  ///< "pass", "fail", "n/a"

struct Evidence {
  /// One line naming both sides, e.g. "index 4121: decoded 0x80000104, reference 0x80000100
  /// (in main+0x44)". For a pass: what was checked ("412 segments, 91022 PCs verified").
  std::string message;
  std::string rule;            ///< which check decided, e.g. "pc_mismatch" (docs/verdicts.md)
  uint64_t byte_begin = 0;     ///< stream byte range of the deciding message(s), if any
  uint64_t byte_end = 0;       ///< exclusive; == byte_begin when no range applies
  uint64_t retirement_index = 0;  ///< reference retirement index, when has_index
  bool has_index = false;
  std::string context;         ///< further lines (more failures, neighbouring messages)
};

/// A named number carried with a verdict (rendered as JSON by the runner).
struct Metric {
  std::string name;
  double value = 0;
};

struct Verdict {
  VerdictCode code = VerdictCode::kDecodeIntegrity;
  Outcome outcome = Outcome::kNotApplicable;
  Evidence evidence;
  std::vector<Metric> metrics;

  bool failed() const { return outcome == Outcome::kFail; }
  /// "decode_integrity: fail: index 4121: decoded ..." (one line).
  std::string ToString() const;
};

}  // namespace ctte::oracle
