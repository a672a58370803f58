// The ISS's instruction semantics: one switch over 32-bit encodings (compressed ones arrive
// already expanded), RV64I + M + A + Zicsr + mret. Control transfers set itype_ by the trace
// link-register rules (JalIType/JalrIType of oracle/insn.h, constexpr so they inline).
#include <cstdint>

#include "oracle/insn.h"
#include "oracle/iss_impl.h"

namespace ctte::oracle {

using namespace iss_internal;  // NOLINT(google-build-using-namespace): our private header

namespace {

constexpr int64_t Sext(uint64_t x, int bits) {
  const uint64_t m = 1ULL << (bits - 1);
  x &= (1ULL << bits) - 1;
  return static_cast<int64_t>((x ^ m) - m);
}
constexpr uint32_t Bits(uint32_t x, int hi, int lo) {
  return (x >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr uint64_t Sx32(uint64_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}

__extension__ typedef __int128 I128;
__extension__ typedef unsigned __int128 U128;

uint64_t MulH(int64_t a, int64_t b) {
  return static_cast<uint64_t>((static_cast<I128>(a) * b) >> 64);
}
uint64_t MulHU(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<U128>(a) * b) >> 64);
}
uint64_t MulHSU(int64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<I128>(a) * static_cast<I128>(b)) >> 64);
}
uint64_t Div(int64_t a, int64_t b) {
  if (b == 0) return ~0ULL;
  if (a == INT64_MIN && b == -1) return static_cast<uint64_t>(a);
  return static_cast<uint64_t>(a / b);
}
uint64_t Rem(int64_t a, int64_t b) {
  if (b == 0) return static_cast<uint64_t>(a);
  if (a == INT64_MIN && b == -1) return 0;
  return static_cast<uint64_t>(a % b);
}
uint64_t DivW(int32_t a, int32_t b) {
  if (b == 0) return ~0ULL;
  if (a == INT32_MIN && b == -1) return Sx32(static_cast<uint32_t>(a));
  return Sx32(static_cast<uint32_t>(a / b));
}
uint64_t RemW(int32_t a, int32_t b) {
  if (b == 0) return Sx32(static_cast<uint32_t>(a));
  if (a == INT32_MIN && b == -1) return 0;
  return Sx32(static_cast<uint32_t>(a % b));
}

}  // namespace

bool Iss::Impl::Execute(uint32_t w, uint64_t pc, uint8_t size) {
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), rs2 = Bits(w, 24, 20);
  const uint32_t f3 = Bits(w, 14, 12), f7 = Bits(w, 31, 25);
  const uint64_t a = x_[rs1], b = x_[rs2];
  const int64_t imm_i = static_cast<int32_t>(w) >> 20;
  next_pc_ = pc + size;
  itype_ = IType::kNone;
  switch (w & 0x7f) {
    case 0x37:  // lui
      x_[rd] = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(w & 0xfffff000)));
      return true;
    case 0x17:  // auipc
      x_[rd] =
          pc + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(w & 0xfffff000)));
      return true;
    case 0x6f: {  // jal
      const int64_t off = Sext(Bits(w, 31, 31) << 20 | Bits(w, 19, 12) << 12 |
                                   Bits(w, 20, 20) << 11 | Bits(w, 30, 21) << 1,
                               21);
      x_[rd] = pc + size;
      next_pc_ = pc + static_cast<uint64_t>(off);
      itype_ = JalIType(rd);
      return true;
    }
    case 0x67: {  // jalr
      if (f3 != 0) break;
      next_pc_ = (a + static_cast<uint64_t>(imm_i)) & ~1ULL;
      x_[rd] = pc + size;
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
          taken = static_cast<int64_t>(a) < static_cast<int64_t>(b);
          break;
        case 5:
          taken = static_cast<int64_t>(a) >= static_cast<int64_t>(b);
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
        next_pc_ = pc + static_cast<uint64_t>(off);
        itype_ = IType::kTakenBranch;
      } else {
        itype_ = IType::kNotTakenBranch;
      }
      return true;
    }
    case 0x03: {  // loads (misaligned ones complete, as on QEMU)
      const uint64_t addr = a + static_cast<uint64_t>(imm_i);
      switch (f3) {
        case 0: {
          int8_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = static_cast<uint64_t>(v);
          return true;
        }
        case 1: {
          int16_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = static_cast<uint64_t>(v);
          return true;
        }
        case 2: {
          int32_t v;
          if (!Load(addr, &v)) return false;
          x_[rd] = static_cast<uint64_t>(v);
          return true;
        }
        case 3: {
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
      const uint64_t addr = a + static_cast<uint64_t>(off);
      switch (f3) {
        case 0:
          return Store(addr, static_cast<uint8_t>(b));
        case 1:
          return Store(addr, static_cast<uint16_t>(b));
        case 2:
          return Store(addr, static_cast<uint32_t>(b));
        case 3:
          return Store(addr, b);
        default:
          break;
      }
      break;
    }
    case 0x13: {  // op-imm
      const uint64_t imm = static_cast<uint64_t>(imm_i);
      const uint32_t shamt = Bits(w, 25, 20);
      switch (f3) {
        case 0:
          x_[rd] = a + imm;
          return true;
        case 1:
          if (Bits(w, 31, 26) != 0) break;
          x_[rd] = a << shamt;
          return true;
        case 2:
          x_[rd] = static_cast<int64_t>(a) < imm_i;
          return true;
        case 3:
          x_[rd] = a < imm;
          return true;
        case 4:
          x_[rd] = a ^ imm;
          return true;
        case 5:
          if (Bits(w, 31, 26) == 0) {
            x_[rd] = a >> shamt;
            return true;
          }
          if (Bits(w, 31, 26) == 0x10) {
            x_[rd] = static_cast<uint64_t>(static_cast<int64_t>(a) >> shamt);
            return true;
          }
          break;
        case 6:
          x_[rd] = a | imm;
          return true;
        default:
          x_[rd] = a & imm;
          return true;
      }
      break;
    }
    case 0x1b: {  // op-imm-32
      const uint32_t shamt = Bits(w, 24, 20);
      const uint32_t a32 = static_cast<uint32_t>(a);
      if (f3 == 0) {
        x_[rd] = Sx32(a + static_cast<uint64_t>(imm_i));
        return true;
      }
      if (f3 == 1 && f7 == 0) {
        x_[rd] = Sx32(a32 << shamt);
        return true;
      }
      if (f3 == 5 && f7 == 0) {
        x_[rd] = Sx32(a32 >> shamt);
        return true;
      }
      if (f3 == 5 && f7 == 0x20) {
        x_[rd] = Sx32(static_cast<uint32_t>(static_cast<int32_t>(a32) >> shamt));
        return true;
      }
      break;
    }
    case 0x33: {  // op
      const int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
      if (f7 == 0) {
        switch (f3) {
          case 0:
            x_[rd] = a + b;
            return true;
          case 1:
            x_[rd] = a << (b & 63);
            return true;
          case 2:
            x_[rd] = sa < sb;
            return true;
          case 3:
            x_[rd] = a < b;
            return true;
          case 4:
            x_[rd] = a ^ b;
            return true;
          case 5:
            x_[rd] = a >> (b & 63);
            return true;
          case 6:
            x_[rd] = a | b;
            return true;
          default:
            x_[rd] = a & b;
            return true;
        }
      }
      if (f7 == 0x20) {
        if (f3 == 0) {
          x_[rd] = a - b;
          return true;
        }
        if (f3 == 5) {
          x_[rd] = static_cast<uint64_t>(sa >> (b & 63));
          return true;
        }
        break;
      }
      if (f7 == 1) {
        switch (f3) {
          case 0:
            x_[rd] = a * b;
            return true;
          case 1:
            x_[rd] = MulH(sa, sb);
            return true;
          case 2:
            x_[rd] = MulHSU(sa, b);
            return true;
          case 3:
            x_[rd] = MulHU(a, b);
            return true;
          case 4:
            x_[rd] = Div(sa, sb);
            return true;
          case 5:
            x_[rd] = b == 0 ? ~0ULL : a / b;
            return true;
          case 6:
            x_[rd] = Rem(sa, sb);
            return true;
          default:
            x_[rd] = b == 0 ? a : a % b;
            return true;
        }
      }
      break;
    }
    case 0x3b: {  // op-32
      const uint32_t a32 = static_cast<uint32_t>(a), b32 = static_cast<uint32_t>(b);
      const int32_t sa = static_cast<int32_t>(a32), sb = static_cast<int32_t>(b32);
      if (f7 == 0) {
        if (f3 == 0) {
          x_[rd] = Sx32(a32 + b32);
          return true;
        }
        if (f3 == 1) {
          x_[rd] = Sx32(a32 << (b32 & 31));
          return true;
        }
        if (f3 == 5) {
          x_[rd] = Sx32(a32 >> (b32 & 31));
          return true;
        }
        break;
      }
      if (f7 == 0x20) {
        if (f3 == 0) {
          x_[rd] = Sx32(a32 - b32);
          return true;
        }
        if (f3 == 5) {
          x_[rd] = Sx32(static_cast<uint32_t>(sa >> (b32 & 31)));
          return true;
        }
        break;
      }
      if (f7 == 1) {
        switch (f3) {
          case 0:
            x_[rd] = Sx32(a32 * b32);
            return true;
          case 4:
            x_[rd] = DivW(sa, sb);
            return true;
          case 5:
            x_[rd] = b32 == 0 ? ~0ULL : Sx32(a32 / b32);
            return true;
          case 6:
            x_[rd] = RemW(sa, sb);
            return true;
          case 7:
            x_[rd] = b32 == 0 ? Sx32(a32) : Sx32(a32 % b32);
            return true;
          default:
            break;
        }
      }
      break;
    }
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

bool Iss::Impl::Illegal(uint32_t w, uint8_t size) {
  exc_cause_ = 2;
  exc_tval_ = size == 2 ? raw16_ : w;
  return false;
}

bool Iss::Impl::Amo(uint32_t w, uint8_t size) {
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), rs2 = Bits(w, 24, 20);
  const uint32_t f3 = Bits(w, 14, 12), f5 = Bits(w, 31, 27);
  if (f3 != 2 && f3 != 3) return Illegal(w, size);
  const bool dw = f3 == 3;
  const uint64_t addr = x_[rs1], src = x_[rs2];
  const uint64_t align = dw ? 7 : 3;
  if (f5 == 0x02) {  // lr
    if (rs2 != 0) return Illegal(w, size);
    if ((addr & align) != 0) {
      exc_cause_ = 4;
      exc_tval_ = addr;
      return false;
    }
    uint64_t v;
    if (dw) {
      if (!Load(addr, &v)) return false;
    } else {
      int32_t v32;
      if (!Load(addr, &v32)) return false;
      v = static_cast<uint64_t>(static_cast<int64_t>(v32));
    }
    x_[rd] = v;
    res_valid_ = true;
    res_addr_ = addr;
    return true;
  }
  if (f5 == 0x03) {  // sc: as QEMU, a failing SC (no matching reservation) touches no memory
    if (!res_valid_ || res_addr_ != addr) {
      res_valid_ = false;
      x_[rd] = 1;
      return true;
    }
    if ((addr & align) != 0) {
      exc_cause_ = 6;
      exc_tval_ = addr;
      return false;
    }
    res_valid_ = false;
    if (!(dw ? Store(addr, src) : Store(addr, static_cast<uint32_t>(src)))) return false;
    x_[rd] = 0;
    return true;
  }
  switch (f5) {
    case 0x01:
    case 0x00:
    case 0x04:
    case 0x0c:
    case 0x08:
    case 0x10:
    case 0x14:
    case 0x18:
    case 0x1c:
      break;
    default:
      return Illegal(w, size);
  }
  if ((addr & align) != 0) {
    exc_cause_ = 6;
    exc_tval_ = addr;
    return false;
  }
  uint64_t old;
  if (dw) {
    if (!Load(addr, &old)) return false;
  } else {
    int32_t v32;
    if (!Load(addr, &v32)) return false;
    old = static_cast<uint64_t>(static_cast<int64_t>(v32));
  }
  const uint64_t o = dw ? old : Sx32(old), s = dw ? src : Sx32(src);
  const uint64_t uo = dw ? old : (old & 0xffffffffULL), us = dw ? src : (src & 0xffffffffULL);
  uint64_t r;
  switch (f5) {
    case 0x01:
      r = s;
      break;
    case 0x00:
      r = o + s;
      break;
    case 0x04:
      r = o ^ s;
      break;
    case 0x0c:
      r = o & s;
      break;
    case 0x08:
      r = o | s;
      break;
    case 0x10:
      r = static_cast<int64_t>(o) < static_cast<int64_t>(s) ? o : s;
      break;
    case 0x14:
      r = static_cast<int64_t>(o) > static_cast<int64_t>(s) ? o : s;
      break;
    case 0x18:
      r = uo < us ? o : s;
      break;
    default:
      r = uo > us ? o : s;
      break;
  }
  if (!(dw ? Store(addr, r) : Store(addr, static_cast<uint32_t>(r)))) {
    exc_cause_ = 7;
    return false;
  }
  x_[rd] = old;
  return true;
}

bool Iss::Impl::Csr(uint32_t w, uint8_t size) {
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), f3 = Bits(w, 14, 12);
  const uint32_t csr = Bits(w, 31, 20);
  if (f3 == 4) return Illegal(w, size);
  const uint64_t operand = (f3 & 4) != 0 ? rs1 : x_[rs1];
  const bool writes = (f3 & 3) == 1 || rs1 != 0;
  if (writes && (csr >> 10) == 3) return Illegal(w, size);  // read-only CSR
  uint64_t* reg = nullptr;
  uint64_t old;
  uint64_t wmask = ~0ULL;
  const uint64_t instret = retired_;
  switch (csr) {
    case 0x300:
      old = csr_.mstatus;
      reg = &csr_.mstatus;
      wmask = kMstatusMie | kMstatusMpie;
      break;
    case 0x301:
      old = kMisa;
      wmask = 0;
      break;
    case 0x304:
      old = csr_.mie;
      reg = &csr_.mie;
      wmask = kMieMask;
      break;
    case 0x305:
      old = csr_.mtvec;
      reg = &csr_.mtvec;
      break;
    case 0x306:
      old = csr_.mcounteren;
      reg = &csr_.mcounteren;
      wmask = 0xffffffffULL;
      break;
    case 0x320:
      old = csr_.mcountinhibit;
      reg = &csr_.mcountinhibit;
      wmask = 0xfffffffdULL;
      break;
    case 0x340:
      old = csr_.mscratch;
      reg = &csr_.mscratch;
      break;
    case 0x341:
      old = csr_.mepc;
      reg = &csr_.mepc;
      wmask = ~1ULL;
      break;
    case 0x342:
      old = csr_.mcause;
      reg = &csr_.mcause;
      break;
    case 0x343:
      old = csr_.mtval;
      reg = &csr_.mtval;
      break;
    case 0x344:
      old = csr_.mip;
      wmask = 0;
      break;  // MSIP is set/cleared through the CLINT
    case 0xb00:
    case 0xc00:
    case 0xc01:
      old = instret + csr_.mcycle_offset;
      break;
    case 0xb02:
    case 0xc02:
      old = instret + csr_.minstret_offset;
      break;
    case 0xf11:
    case 0xf12:
    case 0xf13:
    case 0xf14:
    case 0xf15:
      old = 0;
      break;
    default:
      return Illegal(w, size);
  }
  if (writes) {
    uint64_t v;
    switch (f3 & 3) {
      case 1:
        v = operand;
        break;
      case 2:
        v = old | operand;
        break;
      default:
        v = old & ~operand;
        break;
    }
    if (csr == 0xb00) {
      csr_.mcycle_offset = v - instret - 1;  // the write is seen after this instruction retires
    } else if (csr == 0xb02) {
      csr_.minstret_offset = v - instret - 1;
    } else if (csr == 0x305) {
      if ((v & 3) < 2) csr_.mtvec = v;  // as QEMU: reserved modes leave mtvec unchanged
    } else if (reg != nullptr) {
      *reg = (*reg & ~wmask) | (v & wmask);
    }
  }
  x_[rd] = old;
  return true;
}

}  // namespace ctte::oracle
