// The ISS's system instructions (oracle/iss_execute.cc dispatches here): the A extension
// (LR/SC and AMOs, with QEMU's misalignment behaviour) and Zicsr (the M-mode CSR file), plus the
// illegal-instruction exit.
#include <cstdint>

#include "oracle/insn.h"
#include "oracle/iss_impl.h"

namespace ctte::oracle {

using namespace iss_internal;  // NOLINT(google-build-using-namespace): our private header

namespace {

constexpr uint32_t Bits(uint32_t x, int hi, int lo) {
  return (x >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr uint64_t Sx32(uint64_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}

}  // namespace

bool Iss::Impl::Illegal(uint32_t w, uint8_t size) {
  exc_cause_ = 2;
  exc_tval_ = size == 2 ? raw16_ : w;
  return false;
}

bool Iss::Impl::Amo(uint32_t w, uint8_t size) {
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), rs2 = Bits(w, 24, 20);
  const uint32_t f3 = Bits(w, 14, 12), f5 = Bits(w, 31, 27);
  if (f3 != 2 && (f3 != 3 || rv32_)) return Illegal(w, size);  // RV32: no 64-bit AMOs
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
    x_[rd] = rv32_ ? (v & 0xffffffffULL) : v;
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
  x_[rd] = rv32_ ? (old & 0xffffffffULL) : old;
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
      old = rv32_ ? kMisa32 : kMisa64;
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
    case 0x310:  // mstatush (RV32): MBE, SBE read 0 (little-endian only); writes ignored
      if (!rv32_) return Illegal(w, size);
      old = 0;
      wmask = 0;
      break;
    case 0xb80:  // RV32: the upper halves of the counters
    case 0xc80:
    case 0xc81:
      if (!rv32_) return Illegal(w, size);
      old = (instret + csr_.mcycle_offset) >> 32;
      break;
    case 0xb82:
    case 0xc82:
      if (!rv32_) return Illegal(w, size);
      old = (instret + csr_.minstret_offset) >> 32;
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
  const uint64_t xmask = rv32_ ? 0xffffffffULL : ~0ULL;  // CSRs are XLEN bits wide
  old &= xmask;
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
    v &= xmask;
    if (csr == 0xb00 || csr == 0xb02 || csr == 0xb80 || csr == 0xb82) {
      // The write is seen after this instruction retires. RV32 writes one half of the 64-bit
      // counter (mcycle/minstret the low, mcycleh/minstreth the high) and keeps the other.
      uint64_t& offset = (csr & 2) != 0 ? csr_.minstret_offset : csr_.mcycle_offset;
      uint64_t full = v;
      if (rv32_) {
        const uint64_t now = instret + 1 + offset;
        full = (csr & 0x80) != 0 ? (v << 32) | (now & 0xffffffffULL)
                                 : (now & ~0xffffffffULL) | v;
      }
      offset = full - instret - 1;
    } else if (csr == 0x305) {
      if ((v & 3) < 2) csr_.mtvec = v;  // as QEMU: reserved modes leave mtvec unchanged
    } else if (reg != nullptr) {
      *reg = (*reg & ~wmask) | (v & wmask);
    }
  }
  x_[rd] = rv32_ ? (old & 0xffffffffULL) : old;
  return true;
}

}  // namespace ctte::oracle
