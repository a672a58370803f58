// The eight judges (DESIGN.md section 5, docs/verdicts.md). Each is a pure function of the
// reference (Expected), the observation (Observed) and their alignment: no I/O, no clock, no
// globals. JudgeRun() aligns once and runs all eight. The alignment passed to a judge must be
// Align(e, o.stream): the judges read the message indices it carries (Alignment::
// error_messages, enable_sync_messages) rather than walking the message list again.
#pragma once

#include <cstdint>
#include <vector>

#include "oracle/alignment.h"
#include "oracle/loss_replay.h"
#include "oracle/run_facts.h"
#include "oracle/verdict.h"

namespace ctte::oracle {

/// One announced loss (an Error message) and how the stream recovered from it.
struct LossEpisode {
  uint64_t error_offset = 0;        ///< byte offset of the Error message
  size_t error_message = 0;         ///< its index in the message list
  bool recovered = false;           ///< a sync anchor followed (before the window closed)
  bool closed_window = false;       ///< the Error was followed by the closing correlation
  uint64_t anchor_offset = 0;       ///< byte offset of the recovery anchor
  uint8_t anchor_sync = 0;
  uint64_t recovery_messages = 0;   ///< messages after the Error up to and including the anchor
  uint64_t recovery_bytes = 0;      ///< bytes from the Error's first to the anchor's last byte
  uint64_t instructions_missing = 0;  ///< reference instructions the announcement covers
  bool ambiguous = false;           ///< the count depends on an ambiguous (loop) placement
};

/// Figures that travel with the verdicts (docs/verdicts.md, "Metrics").
struct RunMetrics {
  uint64_t reference_instructions = 0;  ///< retired inside the configured windows
  uint64_t decoded_instructions = 0;
  uint64_t verified_instructions = 0;
  uint64_t announced_lost_instructions = 0;
  uint64_t silent_lost_instructions = 0;
  uint64_t late_open_instructions = 0;
  uint64_t messages = 0;
  uint64_t stream_bytes = 0;
  uint64_t segments = 0;
  uint64_t ambiguous_segments = 0;
  double payload_bits_per_instruction = 0;  ///< 6 per non-idle byte / decoded (trace_stats.h)
  double wire_bits_per_instruction = 0;     ///< 8 bits per byte / decoded instructions
  double messages_per_kilo_instruction = 0; ///< messages per 1000 decoded instructions
  /// The reference encoder's on the same beats with the same features, over the instructions
  /// retired in the windows (docs/verdicts.md "Run metrics").
  double reference_payload_bits_per_instruction = 0;
  double reference_wire_bits_per_instruction = 0;
  double reference_messages_per_kilo_instruction = 0;
  /// The output rate the encoder offers (the reference encoder's on the same beats: the RTL's
  /// until its queue overflows): peak against mean over 1024-instruction windows.
  OutputRate output_rate;
  bool reference_bytes_identical = false;
  uint64_t ready_stall_bound = 0;
  std::vector<LossEpisode> episodes;
  LossCoverage loss_coverage;  ///< drops with compression state present (JudgeRun fills it)
};

Verdict JudgeDecodeIntegrity(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgeLossAccounting(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgePostRecoveryLosslessness(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgeCounterConsistency(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgeLiveness(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgeDeterminism(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgeWindowSemantics(const Expected& e, const Observed& o, const Alignment& a);
Verdict JudgeFlushCompleteness(const Expected& e, const Observed& o, const Alignment& a);

/// Longest tolerated run of sink cycles with ready=1, trTeEmpty=0 and no byte offered: the
/// packer fills the output FIFO at most one byte per fabric cycle and the FIFO's Gray-pointer
/// synchronizer adds a few sink cycles, so 64 + 16 * ceil(sink_hz / fabric_hz).
uint64_t ReadyStallBound(uint64_t fabric_hz, uint64_t sink_hz);

/// The same judges given `replay` == ReplayLosses(e, o.stream, a) (JudgeRun replays once).
Verdict JudgeDecodeIntegrity(const Expected& e, const Observed& o, const Alignment& a,
                             const LossReplay& replay);
Verdict JudgeCounterConsistency(const Expected& e, const Observed& o, const Alignment& a,
                                const LossReplay& replay);

std::vector<LossEpisode> FindLossEpisodes(const Expected& e, const Observed& o,
                                          const Alignment& a);
/// The same judge given `eps` == FindLossEpisodes(e, o, a) (JudgeRun finds them once).
Verdict JudgePostRecoveryLosslessness(const Expected& e, const Observed& o, const Alignment& a,
                                      const std::vector<LossEpisode>& eps);

struct Judgement {
  std::vector<Verdict> verdicts;  ///< the eight, in VerdictCode order
  Alignment alignment;
  RunMetrics metrics;
  bool red() const;
};

RunMetrics ComputeRunMetrics(const Expected& e, const Observed& o, const Alignment& a);
/// The same given `episodes` == FindLossEpisodes(e, o, a).
RunMetrics ComputeRunMetrics(const Expected& e, const Observed& o, const Alignment& a,
                             std::vector<LossEpisode> episodes);
Judgement JudgeRun(const Expected& e, const Observed& o);

}  // namespace ctte::oracle
