// The inputs of the eight judges (oracle/judges.h): what the run should have produced
// (Expected, from the reference model) and what it did produce (Observed, from the board's
// capture and the decoder). Both are plain values; builders are pure functions.
//
// Indices: a *retirement index* counts retired instructions from 0 (trap beats do not retire);
// a *beat index* counts ingress beats (retiring and trap beats) from 0.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/ntrace_message.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"
#include "oracle/trace_stats.h"

namespace ctte::oracle {

/// A trace-window edge in retirement indices: the register write happens after `at`
/// instructions have retired (before the next beat, which may be a trap beat).
struct RetirementEdge {
  uint64_t at = 0;
  bool open = true;
};

/// One trace window of the reference run.
struct ExpectedWindow {
  uint64_t begin = 0;       ///< first retirement index inside the window
  uint64_t end = 0;         ///< one past the last (== begin: no instruction retired inside)
  uint64_t begin_beat = 0;  ///< first beat inside the window
  uint64_t end_beat = 0;
  bool has_beats = false;   ///< at least one beat (retiring or trap) was presented inside
  uint64_t open_pc = 0;     ///< iaddr of the first beat inside (the SYNC=5 F-ADDR)
  bool after_pause = false; ///< a window closed before this one opened
};

struct Expected {
  const ProgramImage* image = nullptr;  ///< for symbols in evidence (may be null)
  std::vector<uint64_t> pcs;            ///< PC of every retired instruction, by retirement index
  std::vector<uint8_t> halfwords;       ///< iretire of every retired instruction
  std::vector<ExpectedWindow> windows;  ///< in order
  bool stopped = true;                  ///< trTeEnable=0 and a drain ended the run
  TraceMode mode = TraceMode::kHtm;
  uint8_t sync_mode = 0;
  FeatureSet features;                  ///< optional features of the encoder (and decoder)
  uint8_t xlen = 64;                    ///< the encoder's XLEN (and the decoder's)
  uint64_t beats = 0;                   ///< beats the core presented
  uint64_t retired = 0;
  StopReason stop_reason = StopReason::kRunning;  ///< how the reference core stopped
  std::string core_stop;                ///< its text, CoreStopText(): "exited", "fatal: ..."
  std::vector<uint8_t> reference_stream;  ///< the reference encoder's bytes for the same run
  uint64_t reference_messages = 0;        ///< the messages of reference_stream
  /// The reference encoder's output rate over the traced beats (oracle/trace_stats.h): what
  /// the encoder offers its queue, the RTL's too until the queue overflows.
  OutputRate reference_rate;
  /// Every beat the core presented, by beat index (16 bytes each): what the judges replay the
  /// reference encoder over from an anchor (counter_consistency's records-dropped count).
  /// Shared, not copied, when a plan copies the cached reference. Null or empty: not kept; the
  /// judges then check only the bounds.
  std::shared_ptr<const std::vector<TraceBeat>> beat_trace;
  const std::vector<TraceBeat>& Beats() const;
  EncoderConfig encoder;                ///< the reference encoder's configuration

  uint64_t InWindowInstructions() const;
  uint64_t InWindowHalfwords() const;
};

struct ExpectedOptions {
  IssOptions iss;
  EncoderConfig encoder;
  /// Ascending. Empty: the window opens before beat 0 and stays open.
  std::vector<RetirementEdge> edges;
  bool stop_at_end = true;
};

/// Runs the ISS and the reference encoder over `image`. Also reports the beat index of every
/// edge in *edge_beats (same order), which is how a RunPlan places its window edges.
Expected BuildExpected(const ProgramImage& image, const ExpectedOptions& options,
                       std::vector<uint64_t>* edge_beats = nullptr);

/// A problem the reader reported: dropped bytes or a skipped vendor/reserved message.
struct StreamProblem {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::string reason;
  bool skipped_message = false;  ///< a well-framed vendor/reserved TCODE (else corruption)
};

/// The board's view of the run (copied from lab::Capture by the runner; oracle/ knows no lab).
struct CaptureFacts {
  uint32_t messages = 0, bytes = 0, overflow_episodes = 0, records_dropped = 0;
  uint32_t halfwords_retired = 0;  ///< ctteHalfwordsRetired
  uint32_t status = 0;             ///< ctteStatus after the run
  uint32_t control = 0;            ///< trTeControl after the run
  uint64_t bytes_received = 0;
  bool ring_wrapped = false;
  bool te_empty = false;
  bool drained = false;
  uint64_t drain_sink_cycles = 0;
  uint64_t drain_budget_sink_cycles = 0;
  /// Longest run of sink cycles with ready=1, trTeEmpty=0 and no byte offered; nullopt when the
  /// board does not measure it.
  std::optional<uint64_t> max_ready_stall_sink_cycles;
  uint64_t fabric_hz = 0, sink_hz = 0;
  uint64_t beats = 0, retired = 0;
  std::string core_stop;  ///< as the board reported it (CoreStopText; ParseCoreStop reads it)
};

/// A decoded stream: messages with offsets, reader problems, PCs and markers.
struct DecodedStream {
  std::vector<uint8_t> bytes;
  std::vector<Message> messages;       ///< standard messages, in stream order
  std::vector<StreamProblem> problems;
  uint64_t framed_messages = 0;        ///< every end-of-message seen (standard or not)
  uint64_t idle_bytes = 0;             ///< 0xFF idles between messages (MessageReader)
  std::vector<uint64_t> pcs;
  std::vector<Marker> markers;
};

/// Reads and reconstructs `bytes` against `image` (pure; never fails: problems are recorded).
/// `features`: the encoder's optional features, run by the decoder too (section 11); `xlen`:
/// the encoder's address width (32 or 64).
/// `test_short_repeats_after_anchor` and `test_corrupt_after_anchor`: ReconstructOptions' test
/// seams (a broken decoder-side repeat or feature model from that anchor on, for the judges'
/// negative tests); 0 in every real use.
/// `reserve_pcs`: room made in the decoded PC list up front (the runner passes the reference's
/// retired count, which a good decode does not exceed), so the list is not grown by doubling,
/// copying and faulting in twice its size; a capacity only, no effect on the result.
DecodedStream DecodeForJudging(std::span<const uint8_t> bytes, const ProgramImage& image,
                               TraceMode mode, const FeatureSet& features = {},
                               uint32_t xlen = 64, uint64_t test_short_repeats_after_anchor = 0,
                               uint32_t test_corrupt_after_anchor = 0, size_t reserve_pcs = 0);

struct Observed {
  DecodedStream stream;
  CaptureFacts capture;
  /// The determinism twin (same key, second board), when one ran.
  std::optional<DecodedStream> twin;
  /// Set instead of `twin` when the twin's bytes equal the run's: DecodeForJudging is pure, so
  /// that twin decodes to `stream` itself, which is then not held (and copied) twice.
  bool twin_is_stream = false;
  std::optional<CaptureFacts> twin_capture;

  /// The twin's decode: `twin`, or `stream` when twin_is_stream; null without a twin.
  const DecodedStream* twin_stream() const {
    if (twin_is_stream) return &stream;
    return twin.has_value() ? &*twin : nullptr;
  }
};

}  // namespace ctte::oracle
