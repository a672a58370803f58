// The ISS as an RV32IMAC core (an ELFCLASS32 program, or an image made with Xlen::k32): 32-bit
// registers and arithmetic, RV32's encodings (c.jal; no *W, ld/sd/lwu, 64-bit AMOs, 6-bit shift
// amounts), the CSRs (misa MXL 1, the counters' upper halves), the interrupt's mcause bit 31, and
// the RV32 builds of the workloads. Where it matters, the same bytes on RV64 behave otherwise, so
// each check can fail on a core of the wrong width.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "oracle/insn.h"
#include "oracle/iss.h"
#include "oracle/iss_asm.h"
#include "oracle/program_image.h"
#include "tests/oracle/asm_run.h"

namespace ctte::oracle {
namespace {

using namespace reg;  // NOLINT(google-build-using-namespace)
using test_support::AsmRun;
using test_support::EmitExit;
using test_support::Execute;

constexpr uint64_t kBase = ProgramImage::kRamBase;

TEST(IssRv32Test, ArithmeticWrapsAtThirtyTwoBits) {
  Assembler as(kBase, Xlen::k32);
  as.Li(a0, 0x7fffffff);
  as.Addi(a1, a0, 1);             // 0x80000000, not 0x0000000080000000 sign-extended
  as.I(0x13, a2, 5, a1, 0x404);   // srai a2, a1, 4
  as.I(0x13, a3, 5, a1, 4);       // srli a3, a1, 4
  as.R(0x33, a4, 2, a1, zero, 0);  // slt a4, a1, zero: negative as a 32-bit value
  as.U(0x37, a5, 0x80000);        // lui a5, 0x80000
  as.R(0x33, a6, 0, zero, a0, 0x20);  // sub a6, zero, a0
  as.Li(t2, 33);
  as.Li(t3, 1);
  as.R(0x33, a7, 1, t3, t2, 0);  // sll a7, t3, t2: shift amount 33 & 31 = 1
  as.Li(s2, 0x12345678);
  EmitExit(as);
  const AsmRun run = Execute(as, Xlen::k32);
  ASSERT_EQ(run.iss->stop_reason(), StopReason::kExited);
  EXPECT_EQ(run.iss->TEST_Reg(a1), 0x80000000u);
  EXPECT_EQ(run.iss->TEST_Reg(a2), 0xf8000000u);
  EXPECT_EQ(run.iss->TEST_Reg(a3), 0x08000000u);
  EXPECT_EQ(run.iss->TEST_Reg(a4), 1u);
  EXPECT_EQ(run.iss->TEST_Reg(a5), 0x80000000u);
  EXPECT_EQ(run.iss->TEST_Reg(a6), 0x80000001u);
  EXPECT_EQ(run.iss->TEST_Reg(a7), 2u);
  EXPECT_EQ(run.iss->TEST_Reg(s2), 0x12345678u);
}

TEST(IssRv32Test, MultiplyAndDivideGiveThirtyTwoBitResults) {
  Assembler as(kBase, Xlen::k32);
  as.Li(s2, 0x80000000);
  as.Li(s3, -1);  // 0xffffffff
  as.Li(s4, 0x10000);
  as.Li(s5, 7);
  as.R(0x33, a0, 0, s4, s4, 1);  // mul: 2^32 wraps to 0
  as.R(0x33, a1, 1, s2, s2, 1);  // mulh(-2^31, -2^31) = 2^62 >> 32
  as.R(0x33, a2, 3, s3, s3, 1);  // mulhu(0xffffffff, 0xffffffff)
  as.R(0x33, a3, 2, s3, s3, 1);  // mulhsu(-1, 0xffffffff)
  as.R(0x33, a4, 4, s2, s3, 1);  // div overflow: -2^31 / -1
  as.R(0x33, a5, 4, s5, zero, 1);  // div by zero
  as.R(0x33, a6, 6, s2, s3, 1);  // rem overflow
  as.R(0x33, a7, 5, s3, zero, 1);  // divu by zero
  as.R(0x33, s6, 7, s5, zero, 1);  // remu by zero
  EmitExit(as);
  const AsmRun run = Execute(as, Xlen::k32);
  ASSERT_EQ(run.iss->stop_reason(), StopReason::kExited);
  EXPECT_EQ(run.iss->TEST_Reg(a0), 0u);
  EXPECT_EQ(run.iss->TEST_Reg(a1), 0x40000000u);
  EXPECT_EQ(run.iss->TEST_Reg(a2), 0xfffffffeu);
  EXPECT_EQ(run.iss->TEST_Reg(a3), 0xffffffffu);
  EXPECT_EQ(run.iss->TEST_Reg(a4), 0x80000000u);
  EXPECT_EQ(run.iss->TEST_Reg(a5), 0xffffffffu);
  EXPECT_EQ(run.iss->TEST_Reg(a6), 0u);
  EXPECT_EQ(run.iss->TEST_Reg(a7), 0xffffffffu);
  EXPECT_EQ(run.iss->TEST_Reg(s6), 7u);
}

// One instruction (16 or 32 bits) after mtvec is set; the first trap beat's cause and tval.
struct FirstTrap {
  bool trapped = false;
  uint64_t cause = 0, tval = 0;
};

FirstTrap RunOne(uint32_t insn, bool compressed, Xlen xlen) {
  Assembler as(kBase, xlen);
  const auto handler = as.NewLabel();
  as.La(t0, handler);
  as.Csr(1, zero, 0x305, t0);
  as.Li(s11, static_cast<int64_t>(kBase + 0x1000));  // a valid address for loads/stores/AMOs
  as.Li(a0, static_cast<int64_t>(kBase + 0x1000));
  as.Li(sp, static_cast<int64_t>(kBase + 0x1000));
  if (compressed) {
    as.Emit16(static_cast<uint16_t>(insn));
  } else {
    as.Emit32(insn);
  }
  while (as.pc() % 4 != 0) as.CNop();
  as.Bind(handler);
  EmitExit(as);
  const AsmRun run = Execute(as, xlen);
  for (const Retired& r : run.beats) {
    if (r.itype == IType::kException) return {true, r.cause, r.tval};
  }
  return {};
}

TEST(IssRv32Test, Rv64OnlyEncodingsAreIllegalInstructions) {
  const struct {
    const char* what;
    uint32_t insn;
    bool compressed;
  } kCases[] = {
      {"addiw a0, a0, 1", 0x0015051b, false},
      {"addw a0, a0, a0", 0x00a5053b, false},
      {"ld a1, 0(s11)", 0x000db583, false},
      {"lwu a1, 0(s11)", 0x000de583, false},
      {"sd a0, 0(s11)", 0x00adb023, false},
      {"slli a0, a0, 32", 0x02051513, false},
      {"amoadd.d a1, a0, (a0)", 0x00a535af, false},
      {"c.ld a0, 0(a0) (RV32: c.flw)", 0x6108, true},
      {"c.sd a0, 0(a0) (RV32: c.fsw)", 0xe108, true},
      {"c.ldsp a0, 0(sp) (RV32: c.flwsp)", 0x6502, true},
      {"c.addw a0, a1", 0x9d2d, true},
      {"c.slli a0, 32", 0x1502, true},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.what);
    const FirstTrap rv32 = RunOne(c.insn, c.compressed, Xlen::k32);
    EXPECT_TRUE(rv32.trapped);
    EXPECT_EQ(rv32.cause, 2u);
    EXPECT_EQ(rv32.tval, c.insn);
    EXPECT_EQ(DecodeInsn(c.insn, Xlen::k32).cls, InsnClass::kIllegal);
    // The same bits are a valid RV64 instruction: it runs without a trap there.
    EXPECT_FALSE(RunOne(c.insn, c.compressed, Xlen::k64).trapped);
    EXPECT_NE(DecodeInsn(c.insn, Xlen::k64).cls, InsnClass::kIllegal);
  }
}

TEST(IssRv32Test, CJalIsADirectCallWhereRv64HasCAddiw) {
  Assembler as(kBase, Xlen::k32);
  const uint64_t at = as.pc();
  as.Emit16(0x2011);  // c.jal +4 (RV64: c.addiw x0, 4, reserved)
  as.CNop();
  EmitExit(as);
  const AsmRun run = Execute(as, Xlen::k32);
  ASSERT_FALSE(run.beats.empty());
  EXPECT_EQ(run.beats[0].itype, IType::kDirectCall);
  EXPECT_EQ(run.beats[0].next_pc, at + 4);
  EXPECT_EQ(run.iss->TEST_Reg(ra), at + 2);
  const InsnInfo info = DecodeInsn(0x2011, Xlen::k32);
  EXPECT_EQ(info.cls, InsnClass::kDirectJump);
  EXPECT_EQ(info.offset, 4);
  EXPECT_EQ(info.itype, IType::kDirectCall);
  EXPECT_EQ(DecodeInsn(0x2011, Xlen::k64).cls, InsnClass::kIllegal);
}

TEST(IssRv32Test, MisaSaysRv32AndTheInterruptCauseHasBit31) {
  Assembler as(kBase, Xlen::k32);
  const auto handler = as.NewLabel(), spin = as.NewLabel();
  as.Csr(2, s2, 0x301, zero);  // csrr s2, misa
  as.La(t0, handler);
  as.Csr(1, zero, 0x305, t0);
  as.Li(t1, 8);
  as.Csr(1, zero, 0x304, t1);  // mie.MSIE
  as.Csr(6, zero, 0x300, 8);   // csrsi mstatus, MIE
  as.Bind(spin);
  as.Jal(zero, spin);
  while (as.pc() % 4 != 0) as.CNop();
  as.Bind(handler);
  as.Csr(2, s3, 0x342, zero);  // csrr s3, mcause
  as.Csr(2, s4, 0xb82, zero);  // csrr s4, minstreth
  as.Csr(2, s5, 0xb02, zero);  // csrr s5, minstret
  EmitExit(as);
  IssOptions opts;
  opts.interrupt_at = {12};
  const AsmRun run = Execute(as, Xlen::k32, opts);
  ASSERT_EQ(run.iss->stop_reason(), StopReason::kExited);
  EXPECT_EQ(run.iss->TEST_Reg(s2), 0x40001105u);  // MXL 1, A C I M
  EXPECT_EQ(run.iss->TEST_Reg(s3), 0x80000003u);
  EXPECT_EQ(run.iss->TEST_Reg(s4), 0u);
  EXPECT_GT(run.iss->TEST_Reg(s5), 12u);
  size_t interrupts = 0;
  for (const Retired& r : run.beats) {
    if (r.itype != IType::kInterrupt) continue;
    ++interrupts;
    EXPECT_EQ(r.cause, 0x80000003u);
  }
  EXPECT_EQ(interrupts, 1u);
}

std::string Rv32Workload(const char* name) {
  return std::string(CTTE_BINARY_DIR) + "/workloads/" + name + "-rv32.elf";
}

// Checksums as printed by the same ELFs under qemu-system-riscv32 (QEMU 7.2, virt): those of the
// RV64 builds, but for traps, whose ecall arguments are register-wide.
TEST(IssRv32Test, Rv32WorkloadsPrintTheChecksumsQemuPrintsAndSurviveInterrupts) {
  const std::pair<const char*, const char*> kExpected[] = {
      {"loop", "loop checksum=0x000000000040939d\n"},
      {"calls", "calls checksum=0x8509f03d4b515f85\n"},
      {"ptrchase", "ptrchase checksum=0x4ad2934c834209c3\n"},
      {"sort", "sort checksum=0x4eeb4eb334a1f56f\n"},
      {"switch", "switch checksum=0x06d62eb0dd095d0a\n"},
      {"traps", "traps checksum=0x00000000d7d6fe27\n"},
  };
  for (const auto& [name, console] : kExpected) {
    SCOPED_TRACE(name);
    if (!std::filesystem::exists(Rv32Workload(name))) {
      GTEST_SKIP() << Rv32Workload(name) << " not built (CTTE_BUILD_WORKLOADS)";
    }
    Result<ProgramImage> image = ProgramImage::Load(Rv32Workload(name), Xlen::k32);
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    for (uint64_t every : {uint64_t{0}, uint64_t{997}}) {
      IssOptions opts;
      opts.interrupt_every = every;
      Iss iss(*image, opts);
      Retired r;
      uint64_t interrupts = 0;
      while (iss.Step(&r)) interrupts += r.itype == IType::kInterrupt ? 1 : 0;
      EXPECT_EQ(iss.stop_reason(), StopReason::kExited) << iss.fatal_message();
      EXPECT_EQ(iss.exit_code(), 0);
      EXPECT_EQ(iss.console(), console);
      // Indices that fall before crt0 enables interrupts (while .bss is zeroed) coalesce into
      // one pending MSIP, as on RV64 (ptrchase, sort); loop takes every one.
      if (every == 0) {
        EXPECT_EQ(interrupts, 0u);
      } else if (std::string(name) == "loop") {
        EXPECT_EQ(interrupts, iss.retired() / every);
      } else {
        EXPECT_GT(interrupts, 0u);
        EXPECT_LE(interrupts, iss.retired() / every);
      }
    }
  }
}

}  // namespace
}  // namespace ctte::oracle
