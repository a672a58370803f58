// The reconstructor's straight-line fast path (private to oracle/reconstruct.cc, used through
// Reconstructor::InsnCache in oracle/reconstruct_cache.h).
//
// What: for an instruction slot, the run of sequential instructions (InsnClass::kSequential)
// that starts there: at most kMaxRun instructions, never past the end of the slot's 4 KiB page
// (the last one may straddle it), stopping before the first instruction that is not sequential
// (a branch, jump, trap return, illegal or unmapped half-word). The walk emits a whole run, or
// the part of it that the I-CNT covers, in one tight loop instead of one cache lookup, kind
// switch and buffer check per instruction.
// Why it gives the same PCs: each instruction of the run is decoded at the exact PC the
// one-by-one walk would reach (pc + its size), by the same cache, and a sequential instruction
// only adds its size; the walk takes the fast path only for sequential instructions that fit in
// the half-words left, so every error case (I-CNT ending inside an instruction, illegal or
// unmapped memory, HIST bits) still goes through the one-by-one walk.
#pragma once

#include <cstdint>

namespace ctte::oracle::reconstruct_detail {

struct SeqRun {
  static constexpr unsigned kMaxRun = 32;
  uint32_t wide = 0;   ///< bit i set: instruction i of the run is 4 bytes (else 2)
  uint8_t n = 0;       ///< instructions in the run (0 if the slot is not sequential)
  uint8_t hw = 0;      ///< half-words they cover (n + popcount(wide))
  uint8_t valid = 0;
};

/// Writes the PCs of the first instructions of `run` that fit in `*remaining` half-words to
/// `out` (room for SeqRun::kMaxRun), starting at `pc`; subtracts their half-words from
/// *remaining and returns how many were written. `*pc` becomes the PC after the last one,
/// unmasked (the caller applies the XLEN mask: only the step out of the page can wrap).
inline unsigned EmitSeqRun(const SeqRun& run, uint64_t* pc, uint64_t* remaining,
                           uint64_t* out) {
  uint64_t p = *pc;
  unsigned n = run.n;
  if (run.hw <= *remaining) {
    *remaining -= run.hw;
  } else {  // the I-CNT ends inside the run: only the instructions that fit
    uint64_t left = *remaining;
    unsigned k = 0;
    for (; k < n; ++k) {
      const uint64_t hw = 1 + ((run.wide >> k) & 1);
      if (hw > left) break;
      left -= hw;
    }
    n = k;
    *remaining = left;
  }
  const uint32_t wide = run.wide;
  for (unsigned i = 0; i < n; ++i) {
    out[i] = p;
    p += 2 + (((wide >> i) & 1) << 1);
  }
  *pc = p;
  return n;
}

}  // namespace ctte::oracle::reconstruct_detail
