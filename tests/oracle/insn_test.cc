// Table-driven tests of DecodeInsn / ExpandCompressed. Every encoding below was produced by
// riscv64-unknown-elf-as (GNU binutils 2.40) and checked with objdump -M no-aliases.
#include "oracle/insn.h"

#include <gtest/gtest.h>

namespace ctte::oracle {
namespace {

struct Case {
  const char* text;
  uint32_t raw;
  uint8_t size;
  InsnClass cls;
  IType itype;
  int64_t offset;
};

constexpr InsnClass kSeq = InsnClass::kSequential;
constexpr InsnClass kBr = InsnClass::kBranch;
constexpr InsnClass kDj = InsnClass::kDirectJump;
constexpr InsnClass kIj = InsnClass::kIndirectJump;

const Case kCases[] = {
    {"jal ra,+0x100", 0x100000ef, 4, kDj, IType::kDirectCall, 0x100},
    {"jal zero,-8", 0xff9ff06f, 4, kDj, IType::kDirectJump, -8},
    {"jal t0,+16", 0x010002ef, 4, kDj, IType::kDirectCall, 16},
    {"jal a0,+0x800", 0x0010056f, 4, kDj, IType::kOtherDirectLink, 0x800},
    {"jalr zero,0(ra)", 0x00008067, 4, kIj, IType::kReturn, 0},
    {"jalr zero,0(t0)", 0x00028067, 4, kIj, IType::kReturn, 0},
    {"jalr ra,0(a5)", 0x000780e7, 4, kIj, IType::kIndirectCall, 0},
    {"jalr ra,8(ra)", 0x008080e7, 4, kIj, IType::kIndirectCall, 8},
    {"jalr t0,0(ra)", 0x000082e7, 4, kIj, IType::kCoroutineSwap, 0},
    {"jalr ra,0(t0)", 0x000280e7, 4, kIj, IType::kCoroutineSwap, 0},
    {"jalr zero,0(a5)", 0x00078067, 4, kIj, IType::kIndirectJump, 0},
    {"jalr a0,0(a5)", 0x00078567, 4, kIj, IType::kOtherIndirectLink, 0},
    {"jalr a0,0(ra)", 0x00008567, 4, kIj, IType::kReturn, 0},
    {"beq a0,a1,-4", 0xfeb50ee3, 4, kBr, IType::kTakenBranch, -4},
    {"bne zero,zero,+4094", 0x7e001fe3, 4, kBr, IType::kTakenBranch, 4094},
    {"bgeu t1,t2,-4096", 0x80737063, 4, kBr, IType::kTakenBranch, -4096},
    {"mret", 0x30200073, 4, InsnClass::kTrapReturn, IType::kTrapReturn, 0},
    {"ecall", 0x00000073, 4, kSeq, IType::kNone, 0},
    {"ebreak", 0x00100073, 4, kSeq, IType::kNone, 0},
    {"wfi", 0x10500073, 4, kSeq, IType::kNone, 0},
    {"csrrw zero,mscratch,a0", 0x34051073, 4, kSeq, IType::kNone, 0},
    {"lr.d a0,(a1)", 0x1005b52f, 4, kSeq, IType::kNone, 0},
    {"sc.w a0,a2,(a1)", 0x18c5a52f, 4, kSeq, IType::kNone, 0},
    {"amoadd.d a0,a1,(a2)", 0x00b6352f, 4, kSeq, IType::kNone, 0},
    {"mul a0,a1,a2", 0x02c58533, 4, kSeq, IType::kNone, 0},
    {"divuw a0,a1,a2", 0x02c5d53b, 4, kSeq, IType::kNone, 0},
    {"sraiw a0,a0,3", 0x4035551b, 4, kSeq, IType::kNone, 0},
    {"srai a0,a0,63", 0x43f55513, 4, kSeq, IType::kNone, 0},
    {"fence iorw,iorw", 0x0ff0000f, 4, kSeq, IType::kNone, 0},
    {"c.j +0x7fe", 0xaffd, 2, kDj, IType::kDirectJump, 0x7fe},
    {"c.j -0x800", 0xb001, 2, kDj, IType::kDirectJump, -0x800},
    {"c.jr ra", 0x8082, 2, kIj, IType::kReturn, 0},
    {"c.jr t0", 0x8282, 2, kIj, IType::kReturn, 0},
    {"c.jr a5", 0x8782, 2, kIj, IType::kIndirectJump, 0},
    {"c.jalr a5", 0x9782, 2, kIj, IType::kIndirectCall, 0},
    {"c.jalr ra", 0x9082, 2, kIj, IType::kIndirectCall, 0},
    {"c.jalr t0", 0x9282, 2, kIj, IType::kCoroutineSwap, 0},
    {"c.beqz a0,+254", 0xcd7d, 2, kBr, IType::kTakenBranch, 254},
    {"c.bnez s1,-256", 0xf081, 2, kBr, IType::kTakenBranch, -256},
    {"c.ebreak", 0x9002, 2, kSeq, IType::kNone, 0},
    {"c.addi a0,1", 0x0505, 2, kSeq, IType::kNone, 0},
};

TEST(InsnTest, DecodesRealEncodings) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    const InsnInfo info = DecodeInsn(c.raw);
    EXPECT_EQ(info.size, c.size);
    EXPECT_EQ(info.cls, c.cls);
    EXPECT_EQ(info.itype, c.itype);
    if (c.cls == kBr || c.cls == kDj || c.cls == kIj) {
      EXPECT_EQ(info.offset, c.offset);
    }
  }
}

TEST(InsnTest, UpperHalfIsIgnoredForCompressed) {
  const InsnInfo info = DecodeInsn(0xdead0000u | 0x8082u);
  EXPECT_EQ(info.size, 2);
  EXPECT_EQ(info.itype, IType::kReturn);
}

TEST(InsnTest, JalrReportsRdAndRs1) {
  const InsnInfo info = DecodeInsn(0x000280e7);  // jalr ra,0(t0)
  EXPECT_EQ(info.rd, 1);
  EXPECT_EQ(info.rs1, 5);
}

struct Expansion {
  const char* text;
  uint16_t compressed;
  uint32_t expanded;
};

const Expansion kExpansions[] = {
    {"c.addi a0,1", 0x0505, 0x00150513},       {"c.lwsp a0,4(sp)", 0x4512, 0x00412503},
    {"c.sdsp ra,504(sp)", 0xff86, 0x1e113c23}, {"c.addi4spn s0,sp,1020", 0x1fe0, 0x3fc10413},
    {"c.ld a5,248(a4)", 0x7f7c, 0x0f873783},   {"c.srai a0,33", 0x9505, 0x42155513},
    {"c.subw a0,a1", 0x9d0d, 0x40b5053b},      {"c.addiw a0,-1", 0x357d, 0xfff5051b},
    {"c.lui a0,0xfffff", 0x757d, 0xfffff537},  {"c.addi16sp sp,-512", 0x7101, 0xe0010113},
    {"c.andi s1,-1", 0x98fd, 0xfff4f493},      {"c.mv a0,a1", 0x852e, 0x00b00533},
    {"c.add ra,t0", 0x9096, 0x005080b3},       {"c.li t0,-32", 0x5281, 0xfe000293},
    {"c.slli a0,63", 0x157e, 0x03f51513},      {"c.jr ra", 0x8082, 0x00008067},
    {"c.jalr a5", 0x9782, 0x000780e7},         {"c.ebreak", 0x9002, 0x00100073},
    {"c.beqz a0,+254", 0xcd7d, 0x0e050f63},    {"c.bnez s1,-256", 0xf081, 0xf00490e3},
    {"c.j +0x7fe", 0xaffd, 0x7fe0006f},        {"c.j -0x800", 0xb001, 0x801ff06f},
};

TEST(InsnTest, ExpandsCompressedToTheirBaseEquivalents) {
  for (const Expansion& e : kExpansions) {
    SCOPED_TRACE(e.text);
    EXPECT_EQ(ExpandCompressed(e.compressed), e.expanded);
  }
}

TEST(InsnTest, RejectsIllegalEncodings) {
  const uint32_t kIllegal[] = {
      0x00000000,                // all-zero half-word (defined illegal)
      0xffffffff,                // all-ones
      0x2000,                    // c.fld (no D extension)
      0x8002,                    // c.jr x0 (reserved)
      0x6001,                    // c.lui x0 with zero immediate (reserved)
      0x00007067,                // jalr with funct3=7
      0x0000a063,                // branch funct3=2
      0x00007003,                // load funct3=7
      0x00004023,                // store funct3=4
      0x10200073,                // sret (not modelled)
      0x00004073,                // SYSTEM funct3=4
      0x1005a52fu | (1u << 20),  // lr.w with rs2 != 0
      0x0000000b,                // custom-0
  };
  for (uint32_t raw : kIllegal) {
    SCOPED_TRACE(raw);
    EXPECT_EQ(DecodeInsn(raw).cls, InsnClass::kIllegal);
  }
}

TEST(InsnTest, SizeFollowsLowTwoBits) {
  EXPECT_EQ(InsnSize(0x0013), 4);
  EXPECT_EQ(InsnSize(0x0001), 2);
  EXPECT_EQ(InsnSize(0x0002), 2);
  EXPECT_EQ(InsnSize(0x0000), 2);
}

}  // namespace
}  // namespace ctte::oracle
