// The decoder side of the optional features that need more than a line in the walk
// (docs/encoder-behaviour.md sections 11.1-11.9): the return stack's push, the repeat counts' HIST
// segments, sequential jump; the walk in reconstruct.cc calls them.
#include <bit>

#include "oracle/reconstruct.h"
#include "oracle/seq_jump.h"

namespace ctte::oracle {

void Reconstructor::ApplyFeatures(const FeatureSet& f, ReconstructOptions* o) {
  o->implicit_return_depth = f.implicit_return_depth;
  o->repeated_history = f.repeated_history;
  o->repeat_branch = f.repeat_branch;
  o->sequential_jump = f.sequential_jump;
  o->full_address = f.full_address;
}

void Reconstructor::Configure(const FeatureSet& features) {
  ApplyFeatures(features, &options_);
  ras_cap_ = options_.implicit_return_depth < 32 ? options_.implicit_return_depth : 32;
  ras_n_ = stale_n_ = 0;
  ForgetPrevious();
}

void Reconstructor::RasPush(uint64_t link) {
  if (ras_n_ == ras_cap_) {  // full: the oldest entry is evicted (section 11.1)
    for (uint32_t i = 1; i < ras_cap_; ++i) ras_[i - 1] = ras_[i];
    --ras_n_;
    if (stale_n_ > 0) --stale_n_;
  }
  ras_[ras_n_++] = link + (Corrupting() ? 2 : 0);
}

uint64_t Reconstructor::ShortRepeat() const {
  const uint64_t k = options_.test_short_repeats_after_anchor;
  return k != 0 && anchors_ >= k ? 1 : 0;
}

bool Reconstructor::AddHist(uint64_t hist, uint32_t repeat, const Message& msg) {
  if (hist == 0) {
    Fail(msg, "HIST 0 has no stop bit");
    return false;
  }
  if (hist_.size() >= (1u << 20)) {
    Fail(msg, "more than 2^20 HIST segments before one I-CNT");
    return false;
  }
  const int n = 63 - std::countl_zero(hist);
  if (n > 0) hist_.push_back({hist & ~(1ULL << n), static_cast<uint8_t>(n), repeat});
  return true;
}

// The jalr at `pc` was just walked (it is buf_'s last entry); the instruction walked before it
// is the entry before, which survives a Flush() of the full buffer (it is only overwritten).
// A partial Flush() comes from Mark(), after a Lose() that set sj_from_ past it, and from the
// straight-line fast path, before a run's first (sequential) instruction, which is no jalr.
bool Reconstructor::SequentialTarget(uint64_t pc, uint64_t* target) {
  if (!options_.sequential_jump || Corrupting()) return false;
  const uint64_t index = pcs_total_ + nbuf_ - 1;  // of the jalr
  if (index == 0 || index - 1 < sj_from_) return false;
  const size_t at = nbuf_ == 0 ? kBuf - 1 : nbuf_ - 1;  // the jalr's slot
  const uint64_t prev = at == 0 ? buf_[kBuf - 1] : buf_[at - 1];
  uint32_t setter = 0, jalr = 0;
  if (!image_.FetchInsn(prev, &setter) || !image_.FetchInsn(pc, &jalr)) return false;
  const uint8_t rd = SequentialSetterRd(setter);
  if (rd == 0 || JalrRs1(jalr) != rd) return false;
  *target = oracle::SequentialTarget(setter, prev, jalr);
  return true;
}

}  // namespace ctte::oracle
