// A small RV64IMAC / RV32IMAC machine-code assembler with labels, for the random program generator and for
// hand-written ISS tests. Emits little-endian bytes; branch/jump targets are patched at Finish().
// Out-of-range displacements are a broken invariant of the caller (CTTE_CHECK).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "oracle/xlen.h"

namespace ctte::oracle {

namespace reg {
enum : uint32_t {
  zero = 0,
  ra = 1,
  sp = 2,
  gp = 3,
  tp = 4,
  t0 = 5,
  t1 = 6,
  t2 = 7,
  s0 = 8,
  s1 = 9,
  a0 = 10,
  a1 = 11,
  a2 = 12,
  a3 = 13,
  a4 = 14,
  a5 = 15,
  a6 = 16,
  a7 = 17,
  s2 = 18,
  s3 = 19,
  s4 = 20,
  s5 = 21,
  s6 = 22,
  s7 = 23,
  s8 = 24,
  s9 = 25,
  s10 = 26,
  s11 = 27,
  t3 = 28,
  t4 = 29,
  t5 = 30,
  t6 = 31,
};
}  // namespace reg

class Assembler {
 public:
  using Label = uint32_t;

  /// `xlen` matters only to Li (RV32: lui + addi of the low 32 bits, no addiw or slli chain).
  explicit Assembler(uint64_t base, Xlen xlen = Xlen::k64) : base_(base), xlen_(xlen) {}
  uint64_t pc() const { return base_ + bytes_.size(); }
  uint64_t base() const { return base_; }

  Label NewLabel();
  void Bind(Label l);
  uint64_t Address(Label l) const;  ///< valid after Bind

  void Emit16(uint16_t h);
  void Emit32(uint32_t w);

  // Base formats.
  void R(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, uint32_t rs2, uint32_t f7);
  void I(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, int32_t imm);
  void S(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm);  ///< store
  void U(uint32_t op, uint32_t rd, uint32_t imm20);

  void Addi(uint32_t rd, uint32_t rs1, int32_t imm) { I(0x13, rd, 0, rs1, imm); }
  /// Any 64-bit constant (lui/addiw/slli/addi chain); RV32: the low 32 bits (lui/addi).
  void Li(uint32_t rd, int64_t value);
  void La(uint32_t rd, Label l);        ///< auipc + addi, patched
  void Branch(uint32_t f3, uint32_t rs1, uint32_t rs2, Label target);
  void Jal(uint32_t rd, Label target);
  void Jalr(uint32_t rd, uint32_t rs1, int32_t imm) { I(0x67, rd, 0, rs1, imm); }
  void Csr(uint32_t f3, uint32_t rd, uint32_t csr, uint32_t rs1);
  void Ecall() { Emit32(0x00000073); }
  void Ebreak() { Emit32(0x00100073); }
  void Mret() { Emit32(0x30200073); }

  // Compressed forms (registers as in the RVC spec; callers respect the x8..x15 limits).
  void CAddi(uint32_t rd, int32_t imm);
  void CLi(uint32_t rd, int32_t imm);
  void CMv(uint32_t rd, uint32_t rs2);
  void CAdd(uint32_t rd, uint32_t rs2);
  void CJ(Label target);
  void CBeqz(uint32_t rs1, Label target);
  void CBnez(uint32_t rs1, Label target);
  void CJr(uint32_t rs1) { Emit16(static_cast<uint16_t>(0x8002 | rs1 << 7)); }
  void CJalr(uint32_t rs1) { Emit16(static_cast<uint16_t>(0x9002 | rs1 << 7)); }
  void CEbreak() { Emit16(0x9002); }
  void CNop() { Emit16(0x0001); }

  /// Patches every label reference and returns the bytes.
  std::vector<uint8_t> Finish();

 private:
  enum class Fix : uint8_t { kBranch, kJal, kCj, kCb, kLa };
  struct Fixup {
    size_t at;
    Label label;
    Fix kind;
  };
  void Put32(size_t at, uint32_t w);
  uint32_t Get32(size_t at) const;

  uint64_t base_;
  Xlen xlen_;
  std::vector<uint8_t> bytes_;
  std::vector<int64_t> labels_;  ///< offset from base, -1 when unbound
  std::vector<Fixup> fixups_;
};

}  // namespace ctte::oracle
