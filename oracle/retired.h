// One ingress beat of the RISC-V instruction-trace interface, as the ISS yields it and as the
// simulated board drives it into the encoder RTL. One beat per retired instruction, plus one
// non-retiring beat per trap (exception or interrupt).
//
// Contract (DESIGN.md section 3, spec/ntrace.md section 9):
//  - A retiring beat has retires=true, size 2 or 4 bytes, iretire = size/2 half-words.
//  - A synchronously faulting instruction (ecall, ebreak, illegal, misaligned) does NOT retire:
//    its beat has retires=false, itype=kException, pc = the faulting instruction, iretire 0.
//  - An interrupt is a non-retiring beat with itype=kInterrupt, pc = the instruction that would
//    have executed next (it did not execute), iretire 0.
//  - next_pc is where execution continues (for a trap beat: the handler address, mtvec).
#pragma once

#include <cstdint>

namespace ctte::oracle {

/// 4-bit itype of the E-Trace ingress (spec/ntrace.md section 9, 4-bit table).
enum class IType : uint8_t {
  kNone = 0,             ///< no special type (sequential)
  kException = 1,        ///< non-retiring trap beat: exception
  kInterrupt = 2,        ///< non-retiring trap beat: interrupt
  kTrapReturn = 3,       ///< mret
  kNotTakenBranch = 4,
  kTakenBranch = 5,
  kIndirectCall = 8,     ///< jalr with link (rd=x1/x5) that is not a co-routine swap
  kDirectCall = 9,       ///< jal with rd=x1/x5
  kIndirectJump = 10,    ///< jalr, rd=x0, rs1 not a link register
  kDirectJump = 11,      ///< jal with rd=x0
  kCoroutineSwap = 12,   ///< jalr rd and rs1 both link registers, different
  kReturn = 13,          ///< jalr rd=x0 (or not link), rs1=x1/x5
  kOtherIndirectLink = 14,  ///< jalr with rd a non-link register other than x0
  kOtherDirectLink = 15,    ///< jal with rd a non-link register other than x0
};

/// True for itypes whose target the decoder cannot infer from the program image: the encoder
/// must report an address (trap return and every jalr class, plus trap beats).
constexpr bool IsUninferable(IType t) {
  switch (t) {
    case IType::kException: case IType::kInterrupt: case IType::kTrapReturn:
    case IType::kIndirectCall: case IType::kIndirectJump: case IType::kCoroutineSwap:
    case IType::kReturn: case IType::kOtherIndirectLink:
      return true;
    default:
      return false;
  }
}

constexpr bool IsBranch(IType t) {
  return t == IType::kNotTakenBranch || t == IType::kTakenBranch;
}

struct Retired {
  uint64_t pc = 0;        ///< iaddr: the instruction's address (trap beat: see header comment)
  uint64_t next_pc = 0;   ///< where execution continues
  uint64_t cause = 0;     ///< mcause for trap beats, else 0
  uint64_t tval = 0;      ///< mtval for trap beats, else 0
  uint32_t insn = 0;      ///< raw instruction bits (16-bit ones zero-extended); 0 for interrupts
  uint8_t size = 0;       ///< instruction size in bytes (2 or 4); 0 for an interrupt beat
  IType itype = IType::kNone;
  uint8_t priv = 3;       ///< privilege after the beat: 3 = M
  bool retires = true;    ///< false on trap beats
  /// Half-words retired by this beat (iretire): size/2 when it retires, else 0.
  uint8_t iretire() const { return retires ? static_cast<uint8_t>(size / 2) : 0; }
};

/// A beat as the reference encoder and BuildExpected read it: pc, insn, size, itype, retires
/// (16 bytes, not Retired's 40: a trace of a 300 000-beat program is 4.8 MB). next_pc, cause,
/// tval and priv are not kept (ToRetired gives them as 0, 0, 0, 3): a use of one of them in
/// ReferenceEncoder or BuildExpected must add it here (reference_trace_test.cc compares the two
/// paths over traps, interrupts and every feature).
struct TraceBeat {
  uint64_t pc = 0;
  uint32_t insn = 0;
  uint8_t size = 0;
  IType itype = IType::kNone;
  bool retires = true;

  static TraceBeat Of(const Retired& r) {
    return TraceBeat{r.pc, r.insn, r.size, r.itype, r.retires};
  }
  Retired ToRetired() const {
    Retired r;
    r.pc = pc;
    r.insn = insn;
    r.size = size;
    r.itype = itype;
    r.retires = retires;
    return r;
  }
};
static_assert(sizeof(TraceBeat) == 16, "TraceBeat: keep it compact");

}  // namespace ctte::oracle
