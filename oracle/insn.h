// RV64IMAC / RV32IMAC + Zicsr instruction decoding, as much as trace needs: length, control-flow class
// and direct target. Used by the ISS, the N-Trace reconstruction and the program generator.
#pragma once

#include <cstdint>

#include "oracle/retired.h"
#include "oracle/xlen.h"

namespace ctte::oracle {

enum class InsnClass : uint8_t {
  kSequential,   ///< no control transfer (includes ecall/ebreak: they trap, they do not jump)
  kBranch,       ///< conditional branch (beq..bgeu, c.beqz, c.bnez); target is direct
  kDirectJump,   ///< jal, c.j, c.jal; target is direct
  kIndirectJump, ///< jalr, c.jr, c.jalr; target is not in the image
  kTrapReturn,   ///< mret (sret/uret if ever decoded)
  kIllegal,      ///< not a valid RV64IMAC (RV32IMAC for Xlen::k32) + Zicsr encoding
};

struct InsnInfo {
  uint8_t size = 4;            ///< 2 or 4 bytes
  InsnClass cls = InsnClass::kSequential;
  /// The itype this instruction produces when it retires; for a branch kTakenBranch is
  /// reported (the ISS picks taken/not taken at run time).
  IType itype = IType::kNone;
  int64_t offset = 0;          ///< branch/jal displacement (target = pc + offset)
  uint8_t rd = 0, rs1 = 0;     ///< for jal/jalr classification
};

/// The trace link-register rule: x1 (ra) and x5 (t0) are link registers.
constexpr bool IsLinkRegister(uint32_t r) { return r == 1 || r == 5; }

/// The itype of a jal writing `rd` (RISC-V trace rules; see IType in oracle/retired.h).
constexpr IType JalIType(uint32_t rd) {
  if (rd == 0) return IType::kDirectJump;
  return IsLinkRegister(rd) ? IType::kDirectCall : IType::kOtherDirectLink;
}

/// The itype of a jalr writing `rd` and jumping through `rs1`.
constexpr IType JalrIType(uint32_t rd, uint32_t rs1) {
  const bool rd_link = IsLinkRegister(rd), rs1_link = IsLinkRegister(rs1);
  if (rd_link && rs1_link) return rd == rs1 ? IType::kIndirectCall : IType::kCoroutineSwap;
  if (rd_link) return IType::kIndirectCall;
  if (rs1_link) return IType::kReturn;
  return rd == 0 ? IType::kIndirectJump : IType::kOtherIndirectLink;
}

/// Size of the instruction whose low 16 bits are `low16`: 2 when bits[1:0] != 0b11, else 4.
constexpr uint8_t InsnSize(uint16_t low16) { return (low16 & 3) == 3 ? 4 : 2; }

/// Decodes one instruction of an XLEN `xlen` core. `raw` holds the instruction bits (upper 16
/// ignored when compressed). RV32 has no *W operations, no ld/sd/lwu, no 64-bit AMOs, and its
/// shift amounts are 5 bits (bit 25 of slli/srli/srai set is illegal).
InsnInfo DecodeInsn(uint32_t raw, Xlen xlen = Xlen::k64);

/// The 32-bit instruction a 16-bit RVC instruction stands for on an XLEN `xlen` core (c.j ->
/// jal x0, c.jalr -> jalr x1, c.ebreak -> ebreak, RV32's c.jal -> jal x1, ...); 0 when `c` is
/// not a valid instruction here: reserved encodings, the F/D ones since the core has no FPU
/// (RV64: c.fld/c.fsd/c.fldsp/c.fsdsp; RV32 also c.flw/c.fsw/c.flwsp/c.fswsp, whose slots RV64
/// gives to c.ld/c.sd/c.ldsp/c.sdsp), and on RV32 c.addw/c.subw and shifts by 32 or more.
uint32_t ExpandCompressed(uint16_t c, Xlen xlen = Xlen::k64);

}  // namespace ctte::oracle
