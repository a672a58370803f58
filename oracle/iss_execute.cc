// The ISS's instruction semantics: one switch over 32-bit encodings (compressed ones arrive
// already expanded), RV64I or RV32I + M + A + Zicsr + mret, for an XLEN given by the register
// type T (uint64_t: RV64, uint32_t: RV32; the integer ALU is in oracle/iss_alu.h). Registers hold
// XLEN-bit values (RV32: zero-extended in the 64-bit slots), and so do pc and addresses. Control
// transfers set itype_ by the trace link-register rules (JalIType/JalrIType of oracle/insn.h,
// constexpr so they inline). Both widths are instantiated; Iss::Step picks one per program.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "oracle/insn.h"
#include "oracle/iss_alu.h"
#include "oracle/iss_impl.h"

namespace ctte::oracle {

using namespace iss_internal;  // NOLINT(google-build-using-namespace): our private header

namespace {

constexpr int64_t Sext(uint64_t x, int bits) {
  const uint64_t m = 1ULL << (bits - 1);
  x &= (1ULL << bits) - 1;
  return static_cast<int64_t>((x ^ m) - m);
}

}  // namespace

// Inlined into StepT (into Step and StepMany): the per-instruction path is one function.
template <typename T>
__attribute__((always_inline)) inline bool Iss::Impl::Execute(uint32_t w, uint64_t pc,
                                                              uint8_t size) {
  using S = std::make_signed_t<T>;
  constexpr bool k64 = sizeof(T) == 8;
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), rs2 = Bits(w, 24, 20);
  const uint32_t f3 = Bits(w, 14, 12);
  const T a = static_cast<T>(x_[rs1]), b = static_cast<T>(x_[rs2]);
  const int64_t imm_i = static_cast<int32_t>(w) >> 20;
  next_pc_ = static_cast<T>(pc + size);
  itype_ = IType::kNone;
  switch (w & 0x7f) {
    case 0x37:  // lui
      x_[rd] = static_cast<T>(static_cast<int64_t>(static_cast<int32_t>(w & 0xfffff000)));
      return true;
    case 0x17:  // auipc
      x_[rd] = static_cast<T>(
          pc + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(w & 0xfffff000))));
      return true;
    case 0x6f: {  // jal
      const int64_t off = Sext(Bits(w, 31, 31) << 20 | Bits(w, 19, 12) << 12 |
                                   Bits(w, 20, 20) << 11 | Bits(w, 30, 21) << 1,
                               21);
      x_[rd] = static_cast<T>(pc + size);
      next_pc_ = static_cast<T>(pc + static_cast<uint64_t>(off));
      itype_ = JalIType(rd);
      return true;
    }
    case 0x67: {  // jalr
      if (f3 != 0) break;
      next_pc_ = static_cast<T>(a + static_cast<T>(imm_i)) & ~T{1};
      x_[rd] = static_cast<T>(pc + size);
      itype_ = JalrIType(rd, rs1);
      return true;
    }
    case 0x63: {  // branches
      bool taken;
      switch (f3) {
        case 0:
          taken = a == b;
          break;
        case 1:
          taken = a != b;
          break;
        case 4:
          taken = static_cast<S>(a) < static_cast<S>(b);
          break;
        case 5:
          taken = static_cast<S>(a) >= static_cast<S>(b);
          break;
        case 6:
          taken = a < b;
          break;
        case 7:
          taken = a >= b;
          break;
        default:
          return Illegal(w, size);
      }
      if (taken) {
        const int64_t off = Sext(Bits(w, 31, 31) << 12 | Bits(w, 7, 7) << 11 |
                                     Bits(w, 30, 25) << 5 | Bits(w, 11, 8) << 1,
                                 13);
        next_pc_ = static_cast<T>(pc + static_cast<uint64_t>(off));
        itype_ = IType::kTakenBranch;
      } else {
        itype_ = IType::kNotTakenBranch;
      }
      return true;
    }
    case 0x03: {  // loads (misaligned ones complete, as on QEMU)
      const T addr = static_cast<T>(a + static_cast<T>(imm_i));
      switch (f3) {
        case 0: {
          int8_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = static_cast<T>(v);
          return true;
        }
        case 1: {
          int16_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = static_cast<T>(v);
          return true;
        }
        case 2: {
          int32_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = static_cast<T>(v);
          return true;
        }
        case 3: {
          if constexpr (!k64) break;  // ld: RV64 only
          uint64_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = v;
          return true;
        }
        case 4: {
          uint8_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = v;
          return true;
        }
        case 5: {
          uint16_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = v;
          return true;
        }
        case 6: {
          if constexpr (!k64) break;  // lwu: RV64 only
          uint32_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = v;
          return true;
        }
        default:
          break;
      }
      break;
    }
    case 0x23: {  // stores
      const int64_t off = Sext(Bits(w, 31, 25) << 5 | Bits(w, 11, 7), 12);
      const T addr = static_cast<T>(a + static_cast<T>(off));
      switch (f3) {
        case 0:
          return Store(addr, static_cast<uint8_t>(b));
        case 1:
          return Store(addr, static_cast<uint16_t>(b));
        case 2:
          return Store(addr, static_cast<uint32_t>(b));
        case 3:
          if constexpr (!k64) break;  // sd: RV64 only
          return Store(addr, static_cast<uint64_t>(b));
        default:
          break;
      }
      break;
    }
    case 0x13:  // op-imm
      if (Alu<T, 0x13>(w)) return true;
      break;
    case 0x33:  // op
      if (Alu<T, 0x33>(w)) return true;
      break;
    case 0x1b:  // op-imm-32 (RV64 only: Alu<uint32_t, ...> refuses it)
      if (Alu<T, 0x1b>(w)) return true;
      break;
    case 0x3b:  // op-32
      if (Alu<T, 0x3b>(w)) return true;
      break;
    case 0x0f:  // fence, fence.i
      if (f3 == 0 || f3 == 1) return true;
      break;
    case 0x2f:
      return Amo(w, size);
    case 0x73:
      if (f3 == 0) {
        switch (w) {
          case 0x00000073:
            exc_cause_ = 11;
            exc_tval_ = 0;
            return false;  // ecall from M
          case 0x00100073:
            exc_cause_ = 3;
            exc_tval_ = pc;
            return false;  // ebreak
          case 0x10500073:
            return true;      // wfi: no-op
          case 0x30200073: {  // mret
            const uint64_t mpie = (csr_.mstatus >> 7) & 1;
            csr_.mstatus = (csr_.mstatus & ~kMstatusMie) | (mpie << 3) | kMstatusMpie;
            next_pc_ = csr_.mepc;
            itype_ = IType::kTrapReturn;
            res_valid_ = false;
            return true;
          }
          default:
            break;
        }
        break;
      }
      return Csr(w, size);
    default:
      break;
  }
  return Illegal(w, size);
}

// The per-beat path (fetch, execute, yield), kept in this file so that Fetch and Execute
// inline into it.
__attribute__((always_inline)) inline bool Iss::Impl::Fetch(uint64_t pc, uint32_t* raw,
                                                            uint32_t* w, uint8_t* size) {
  uint64_t off = pc - fetch_hit_.base;
  if (off > fetch_hit_.size - 4) {  // near the end or in another region: the slow path
    const MemRegion* r = FindRegion(pc, 2);
    if (r == nullptr) return false;
    fetch_hit_ = *r;
    off = pc - r->base;
  }
  uint16_t lo;
  std::memcpy(&lo, fetch_hit_.host + off, 2);
  if ((lo & 3) != 3) {
    *raw = lo;
    *size = 2;
    *w = expand_[lo];
    return true;
  }
  if (off > fetch_hit_.size - 4) return false;
  std::memcpy(raw, fetch_hit_.host + off, 4);
  *size = 4;
  *w = *raw;
  return true;
}

template <typename T>
__attribute__((always_inline)) inline bool Iss::Impl::StepT(Retired* out) {
  if (stop_ != StopReason::kRunning) return false;
  if (beats_ >= opts_.max_instructions) {
    stop_ = StopReason::kMaxInstructions;
    return false;
  }
  if (retired_ == next_irq_) {
    csr_.mip |= kMipMsip;
    AdvanceSchedule();
  }
  const uint64_t pc = pc_;
  if ((csr_.mip & csr_.mie & kMipMsip) != 0 && (csr_.mstatus & kMstatusMie) != 0) {
    // The machine software interrupt: mcause's top (XLEN - 1) bit set, code 3.
    constexpr uint64_t cause = (1ULL << (sizeof(T) * 8 - 1)) | 3;
    EnterTrap(cause, 0, pc);
    *out = Retired{pc, next_pc_, cause, 0, 0, 0, IType::kInterrupt, 3, false};
    pc_ = next_pc_;
    ++beats_;
    return true;
  }
  uint32_t raw = 0, w = 0;
  uint8_t size = 0;
  bool ok;
  if (!Fetch(pc, &raw, &w, &size)) {
    if (last_fetch_fault_pc_ == pc) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "fetch from unmapped 0x%" PRIx64 " (trap loop)", pc);
      fatal_ = buf;
      stop_ = StopReason::kFatal;
      return false;
    }
    last_fetch_fault_pc_ = pc;
    exc_cause_ = 1;  // instruction access fault
    exc_tval_ = pc;
    ok = false;
  } else if (w == 0) {
    exc_cause_ = 2;  // illegal instruction; mtval = the instruction bits
    exc_tval_ = raw;
    ok = false;
  } else {
    raw16_ = static_cast<uint16_t>(raw);
    ok = Execute<T>(w, pc, size);
  }
  ++beats_;
  if (!ok) {
    EnterTrap(exc_cause_, exc_tval_, pc);
    *out = Retired{pc, next_pc_, exc_cause_, exc_tval_, raw, size, IType::kException, 3, false};
    pc_ = next_pc_;
    return true;
  }
  x_[0] = 0;
  ++retired_;
  *out = Retired{pc, next_pc_, 0, 0, raw, size, itype_, 3, true};
  pc_ = next_pc_;
  return true;
}

bool Iss::Impl::Step(Retired* out) { return rv32_ ? StepT<uint32_t>(out) : StepT<uint64_t>(out); }

size_t Iss::Impl::StepMany(Retired* out, size_t n) {
  size_t k = 0;
  if (rv32_) {
    while (k < n && StepT<uint32_t>(out + k)) ++k;
  } else {
    while (k < n && StepT<uint64_t>(out + k)) ++k;
  }
  return k;
}

bool Iss::Step(Retired* out) { return impl_->Step(out); }

size_t Iss::StepMany(Retired* out, size_t n) { return impl_->StepMany(out, n); }

}  // namespace ctte::oracle
