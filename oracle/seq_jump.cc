// Sequential-jump instruction forms (docs/encoder-behaviour.md section 11.7).
#include "oracle/seq_jump.h"

namespace ctte::oracle {
namespace {

constexpr bool IsCompressed(uint32_t insn) { return (insn & 3) != 3; }
constexpr bool IsCLui(uint32_t insn) {
  const uint32_t rd = (insn >> 7) & 31;
  const uint32_t nz = ((insn >> 12) & 1) | ((insn >> 2) & 31);
  return IsCompressed(insn) && (insn & 3) == 1 && ((insn >> 13) & 7) == 3 && rd != 0 &&
         rd != 2 && nz != 0;
}
// imm20 << 12, sign-extended from bit 31 (LUI/AUIPC).
constexpr uint64_t UImm(uint32_t insn) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(insn & 0xFFFFF000u)));
}
// nzimm[17:12] << 12, sign-extended from bit 17 (C.LUI).
constexpr uint64_t CLuiImm(uint32_t insn) {
  int64_t v = static_cast<int64_t>((((insn >> 12) & 1) << 5) | ((insn >> 2) & 31));
  if (v & 32) v -= 64;
  return static_cast<uint64_t>(v * 4096);
}

}  // namespace

uint8_t SequentialSetterRd(uint32_t insn) {
  if (IsCLui(insn)) return static_cast<uint8_t>((insn >> 7) & 31);
  if (IsCompressed(insn)) return 0;
  const uint32_t op = insn & 0x7F;
  if (op != 0x37 && op != 0x17) return 0;  // LUI, AUIPC
  return static_cast<uint8_t>((insn >> 7) & 31);
}

uint8_t JalrRs1(uint32_t insn) {
  if (IsCompressed(insn)) {
    // C.JR 1000 rs1 00000 10, C.JALR 1001 rs1 00000 10 (rs1 != 0; rs1 = 0 is reserved/c.ebreak).
    if ((insn & 3) != 2 || ((insn >> 13) & 7) != 4 || ((insn >> 2) & 31) != 0) return 0;
    return static_cast<uint8_t>((insn >> 7) & 31);
  }
  if ((insn & 0x7F) != 0x67 || ((insn >> 12) & 7) != 0) return 0;
  return static_cast<uint8_t>((insn >> 15) & 31);
}

uint64_t SequentialTarget(uint32_t setter, uint64_t setter_pc, uint32_t jalr) {
  uint64_t base;
  if (IsCLui(setter)) {
    base = CLuiImm(setter);
  } else if ((setter & 0x7F) == 0x17) {
    base = setter_pc + UImm(setter);
  } else {
    base = UImm(setter);
  }
  const uint64_t imm =
      IsCompressed(jalr) ? 0
                         : static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(jalr)) >> 20);
  return (base + imm) & ~uint64_t{1};
}

}  // namespace ctte::oracle
