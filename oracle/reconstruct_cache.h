// The reconstructor's decoded-instruction cache (private to oracle/reconstruct.cc): decoded
// instructions per 4 KiB page in a hash map of pages, a lookup is one compare while the walk
// stays in a page.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "oracle/insn.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"

namespace ctte::oracle {

namespace reconstruct_detail {

enum Kind : uint8_t { kSeq, kBranch, kJump, kIndirect, kTrapRet, kIllegal, kUnmapped };

struct Decoded {
  int32_t offset = 0;
  uint8_t size = 0;
  uint8_t kind = kUnmapped;
  uint8_t itype = 0;
  uint8_t valid = 0;
};

}  // namespace reconstruct_detail

using reconstruct_detail::Decoded;

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

 private:
  struct Page {
    Decoded slot[kSlots];
  };

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
  Decoded unmapped_{0, 0, reconstruct_detail::kUnmapped, 0, 1};
};

}  // namespace ctte::oracle
