// The software reference encoder: docs/encoder-behaviour.md sections 3-5 and 7-8, executed.
//
// Per beat, records are formed in the order the document gives (window open, owed message or
// periodic sync, the beat itself, sync counter) and packed at once by MessageWriter. There is
// no queue, so nothing is ever dropped; of section 6 (loss) only the announcement is here
// (Recover(): a replay from a recovery anchor).
#include "oracle/reference_encoder.h"

#include "oracle/config_message.h"
#include "oracle/ntrace_message.h"
#include "oracle/ntrace_writer.h"
#include "oracle/seq_jump.h"

namespace ctte::oracle {

ReferenceEncoder::ReferenceEncoder(EncoderConfig config)
    : config_(config),
      repeat_(config.features.repeated_history, config.features.repeat_branch) {
  if (config_.sync_mode == 2) config_.sync_mode = 0;  // cycles: not implemented, legalizes to 0
  if (!IsValidXlen(config_.xlen)) config_.xlen = 64;
  if (config_.features.implicit_return_depth > kMaxReturnStackDepth) {
    config_.features.implicit_return_depth = kMaxReturnStackDepth;
  }
}

void ReferenceEncoder::CleanState() {
  icnt_ = 0;
  hist_ = 1;
  pend_ = false;
  pend_btype_ = 0;
  syncctr_ = 0;
  ras_n_ = 0;
  pred_valid_ = false;
  sj_rd_ = 0;
}

bool ReferenceEncoder::SequentialJump(const Retired& beat) const {
  return config_.features.sequential_jump && sj_rd_ != 0 && JalrRs1(beat.insn) == sj_rd_;
}

void ReferenceEncoder::Push(uint64_t link) {
  const uint32_t depth = config_.features.implicit_return_depth;
  if (ras_n_ == depth) {  // full: the oldest entry is evicted
    for (uint32_t i = 1; i < depth; ++i) ras_[i - 1] = ras_[i];
    --ras_n_;
  }
  ras_[ras_n_++] = link;
}

void ReferenceEncoder::Emit(const Message& msg, bool is_sync) {
  sent_.clear();
  repeat_.Push(msg, &sent_);
  for (const Message& m : sent_) MessageWriter().Append(m, &bytes_);
  messages_ += sent_.size();
  ++records_;
  if (is_sync) {
    syncctr_ = 0;
  } else {
    ++beat_records_;
  }
}

void ReferenceEncoder::Open() {
  if (tracing_) return;
  tracing_ = true;
  opening_ = true;
}

void ReferenceEncoder::Recover() {
  tracing_ = true;
  opening_ = false;
  recovering_ = true;
}

void ReferenceEncoder::Beat(const Retired& beat) {
  if (!tracing_) return;
  const bool htm = config_.mode == TraceMode::kHtm;
  const uint64_t mask = AddressMask(config_.xlen);
  const uint64_t a = beat.pc & mask;
  beat_records_ = 0;
  // 1. Window open.
  if (opening_) {
    opening_ = false;
    CleanState();
    if (config_.features.config_message) {  // section 11.9: before the SYNC=5, not counted
      AppendConfigMessage(config_.compiled_features, config_.features, &bytes_);
      ++messages_;
      ++records_;
    }
    Emit(Message::ProgTraceSync(kSyncTraceEnable, 0, a >> 1), true);
    ref_ = a;
  } else if (recovering_) {
    // Section 6: the announcement, from the clean state the drop left.
    recovering_ = false;
    CleanState();
    Emit(Message::Error(0, kEcodeProgramTraceLost), true);
    Emit(Message::ProgTraceSync(kSyncOverrunRestart, 0, a >> 1), true);
    ref_ = a;
  } else {
    // 2. Owed message and periodic sync.
    const bool due =
        config_.sync_mode != 0 && syncctr_ >= (uint64_t{1} << (config_.sync_max + 4));
    if (due) {
      const uint8_t btype = pend_ ? pend_btype_ : static_cast<uint8_t>(kBtypeJump);
      Emit(htm ? Message::IndirectBranchHistSync(kSyncPeriodic, btype, icnt_, a >> 1, hist_)
               : Message::IndirectBranchSync(kSyncPeriodic, btype, icnt_, a >> 1),
           true);
      ref_ = a;
      CleanState();
    } else if (pend_ && pred_valid_ && a == pred_) {
      pend_ = false;  // an implicit return: the decoder pops the same address
      pred_valid_ = false;
    } else if (pend_) {
      const uint64_t uaddr = (config_.features.full_address ? a : a ^ ref_) >> 1;  // 11.8
      Emit(htm ? Message::IndirectBranchHist(pend_btype_, icnt_, uaddr, hist_)
               : Message::IndirectBranch(pend_btype_, icnt_, uaddr),
           false);
      ref_ = a;
      icnt_ = 0;
      hist_ = 1;
      pend_ = false;
      pred_valid_ = false;
    }
  }
  // 3. The beat itself.
  uint64_t h = 0;
  if (beat.itype == IType::kException || beat.itype == IType::kInterrupt) {
    pend_ = true;
    pend_btype_ = beat.itype == IType::kException ? kBtypeException : kBtypeInterrupt;
    pred_valid_ = false;
    sj_rd_ = 0;
  } else {
    h = beat.iretire();
    const bool seq = SequentialJump(beat);  // section 11.7: inferable, no message owed
    const uint64_t max_icnt = (uint64_t{1} << config_.icnt_bits) - 1;
    if (icnt_ + h > max_icnt) {
      Emit(Message::ResourceFull(kRcodeIcnt, icnt_), false);
      icnt_ = 0;
    }
    icnt_ += h;
    if (IsBranch(beat.itype)) {
      const bool taken = beat.itype == IType::kTakenBranch;
      if (htm) {
        hist_ = (hist_ << 1) | (taken ? 1 : 0);
        if (hist_ & (uint64_t{1} << 31)) {
          Emit(Message::ResourceFull(kRcodeHist, hist_), false);
          hist_ = 1;
        }
      } else if (taken) {
        Emit(Message::DirectBranch(icnt_), false);
        icnt_ = 0;
      }
    } else if (IsUninferable(beat.itype) && !seq) {
      pend_ = true;
      pend_btype_ = kBtypeJump;
      pred_valid_ = false;
    }
    if (config_.features.implicit_return_depth > 0) {
      const uint64_t link = (a + 2 * h) & mask;
      const IType t = beat.itype;
      if ((t == IType::kReturn || t == IType::kCoroutineSwap) && ras_n_ > 0) {
        pred_ = ras_[--ras_n_];
        pred_valid_ = true;
      }
      if (t == IType::kIndirectCall || t == IType::kDirectCall || t == IType::kCoroutineSwap) {
        Push(link);
      }
      if (seq) pred_valid_ = false;
    }
    sj_rd_ = config_.features.sequential_jump ? SequentialSetterRd(beat.insn) : 0;
  }
  // 4. Sync counter.
  if (config_.sync_mode == 1) syncctr_ += beat_records_;
  if (config_.sync_mode == 3) syncctr_ += h;
}

void ReferenceEncoder::Close() {
  if (!tracing_) return;
  const bool htm = config_.mode == TraceMode::kHtm;
  Emit(Message::ProgTraceCorrelation(kEvTraceDisabled, htm ? 1 : 0, icnt_, hist_), false);
  CleanState();
  tracing_ = false;
  opening_ = false;
  recovering_ = false;
}

}  // namespace ctte::oracle
