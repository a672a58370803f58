// The reconstructor's decoded-instruction cache (private to oracle/reconstruct.cc): decoded
// instructions per 4 KiB page in a hash map of pages, a lookup is one compare while the walk
// stays in a page. Each slot also keeps its straight-line run (oracle/reconstruct_run.h),
// computed the first time the walk asks for it.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "oracle/insn.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reconstruct_run.h"

namespace ctte::oracle {

namespace reconstruct_detail {

enum Kind : uint8_t { kSeq, kBranch, kJump, kIndirect, kTrapRet, kIllegal, kUnmapped };

struct Decoded {
  int32_t offset = 0;
  uint8_t size = 0;
  uint8_t kind = kUnmapped;
  uint8_t itype = 0;
  uint8_t valid = 0;
  SeqRun run;  ///< the straight-line run from here (kind kSeq), in the same cache line
};

}  // namespace reconstruct_detail

using reconstruct_detail::Decoded;
using reconstruct_detail::SeqRun;
static_assert(sizeof(Decoded) == 16, "a slot is 16 bytes: four per cache line");

class Reconstructor::InsnCache {
 public:
  static constexpr int kPageBits = 12;
  static constexpr uint64_t kSlots = (1u << kPageBits) / 2;

  InsnCache(const ProgramImage& image, Xlen xlen) : image_(image), xlen_(xlen) {}

  const Decoded& Get(uint64_t pc) {
    const uint64_t page = pc >> kPageBits;
    if (page != last_page_) {
      auto it = pages_.find(page);
      if (it == pages_.end()) {
        uint32_t raw;
        if (!image_.FetchInsn(pc, &raw)) return unmapped_;  // no page for unmapped memory
        it = pages_.emplace(page, std::make_unique<Page>()).first;
      }
      last_page_ = page;
      last_ = it->second.get();
    }
    Decoded& d = last_->slot[(pc >> 1) & (kSlots - 1)];
    if (!d.valid) Fill(pc, &d);
    return d;
  }

  /// The run of sequential instructions starting at `pc`, which the last Get(pc) found to be
  /// sequential (so its page is the current one).
  const SeqRun& Run(uint64_t pc) {
    SeqRun& r = last_->slot[(pc >> 1) & (kSlots - 1)].run;
    if (!r.valid) ComputeRun(pc, &r);
    return r;
  }

 private:
  struct Page {
    Decoded slot[kSlots];
  };

  void ComputeRun(uint64_t pc, SeqRun* r) {
    const uint64_t page = pc >> kPageBits;
    unsigned n = 0, hw = 0;
    uint32_t wide = 0;
    while (n < SeqRun::kMaxRun) {
      Decoded& d = last_->slot[(pc >> 1) & (kSlots - 1)];
      if (!d.valid) Fill(pc, &d);
      if (d.kind != reconstruct_detail::kSeq || (d.size != 2 && d.size != 4)) break;
      if (d.size == 4) wide |= uint32_t{1} << n;
      hw += d.size >> 1;
      ++n;
      pc += d.size;
      if ((pc >> kPageBits) != page) break;  // the next one is in another page (or wraps)
    }
    r->n = static_cast<uint8_t>(n);
    r->hw = static_cast<uint8_t>(hw);
    r->wide = wide;
    r->valid = 1;
  }

  void Fill(uint64_t pc, Decoded* d) {
    d->valid = 1;
    uint32_t raw;
    if (!image_.FetchInsn(pc, &raw)) {
      d->kind = reconstruct_detail::kUnmapped;
      return;
    }
    const InsnInfo info = DecodeInsn(raw, xlen_);  // c.jal on RV32 is c.addiw on RV64
    d->size = info.size;
    d->offset = static_cast<int32_t>(info.offset);
    d->itype = static_cast<uint8_t>(info.itype);
    switch (info.cls) {
      case InsnClass::kSequential: d->kind = reconstruct_detail::kSeq; break;
      case InsnClass::kBranch: d->kind = reconstruct_detail::kBranch; break;
      case InsnClass::kDirectJump: d->kind = reconstruct_detail::kJump; break;
      case InsnClass::kIndirectJump: d->kind = reconstruct_detail::kIndirect; break;
      case InsnClass::kTrapReturn: d->kind = reconstruct_detail::kTrapRet; break;
      case InsnClass::kIllegal: d->kind = reconstruct_detail::kIllegal; break;
    }
  }

  const ProgramImage& image_;
  Xlen xlen_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  uint64_t last_page_ = ~0ULL;
  Page* last_ = nullptr;
  Decoded unmapped_{0, 0, reconstruct_detail::kUnmapped, 0, 1, {}};
};

}  // namespace ctte::oracle
