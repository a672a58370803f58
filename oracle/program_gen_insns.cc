// The random program generator's straight-line instructions (oracle/program_gen_impl.h): ALU and
// M operations (compressed or not), loads and stores, AMOs and LR/SC, traps, CSR accesses. On
// RV32 (rv32_) the RV64-only forms are replaced after the same random draws.
#include <iterator>

#include "oracle/program_gen_impl.h"

namespace ctte::oracle::program_gen_internal {

using namespace reg;  // NOLINT(google-build-using-namespace): register names

void Generator::EmitAlu() {
  const uint32_t rd = AluReg();
  if (Compressed()) {
    const uint32_t crd = kCompressibleAlu[rng_.Below(std::size(kCompressibleAlu))];
    const uint32_t imm = static_cast<uint32_t>(rng_.Below(64));
    const uint32_t shamt = 1 + static_cast<uint32_t>(rng_.Below(63));
    const uint32_t cfield = (crd - 8) << 7;
    const uint32_t crs2 = static_cast<uint32_t>(rng_.Below(8));  // any of x8..x15 as a source
    switch (rng_.Below(10)) {
      case 0:
        as_.CAddi(crd, static_cast<int32_t>(rng_.Between(1, 31)));
        return;
      case 1:
        as_.CLi(rd, static_cast<int32_t>(rng_.Between(-32, 31)));
        return;
      case 2:
        as_.CMv(rd, AluReg());
        return;
      case 3:
        as_.CAdd(rd, AluReg());
        return;
      case 4:  // c.addiw (RV32: its slot is c.jal; c.addi instead)
        if (rv32_) {
          as_.CAddi(crd, static_cast<int32_t>(imm & 31) | 1);
          return;
        }
        as_.Emit16(static_cast<uint16_t>(0x2001 | (imm >> 5) << 12 | rd << 7 | (imm & 31) << 2));
        return;
      case 5: {  // c.slli (RV32: shift amounts 1..31)
        const uint32_t sh = rv32_ ? 1 + (shamt - 1) % 31 : shamt;
        as_.Emit16(static_cast<uint16_t>(0x0002 | (sh >> 5) << 12 | rd << 7 | (sh & 31) << 2));
        return;
      }
      case 6: {  // c.srli / c.srai
        const uint32_t sh = rv32_ ? 1 + (shamt - 1) % 31 : shamt;
        as_.Emit16(static_cast<uint16_t>((rng_.Chance(1, 2) ? 0x8001 : 0x8401) |
                                         (sh >> 5) << 12 | cfield | (sh & 31) << 2));
        return;
      }
      case 7:  // c.andi
        as_.Emit16(static_cast<uint16_t>(0x8801 | (imm >> 5) << 12 | cfield | (imm & 31) << 2));
        return;
      case 8:  // c.sub / c.xor / c.or / c.and
        as_.Emit16(static_cast<uint16_t>(0x8c01 | cfield |
                                         static_cast<uint32_t>(rng_.Below(4)) << 5 | crs2 << 2));
        return;
      default:  // c.subw / c.addw (RV32: c.sub / c.xor)
        as_.Emit16(static_cast<uint16_t>((rv32_ ? 0x8c01 : 0x9c01) | cfield |
                                         static_cast<uint32_t>(rng_.Below(2)) << 5 | crs2 << 2));
        return;
    }
  }
  const uint32_t r1 = SrcReg(), r2 = SrcReg();
  switch (rng_.Below(8)) {
    case 0: {  // op-imm
      const uint32_t f3 = static_cast<uint32_t>(rng_.Below(8));
      const uint32_t shmask = rv32_ ? 31 : 63;
      if (f3 == 1) {
        as_.I(0x13, rd, 1, r1, static_cast<int32_t>(rng_.Below(64) & shmask));
        return;
      }
      if (f3 == 5) {
        const uint32_t sh = static_cast<uint32_t>(rng_.Below(64)) & shmask;
        as_.I(0x13, rd, 5, r1, static_cast<int32_t>(sh | (rng_.Chance(1, 2) ? 0x400 : 0)));
        return;
      }
      as_.I(0x13, rd, f3, r1, Imm12());
      return;
    }
    case 1:
    case 2: {  // op
      static constexpr uint32_t kF7[] = {0, 0, 0, 0x20};
      const uint32_t f3 = static_cast<uint32_t>(rng_.Below(8));
      const uint32_t f7 = (f3 == 0 || f3 == 5) ? kF7[rng_.Below(4)] : 0;
      as_.R(0x33, rd, f3, r1, r2, f7);
      return;
    }
    case 3:  // M
      as_.R(0x33, rd, static_cast<uint32_t>(rng_.Below(8)), r1, r2, 1);
      return;
    case 4: {  // op-32 / M-32
      static constexpr uint32_t kOps[][2] = {{0, 0}, {1, 0}, {5, 0}, {0, 0x20}, {5, 0x20},
                                             {0, 1}, {4, 1}, {5, 1}, {6, 1},    {7, 1}};
      const auto& op = kOps[rng_.Below(std::size(kOps))];
      as_.R(rv32_ ? 0x33 : 0x3b, rd, op[0], r1, r2, op[1]);  // RV32: the XLEN op
      return;
    }
    case 5:  // addiw / slliw / srliw / sraiw (RV32: addi / slli / srli / srai)
      if (rv32_) {
        static constexpr uint32_t kF3[] = {0, 1, 5, 5};
        const uint64_t k = rng_.Below(4);
        const int32_t imm = k == 0 ? Imm12() : static_cast<int32_t>(rng_.Below(32));
        as_.I(0x13, rd, kF3[k], r1, k == 3 ? imm | 0x400 : imm);
        return;
      }
      switch (rng_.Below(4)) {
        case 0:
          as_.I(0x1b, rd, 0, r1, Imm12());
          return;
        case 1:
          as_.I(0x1b, rd, 1, r1, static_cast<int32_t>(rng_.Below(32)));
          return;
        case 2:
          as_.I(0x1b, rd, 5, r1, static_cast<int32_t>(rng_.Below(32)));
          return;
        default:
          as_.I(0x1b, rd, 5, r1, static_cast<int32_t>(rng_.Below(32) | 0x400));
          return;
      }
    case 6:
      as_.U(rng_.Chance(1, 2) ? 0x37 : 0x17, rd, static_cast<uint32_t>(rng_.Below(1 << 20)));
      return;
    default:
      as_.R(0x33, rd, 0, r1, r2, 0);
      return;
  }
}

void Generator::EmitMemory() {
  const bool misaligned = rng_.Chance(1, 8);
  uint32_t f3 = static_cast<uint32_t>(rng_.Below(7));
  if (rv32_ && (f3 == 3 || f3 == 6)) f3 = 2;  // RV32: lw/sw for ld/sd/lwu
  const bool store = rng_.Chance(2, 5);
  const uint32_t width = store ? 1u << (f3 & 3) : 1u << (f3 & 3);
  int32_t off = static_cast<int32_t>(rng_.Below(kDataSize - 8)) & ~static_cast<int32_t>(width - 1);
  if (misaligned && width > 1) off += 1;
  off -= 2048;  // s11 points at the middle of the data area
  if (store) {
    as_.S(f3 & 3, s11, SrcReg(), off);
  } else {
    as_.I(0x03, AluReg(), f3, s11, off);
  }
}

void Generator::EmitAmo() {
  const bool dw = rng_.Chance(1, 2) && !rv32_;  // RV32: 32-bit AMOs only
  const int32_t off = static_cast<int32_t>(rng_.Below(kDataSize / 8 - 1) * 8) +
                      (dw ? 0 : 4 * static_cast<int32_t>(rng_.Below(2)));
  as_.Addi(t1, s11, off - 2048);
  const uint32_t f3 = dw ? 3 : 2;
  if (rng_.Chance(1, 3)) {  // lr / alu / sc
    as_.R(0x2f, AluReg(), f3, t1, 0, 0x02 << 2);
    EmitAlu();
    as_.R(0x2f, AluReg(), f3, rng_.Chance(1, 4) ? s11 : t1, SrcReg(), 0x03 << 2);
    return;
  }
  static constexpr uint32_t kF5[] = {0x01, 0x00, 0x04, 0x0c, 0x08, 0x10, 0x14, 0x18, 0x1c};
  as_.R(0x2f, AluReg(), f3, t1, SrcReg(), kF5[rng_.Below(std::size(kF5))] << 2);
}

void Generator::EmitTrap() {
  switch (rng_.Below(5)) {
    case 0:
    case 1:
      as_.Ecall();
      return;
    case 2:
      as_.Ebreak();
      return;
    case 3:
      if (Compressed()) {
        as_.CEbreak();
      } else {
        as_.Ebreak();
      }
      return;
    default:
      as_.Emit32(0x0000000b);
      return;  // custom-0: illegal here and on QEMU
  }
}

void Generator::EmitCsr() {
  constexpr uint32_t kMscratch = 0x340;
  as_.Csr(static_cast<uint32_t>(rng_.Between(1, 3)), AluReg(), kMscratch, SrcReg());
}

}  // namespace ctte::oracle::program_gen_internal
