// The decoder side of the optional features that need more than a line in the walk
// (docs/encoder-behaviour.md sections 11.7-11.9). Implicit return lives in reconstruct.cc.
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
