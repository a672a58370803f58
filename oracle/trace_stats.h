// Statistics of an N-Trace stream: messages and bytes per TCODE, messages per thousand
// instructions, payload and wire bits per instruction.
//
// Definitions: wire bytes are every byte of the stream (idles included); payload bits are the
// MDO bits of the non-idle bytes (6 per byte: MSEO framing and idles excluded); "instructions"
// are reconstructed (or, for an encoder, retired) instructions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "oracle/ntrace_message.h"

namespace ctte::oracle {

/// The one formula for the payload bits per instruction of a stream (the run metric and the
/// decoder statistics alike): 6 MDO bits per non-idle byte, over `instructions`; 0 when there
/// are no instructions.
double PayloadBitsPerInstruction(uint64_t wire_bytes, uint64_t idle_bytes, uint64_t instructions);
/// 8 bits per wire byte (idles included), over `instructions`; 0 when there are none.
double WireBitsPerInstruction(uint64_t wire_bytes, uint64_t instructions);

class TraceStats {
 public:
  void AddMessage(const Message& msg) {
    ++messages_[msg.tcode & 63];
    bytes_[msg.tcode & 63] += msg.size;
  }
  void set_wire_bytes(uint64_t n) { wire_bytes_ = n; }
  void set_idle_bytes(uint64_t n) { idle_bytes_ = n; }
  void set_instructions(uint64_t n) { instructions_ = n; }

  uint64_t messages(uint8_t tcode) const { return messages_[tcode & 63]; }
  uint64_t bytes(uint8_t tcode) const { return bytes_[tcode & 63]; }
  uint64_t total_messages() const;
  uint64_t wire_bytes() const { return wire_bytes_; }
  uint64_t idle_bytes() const { return idle_bytes_; }
  uint64_t instructions() const { return instructions_; }

  double MessagesPerKiloInstruction() const;
  double PayloadBitsPerInstruction() const;
  double WireBitsPerInstruction() const;

 private:
  uint64_t messages_[64] = {};
  uint64_t bytes_[64] = {};
  uint64_t wire_bytes_ = 0;
  uint64_t idle_bytes_ = 0;
  uint64_t instructions_ = 0;
};

/// Peak against mean output rate (the paper's Section IX: two encoders with the same mean bits
/// per instruction can need very different buffers): an encoder's bytes counted per window of
/// `window_instructions` retired instructions; the peak is the fullest whole window's bits per
/// instruction (the mean when the trace is shorter than one window), the mean every byte's.
struct OutputRate {
  static constexpr uint64_t kWindowInstructions = 1024;
  uint64_t window_instructions = kWindowInstructions;
  uint64_t instructions = 0;       ///< retired while the trace window was open
  uint64_t bytes = 0;
  uint64_t peak_window_bytes = 0;  ///< 0: no whole window
  double MeanBitsPerInstruction() const {
    return instructions == 0 ? 0.0 : 8.0 * static_cast<double>(bytes) /
                                         static_cast<double>(instructions);
  }
  double PeakBitsPerInstruction() const {
    return peak_window_bytes == 0 ? MeanBitsPerInstruction()
                                  : 8.0 * static_cast<double>(peak_window_bytes) /
                                        static_cast<double>(window_instructions);
  }
  double PeakToMean() const {
    const double mean = MeanBitsPerInstruction();
    return mean == 0 ? 0.0 : PeakBitsPerInstruction() / mean;
  }
};

/// Feeds an OutputRate beat by beat: after each traced beat, the encoder's byte total so far.
class OutputRateMeter {
 public:
  void Beat(uint64_t total_bytes, bool retires) {
    if (!retires) return;
    ++rate_.instructions;
    if (++in_window_ == rate_.window_instructions) {
      rate_.peak_window_bytes = std::max(rate_.peak_window_bytes, total_bytes - window_start_);
      window_start_ = total_bytes;
      in_window_ = 0;
    }
  }
  OutputRate Finish(uint64_t total_bytes) const {
    OutputRate r = rate_;
    r.bytes = total_bytes;
    return r;
  }

 private:
  OutputRate rate_;
  uint64_t in_window_ = 0;
  uint64_t window_start_ = 0;
};

/// Reads `bytes` and counts every well-formed message (standard or not); corrupt bytes count
/// only as wire bytes. `instructions` is stored as given.
TraceStats ComputeTraceStats(std::span<const uint8_t> bytes, uint64_t instructions,
                             const StreamFormat& format = {});

}  // namespace ctte::oracle
