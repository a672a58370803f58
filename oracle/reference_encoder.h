// The software reference encoder: the executable form of docs/encoder-behaviour.md.
// From a beat sequence and a configuration it produces the byte stream our encoder RTL must
// produce when nothing is dropped. It never drops (it has no queue); Recover() replays the
// announcement that follows a drop.
#pragma once

#include <cstdint>
#include <vector>

#include "oracle/config_message.h"
#include "oracle/features.h"
#include "oracle/repeat_model.h"
#include "oracle/retired.h"
#include "regmap/registers.h"

namespace ctte::oracle {

struct Message;

/// trTeInstMode values (regmap/regmap.json).
enum class TraceMode : uint8_t {
  kBtm = ::ctte::reg::kInstModeBtm,  // ::ctte::reg, not oracle::reg (oracle/iss_asm.h)
  kHtm = ::ctte::reg::kInstModeHtm
};

struct EncoderConfig {
  TraceMode mode = TraceMode::kHtm;
  uint8_t sync_mode = 0;   ///< trTeInstSyncMode: 0 off, 1 messages, 3 half-words
  uint8_t sync_max = 0;    ///< period = 2^(sync_max + 4)
  uint8_t icnt_bits = 22;  ///< I-CNT width before ResourceFull RCODE 0
  FeatureSet features = {};  ///< optional features enabled (section 11); none by default
  /// 32 or 64 (anything else legalizes to 64): addresses, the return stack and the link are
  /// XLEN bits wide (spec/ntrace.md section 6; oracle/ntrace_message.h AddressMask).
  uint8_t xlen = 64;
  /// COMPILED of the configuration message (section 11.9): the RTL image's ctteFeatureCaps 7:0.
  uint32_t compiled_features = kImplementedFeatureBits;
};

class ReferenceEncoder {
 public:
  explicit ReferenceEncoder(EncoderConfig config);
  /// The window opens before the next beat (section 5 of docs/encoder-behaviour.md).
  void Open();
  /// One ingress beat; ignored while the window is closed.
  void Beat(const Retired& beat);
  /// Pause or stop: emits the closing ProgTraceCorrelation.
  void Close();
  /// A loss announced at the next beat (section 6, the encoder's side after a drop): that beat
  /// forms the Error (ETYPE 0, ECODE bit 2) and the ProgTraceSync SYNC=7 at its address from
  /// clean state, then itself (steps 3 and 4). The window is open from here on (a fresh encoder
  /// starts mid-window: a replay from a recovery anchor, as the judges' records-dropped count
  /// does, docs/verdicts.md#counter_consistency); it replaces a pending window-open sync.
  void Recover();
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  /// Messages sent (after the repeat stage of sections 11.3-11.4).
  uint64_t messages() const { return messages_; }
  /// Records formed (before the repeat stage): every message the front end queues, syncs, the
  /// configuration message and a recovery's Error included; what ctteRecordsDropped counts of
  /// the beat that overflows the queue.
  uint64_t records() const { return records_; }
  /// The compression state a drop at the next beat would discard (issue 32's loss coverage,
  /// docs/verdicts.md "Loss coverage"): return-stack entries, HIST bits, a run the repeat stage
  /// holds, a sequential-jump setter.
  struct Compression {
    bool return_stack = false, hist = false, held_repeat = false, seq_jump_setter = false;
  };
  Compression compression() const {
    return {ras_n_ > 0, hist_ != 1, repeat_.holding(), sj_rd_ != 0};
  }

 private:
  EncoderConfig config_;
  std::vector<uint8_t> bytes_;
  uint64_t messages_ = 0;
  uint64_t records_ = 0;
  RepeatStage repeat_;          ///< sections 11.3-11.5: between the records and the bytes
  std::vector<Message> sent_;   ///< scratch: what the repeat stage lets out
  // Encoder state (docs/encoder-behaviour.md section 3).
  void Emit(const Message& msg, bool is_sync);
  void CleanState();
  uint64_t icnt_ = 0;
  uint64_t hist_ = 1;
  uint64_t ref_ = 0;
  bool pend_ = false;
  uint8_t pend_btype_ = 0;
  uint64_t syncctr_ = 0;
  bool tracing_ = false;
  bool opening_ = false;      ///< the next beat is the first of the window
  bool recovering_ = false;   ///< the next beat announces a loss (Recover())
  uint32_t beat_records_ = 0; ///< non-sync records formed by the current beat
  // Implicit return (section 11.1): the stack (oldest first) and pend's prediction.
  void Push(uint64_t link);
  uint64_t ras_[kMaxReturnStackDepth] = {};
  uint32_t ras_n_ = 0;
  bool pred_valid_ = false;
  uint64_t pred_ = 0;
  // Sequential jump (section 11.7): rd of the previous beat when it was LUI/C.LUI/AUIPC, else 0.
  uint8_t sj_rd_ = 0;
  bool SequentialJump(const Retired& beat) const;
};

}  // namespace ctte::oracle
