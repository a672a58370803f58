// RV64IMAC + Zicsr decoding for trace: size, control-flow class, itype and direct target.
//
// How: a compressed instruction is first expanded to its 32-bit equivalent (ExpandCompressed,
// also used by the ISS), so classification is written once, on 32-bit encodings. jal/jalr are
// classified by the rd/rs1 link-register rules of the RISC-V trace specifications (link = x1 or
// x5): see IType in oracle/retired.h.
#include "oracle/insn.h"

namespace ctte::oracle {
namespace {

constexpr uint32_t Bits(uint32_t x, int hi, int lo) {
  return (x >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr int64_t SignExtend(uint64_t x, int bits) {
  const uint64_t m = 1ULL << (bits - 1);
  x &= (bits == 64) ? ~0ULL : ((1ULL << bits) - 1);
  return static_cast<int64_t>((x ^ m) - m);
}

// 32-bit encoders used by the expansion.
constexpr uint32_t EncR(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, uint32_t rs2,
                        uint32_t f7) {
  return op | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25;
}
constexpr uint32_t EncI(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, int32_t imm) {
  return op | rd << 7 | f3 << 12 | rs1 << 15 | (static_cast<uint32_t>(imm) & 0xfff) << 20;
}
constexpr uint32_t EncS(uint32_t op, uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return op | (u & 0x1f) << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | ((u >> 5) & 0x7f) << 25;
}
constexpr uint32_t EncB(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return 0x63 | ((u >> 11) & 1) << 7 | ((u >> 1) & 0xf) << 8 | f3 << 12 | rs1 << 15 | rs2 << 20 |
         ((u >> 5) & 0x3f) << 25 | ((u >> 12) & 1) << 31;
}
constexpr uint32_t EncJ(uint32_t rd, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return 0x6f | rd << 7 | ((u >> 12) & 0xff) << 12 | ((u >> 11) & 1) << 20 |
         ((u >> 1) & 0x3ff) << 21 | ((u >> 20) & 1) << 31;
}
constexpr uint32_t EncU(uint32_t op, uint32_t rd, int32_t imm20) {
  return op | rd << 7 | (static_cast<uint32_t>(imm20) & 0xfffff) << 12;
}

// The jump offset of c.j / c.jal.
int32_t CjOffset(uint32_t x) {
  return static_cast<int32_t>(
      SignExtend(Bits(x, 12, 12) << 11 | Bits(x, 11, 11) << 4 | Bits(x, 10, 9) << 8 |
                     Bits(x, 8, 8) << 10 | Bits(x, 7, 7) << 6 | Bits(x, 6, 6) << 7 |
                     Bits(x, 5, 3) << 1 | Bits(x, 2, 2) << 5,
                 12));
}

bool ValidAmo(uint32_t raw, bool rv32) {
  const uint32_t f3 = Bits(raw, 14, 12), f5 = Bits(raw, 31, 27);
  if (f3 != 2 && (f3 != 3 || rv32)) return false;
  switch (f5) {
    case 0x02:
      return Bits(raw, 24, 20) == 0;  // lr: rs2 must be 0
    case 0x03:
    case 0x01:
    case 0x00:
    case 0x04:
    case 0x0c:
    case 0x08:
    case 0x10:
    case 0x14:
    case 0x18:
    case 0x1c:
      return true;
    default:
      return false;
  }
}

// Validity of a 32-bit encoding other than jal/jalr/branch (handled by the caller).
bool ValidOther(uint32_t raw, bool rv32) {
  const uint32_t op = raw & 0x7f, f3 = Bits(raw, 14, 12), f7 = Bits(raw, 31, 25);
  switch (op) {
    case 0x37:
    case 0x17:
      return true;  // lui, auipc
    case 0x03:
      if (rv32) return f3 != 3 && f3 != 6 && f3 != 7;  // no ld, lwu
      return f3 != 7;                                  // loads
    case 0x23:
      return f3 <= (rv32 ? 2u : 3u);  // stores (RV32: no sd)
    case 0x13:                        // op-imm
      if (rv32) {                     // 5-bit shift amounts
        if (f3 == 1) return f7 == 0;
        if (f3 == 5) return f7 == 0 || f7 == 0x20;
        return true;
      }
      if (f3 == 1) return Bits(raw, 31, 26) == 0;
      if (f3 == 5) return Bits(raw, 31, 26) == 0 || Bits(raw, 31, 26) == 0x10;
      return true;
    case 0x1b:  // op-imm-32
      if (rv32) return false;
      if (f3 == 0) return true;
      if (f3 == 1) return f7 == 0;
      if (f3 == 5) return f7 == 0 || f7 == 0x20;
      return false;
    case 0x33:  // op
      if (f7 == 0 || f7 == 1) return true;
      return f7 == 0x20 && (f3 == 0 || f3 == 5);
    case 0x3b:  // op-32
      if (rv32) return false;
      if (f7 == 0) return f3 == 0 || f3 == 1 || f3 == 5;
      if (f7 == 0x20) return f3 == 0 || f3 == 5;
      if (f7 == 1) return f3 == 0 || f3 >= 4;
      return false;
    case 0x0f:
      return f3 == 0 || f3 == 1;  // fence, fence.i
    case 0x2f:
      return ValidAmo(raw, rv32);
    case 0x73:
      if (f3 == 0) {
        return raw == 0x00000073 || raw == 0x00100073 || raw == 0x30200073 ||
               raw == 0x10500073;  // ecall, ebreak, mret, wfi
      }
      return f3 != 4;  // csr*
    default:
      return false;
  }
}

}  // namespace

uint32_t ExpandCompressed(uint16_t c, Xlen xlen) {
  const bool rv32 = xlen == Xlen::k32;
  const uint32_t x = c;
  const uint32_t f3 = Bits(x, 15, 13);
  const uint32_t rd = Bits(x, 11, 7), rs2 = Bits(x, 6, 2);
  const uint32_t rdp = 8 + Bits(x, 4, 2), rs1p = 8 + Bits(x, 9, 7);
  switch (x & 3) {
    case 0:
      switch (f3) {
        case 0: {  // c.addi4spn
          const uint32_t imm =
              Bits(x, 12, 11) << 4 | Bits(x, 10, 7) << 6 | Bits(x, 6, 6) << 2 | Bits(x, 5, 5) << 3;
          if (imm == 0) return 0;
          return EncI(0x13, rdp, 0, 2, static_cast<int32_t>(imm));
        }
        case 2: {  // c.lw
          const uint32_t imm = Bits(x, 12, 10) << 3 | Bits(x, 6, 6) << 2 | Bits(x, 5, 5) << 6;
          return EncI(0x03, rdp, 2, rs1p, static_cast<int32_t>(imm));
        }
        case 3: {  // c.ld (RV32: c.flw, no F)
          if (rv32) return 0;
          const uint32_t imm = Bits(x, 12, 10) << 3 | Bits(x, 6, 5) << 6;
          return EncI(0x03, rdp, 3, rs1p, static_cast<int32_t>(imm));
        }
        case 6: {  // c.sw
          const uint32_t imm = Bits(x, 12, 10) << 3 | Bits(x, 6, 6) << 2 | Bits(x, 5, 5) << 6;
          return EncS(0x23, 2, rs1p, rdp, static_cast<int32_t>(imm));
        }
        case 7: {  // c.sd (RV32: c.fsw, no F)
          if (rv32) return 0;
          const uint32_t imm = Bits(x, 12, 10) << 3 | Bits(x, 6, 5) << 6;
          return EncS(0x23, 3, rs1p, rdp, static_cast<int32_t>(imm));
        }
        default:
          return 0;  // c.fld/c.fsd (no D), reserved
      }
    case 1: {
      const int32_t imm6 =
          static_cast<int32_t>(SignExtend(Bits(x, 12, 12) << 5 | Bits(x, 6, 2), 6));
      switch (f3) {
        case 0:
          return EncI(0x13, rd, 0, rd, imm6);  // c.addi / c.nop
        case 1:
          if (rv32) return EncJ(1, CjOffset(x));              // c.jal (RV32 only)
          return rd == 0 ? 0 : EncI(0x1b, rd, 0, rd, imm6);  // c.addiw
        case 2:
          return EncI(0x13, rd, 0, 0, imm6);  // c.li
        case 3:
          if (rd == 2) {  // c.addi16sp
            const int32_t imm = static_cast<int32_t>(
                SignExtend(Bits(x, 12, 12) << 9 | Bits(x, 6, 6) << 4 | Bits(x, 5, 5) << 6 |
                               Bits(x, 4, 3) << 7 | Bits(x, 2, 2) << 5,
                           10));
            if (imm == 0) return 0;
            return EncI(0x13, 2, 0, 2, imm);
          }
          if (imm6 == 0) return 0;
          return EncU(0x37, rd, imm6);  // c.lui
        case 4: {
          const uint32_t f2 = Bits(x, 11, 10);
          const uint32_t shamt = Bits(x, 12, 12) << 5 | Bits(x, 6, 2);
          if (rv32 && f2 < 2 && Bits(x, 12, 12) != 0) return 0;  // shamt[5]: reserved on RV32
          if (f2 == 0) return EncI(0x13, rs1p, 5, rs1p, static_cast<int32_t>(shamt));  // c.srli
          if (f2 == 1) {
            return EncI(0x13, rs1p, 5, rs1p, static_cast<int32_t>(shamt | 0x400));  // c.srai
          }
          if (f2 == 2) return EncI(0x13, rs1p, 7, rs1p, imm6);  // c.andi
          const uint32_t f = Bits(x, 6, 5), r2 = 8 + Bits(x, 4, 2);
          if (Bits(x, 12, 12) == 0) {
            static constexpr uint32_t kF3[4] = {0, 4, 6, 7};
            return EncR(0x33, rs1p, kF3[f], rs1p, r2, f == 0 ? 0x20 : 0);  // sub xor or and
          }
          if (rv32) return 0;                                      // no c.subw/c.addw
          if (f == 0) return EncR(0x3b, rs1p, 0, rs1p, r2, 0x20);  // c.subw
          if (f == 1) return EncR(0x3b, rs1p, 0, rs1p, r2, 0);     // c.addw
          return 0;
        }
        case 5:  // c.j
          return EncJ(0, CjOffset(x));
        default: {  // c.beqz, c.bnez
          const int32_t imm = static_cast<int32_t>(
              SignExtend(Bits(x, 12, 12) << 8 | Bits(x, 11, 10) << 3 | Bits(x, 6, 5) << 6 |
                             Bits(x, 4, 3) << 1 | Bits(x, 2, 2) << 5,
                         9));
          return EncB(f3 == 6 ? 0 : 1, rs1p, 0, imm);
        }
      }
    }
    case 2:
      switch (f3) {
        case 0:
          if (rv32 && Bits(x, 12, 12) != 0) return 0;  // shamt[5]: reserved on RV32
          return EncI(0x13, rd, 1, rd,
                      static_cast<int32_t>(Bits(x, 12, 12) << 5 | Bits(x, 6, 2)));  // c.slli
        case 2: {                                                                   // c.lwsp
          if (rd == 0) return 0;
          const uint32_t imm = Bits(x, 12, 12) << 5 | Bits(x, 6, 4) << 2 | Bits(x, 3, 2) << 6;
          return EncI(0x03, rd, 2, 2, static_cast<int32_t>(imm));
        }
        case 3: {  // c.ldsp (RV32: c.flwsp, no F)
          if (rv32 || rd == 0) return 0;
          const uint32_t imm = Bits(x, 12, 12) << 5 | Bits(x, 6, 5) << 3 | Bits(x, 4, 2) << 6;
          return EncI(0x03, rd, 3, 2, static_cast<int32_t>(imm));
        }
        case 4:
          if (Bits(x, 12, 12) == 0) {
            if (rs2 == 0) return rd == 0 ? 0 : EncI(0x67, 0, 0, rd, 0);  // c.jr
            return EncR(0x33, rd, 0, 0, rs2, 0);                         // c.mv
          }
          if (rs2 == 0) {
            if (rd == 0) return 0x00100073;  // c.ebreak
            return EncI(0x67, 1, 0, rd, 0);  // c.jalr
          }
          return EncR(0x33, rd, 0, rd, rs2, 0);  // c.add
        case 6: {                                // c.swsp
          const uint32_t imm = Bits(x, 12, 9) << 2 | Bits(x, 8, 7) << 6;
          return EncS(0x23, 2, 2, rs2, static_cast<int32_t>(imm));
        }
        case 7: {  // c.sdsp (RV32: c.fswsp, no F)
          if (rv32) return 0;
          const uint32_t imm = Bits(x, 12, 10) << 3 | Bits(x, 9, 7) << 6;
          return EncS(0x23, 3, 2, rs2, static_cast<int32_t>(imm));
        }
        default:
          return 0;
      }
    default:
      return 0;  // not compressed
  }
}

InsnInfo DecodeInsn(uint32_t raw, Xlen xlen) {
  InsnInfo info;
  info.size = InsnSize(static_cast<uint16_t>(raw));
  uint32_t w = raw;
  if (info.size == 2) {
    w = ExpandCompressed(static_cast<uint16_t>(raw), xlen);
    if (w == 0) {
      info.cls = InsnClass::kIllegal;
      return info;
    }
  }
  const uint32_t op = w & 0x7f;
  const uint32_t rd = Bits(w, 11, 7), rs1 = Bits(w, 19, 15), f3 = Bits(w, 14, 12);
  switch (op) {
    case 0x6f:
      info.cls = InsnClass::kDirectJump;
      info.rd = static_cast<uint8_t>(rd);
      info.itype = JalIType(rd);
      info.offset = SignExtend(Bits(w, 31, 31) << 20 | Bits(w, 19, 12) << 12 |
                                   Bits(w, 20, 20) << 11 | Bits(w, 30, 21) << 1,
                               21);
      return info;
    case 0x67:
      if (f3 != 0) break;
      info.cls = InsnClass::kIndirectJump;
      info.rd = static_cast<uint8_t>(rd);
      info.rs1 = static_cast<uint8_t>(rs1);
      info.itype = JalrIType(rd, rs1);
      info.offset = SignExtend(Bits(w, 31, 20), 12);
      return info;
    case 0x63:
      if (f3 == 2 || f3 == 3) break;
      info.cls = InsnClass::kBranch;
      info.itype = IType::kTakenBranch;
      info.rs1 = static_cast<uint8_t>(rs1);
      info.offset = SignExtend(
          Bits(w, 31, 31) << 12 | Bits(w, 7, 7) << 11 | Bits(w, 30, 25) << 5 | Bits(w, 11, 8) << 1,
          13);
      return info;
    default:
      if (!ValidOther(w, xlen == Xlen::k32)) break;
      if (w == 0x30200073) {
        info.cls = InsnClass::kTrapReturn;
        info.itype = IType::kTrapReturn;
      }
      return info;
  }
  info.cls = InsnClass::kIllegal;
  return info;
}

}  // namespace ctte::oracle
