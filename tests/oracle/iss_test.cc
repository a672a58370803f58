// The ISS on hand-assembled programs (semantics and the beat contract of oracle/retired.h) and
// on the cross-compiled workloads (checksums, interrupt schedule).
#include "oracle/iss.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "oracle/iss_asm.h"
#include "tests/oracle/asm_run.h"

namespace ctte::oracle {
namespace {

using namespace reg;  // NOLINT(google-build-using-namespace)
using test_support::AsmRun;
using test_support::EmitExit;
using test_support::Execute;

constexpr uint64_t kBase = ProgramImage::kRamBase;

// Jumps over a handler that skips the trapping instruction (2 or 4 bytes) and returns, then
// points mtvec at it; the program goes on from there. Returns the handler's label.
Assembler::Label InstallSkipHandler(Assembler& as) {
  const auto main = as.NewLabel(), handler = as.NewLabel(), four = as.NewLabel();
  as.Jal(zero, main);
  while (as.pc() % 4 != 0) as.CNop();
  as.Bind(handler);
  as.Csr(2, t4, 0x341, zero);
  as.I(0x03, t5, 5, t4, 0);
  as.I(0x13, t5, 7, t5, 3);
  as.Addi(t4, t4, 2);
  as.Li(t6, 3);
  as.Branch(1, t5, t6, four);
  as.Addi(t4, t4, 2);
  as.Bind(four);
  as.Csr(1, zero, 0x341, t4);
  as.Mret();
  as.Bind(main);
  as.La(t0, handler);
  as.Csr(1, zero, 0x305, t0);
  return handler;
}

TEST(IssTest, EcallBeatDoesNotRetireAndPointsAtTheHandler) {
  Assembler as(kBase);
  const auto handler = InstallSkipHandler(as);
  const uint64_t ecall_pc = as.pc();
  as.Ecall();
  EmitExit(as);
  AsmRun run = Execute(as);
  ASSERT_EQ(run.iss->stop_reason(), StopReason::kExited);
  EXPECT_EQ(run.iss->exit_code(), 0);
  const Retired* trap = nullptr;
  const Retired* mret = nullptr;
  for (const Retired& b : run.beats) {
    if (b.itype == IType::kException) trap = &b;
    if (b.itype == IType::kTrapReturn) mret = &b;
  }
  ASSERT_NE(trap, nullptr);
  EXPECT_EQ(trap->pc, ecall_pc);
  EXPECT_FALSE(trap->retires);
  EXPECT_EQ(trap->iretire(), 0);
  EXPECT_EQ(trap->cause, 11u);
  EXPECT_EQ(trap->insn, 0x00000073u);
  EXPECT_EQ(trap->size, 4);
  EXPECT_EQ(trap->next_pc, as.Address(handler));
  ASSERT_NE(mret, nullptr);
  EXPECT_EQ(mret->next_pc, ecall_pc + 4);
  EXPECT_EQ(run.iss->beats(), run.iss->retired() + 1);
}

TEST(IssTest, IllegalInstructionReportsItsBitsInTval) {
  Assembler as(kBase);
  InstallSkipHandler(as);
  as.Emit32(0x0000000b);
  as.Emit16(0x0000);  // the all-zero half-word is illegal
  EmitExit(as);
  AsmRun run = Execute(as);
  std::vector<Retired> traps;
  for (const Retired& b : run.beats) {
    if (b.itype == IType::kException) traps.push_back(b);
  }
  ASSERT_EQ(traps.size(), 2u);
  EXPECT_EQ(traps[0].cause, 2u);
  EXPECT_EQ(traps[0].tval, 0x0000000bu);
  EXPECT_EQ(traps[1].cause, 2u);
  EXPECT_EQ(traps[1].size, 2);
  EXPECT_EQ(run.iss->stop_reason(), StopReason::kExited);
}

TEST(IssTest, DivisionEdgeCasesFollowTheSpec) {
  Assembler as(kBase);
  as.Li(a0, 7);
  as.Li(a1, 0);
  as.R(0x33, a2, 4, a0, a1, 1);  // div a2 = 7/0 = -1
  as.R(0x33, a3, 6, a0, a1, 1);  // rem a3 = 7%0 = 7
  as.Li(a4, INT64_MIN);
  as.Li(a5, -1);
  as.R(0x33, a6, 4, a4, a5, 1);  // div overflow = INT64_MIN
  as.R(0x33, a7, 1, a4, a4, 1);  // mulh(INT64_MIN, INT64_MIN) = 2^62
  as.R(0x3b, s2, 4, a0, a1, 1);  // divw by zero = -1
  EmitExit(as);
  AsmRun run = Execute(as);
  EXPECT_EQ(run.iss->TEST_Reg(a2), ~0ULL);
  EXPECT_EQ(run.iss->TEST_Reg(a3), 7u);
  EXPECT_EQ(run.iss->TEST_Reg(a6), static_cast<uint64_t>(INT64_MIN));
  EXPECT_EQ(run.iss->TEST_Reg(a7), 1ULL << 62);
  EXPECT_EQ(run.iss->TEST_Reg(s2), ~0ULL);
}

TEST(IssTest, LrScAndAmoBehave) {
  Assembler as(kBase);
  as.Li(s11, static_cast<int64_t>(kBase + 0x1000));
  as.Li(a0, 40);
  as.S(3, s11, a0, 0);
  as.R(0x2f, a1, 3, s11, 0, 0x02 << 2);  // lr.d a1, (s11)
  as.Li(a2, 41);
  as.R(0x2f, a3, 3, s11, a2, 0x03 << 2);  // sc.d a3, a2, (s11) -> 0 (success)
  as.R(0x2f, a4, 3, s11, a2, 0x03 << 2);  // again without reservation -> 1
  as.Li(a5, 2);
  as.R(0x2f, a6, 3, s11, a5, 0x00);  // amoadd.d a6, a5, (s11): a6 = 41, mem = 43
  as.I(0x03, a7, 3, s11, 0);
  EmitExit(as);
  AsmRun run = Execute(as);
  EXPECT_EQ(run.iss->TEST_Reg(a1), 40u);
  EXPECT_EQ(run.iss->TEST_Reg(a3), 0u);
  EXPECT_EQ(run.iss->TEST_Reg(a4), 1u);
  EXPECT_EQ(run.iss->TEST_Reg(a6), 41u);
  EXPECT_EQ(run.iss->TEST_Reg(a7), 43u);
}

TEST(IssTest, MisalignedLoadCompletesButMisalignedLrTraps) {
  Assembler as(kBase);
  InstallSkipHandler(as);
  as.Li(s11, static_cast<int64_t>(kBase + 0x1001));
  as.I(0x03, a0, 3, s11, 0);             // ld a0, 0(s11): misaligned, completes (as QEMU)
  as.R(0x2f, a1, 3, s11, 0, 0x02 << 2);  // lr.d: misaligned, traps with cause 4
  EmitExit(as);
  AsmRun run = Execute(as);
  int traps = 0;
  for (const Retired& b : run.beats) {
    if (b.itype != IType::kException) continue;
    ++traps;
    EXPECT_EQ(b.cause, 4u);
    EXPECT_EQ(b.tval, kBase + 0x1001);
  }
  EXPECT_EQ(traps, 1);
}

TEST(IssTest, JumpsAndBranchesCarryTheirItype) {
  Assembler as(kBase);
  const auto f = as.NewLabel(), after = as.NewLabel(), skip = as.NewLabel();
  as.Jal(ra, f);        // 9 direct call
  as.Jal(zero, after);  // 11 direct jump
  as.Bind(f);
  as.Jalr(zero, ra, 0);  // 13 return
  as.Bind(after);
  as.Li(a0, 0);
  as.Branch(0, a0, zero, skip);  // 5 taken
  as.Bind(skip);
  as.Branch(1, a0, zero, skip);  // 4 not taken
  EmitExit(as);
  AsmRun run = Execute(as);
  std::vector<IType> seen;
  for (const Retired& b : run.beats) {
    if (b.itype != IType::kNone) seen.push_back(b.itype);
  }
  const std::vector<IType> want = {IType::kDirectCall, IType::kReturn, IType::kDirectJump,
                                   IType::kTakenBranch, IType::kNotTakenBranch};
  EXPECT_EQ(seen, want);
  for (const Retired& b : run.beats) EXPECT_EQ(b.iretire(), b.size / 2);
}

TEST(IssTest, MaxInstructionsStopsTheRun) {
  Assembler as(kBase);
  const auto l = as.NewLabel();
  as.Bind(l);
  as.Jal(zero, l);
  IssOptions opts;
  opts.max_instructions = 1234;
  AsmRun run = Execute(as, opts);
  EXPECT_EQ(run.iss->stop_reason(), StopReason::kMaxInstructions);
  EXPECT_EQ(run.beats.size(), 1234u);
  EXPECT_EQ(run.iss->core_stop(), "max_instructions");
}

// The texts are stored in runs (metrics_json core_stop) and compared by the liveness judge.
TEST(IssTest, StopReasonTextsAreStableAndParseBack) {
  EXPECT_STREQ(StopReasonName(StopReason::kRunning), "running");
  EXPECT_STREQ(StopReasonName(StopReason::kExited), "exited");
  EXPECT_STREQ(StopReasonName(StopReason::kMaxInstructions), "max_instructions");
  EXPECT_STREQ(StopReasonName(StopReason::kFatal), "fatal");
  EXPECT_EQ(CoreStopText(StopReason::kFatal, "fetch from unmapped 0x1000"),
            "fatal: fetch from unmapped 0x1000");
  EXPECT_EQ(CoreStopText(StopReason::kExited, "ignored"), "exited");
  for (StopReason r : {StopReason::kRunning, StopReason::kExited, StopReason::kMaxInstructions,
                       StopReason::kFatal}) {
    EXPECT_EQ(ParseCoreStop(CoreStopText(r, "x")), r);
  }
  EXPECT_FALSE(ParseCoreStop("fatal").has_value());
  EXPECT_FALSE(ParseCoreStop("max-instructions").has_value());
  EXPECT_FALSE(ParseCoreStop("").has_value());
}

TEST(IssTest, FetchFromUnmappedTrapsThenStopsAsFatal) {
  Assembler as(kBase);
  as.Li(t0, 0x1000);
  as.Csr(1, zero, 0x305, t0);  // mtvec -> unmapped
  as.Jalr(zero, t0, 0);
  AsmRun run = Execute(as);
  EXPECT_EQ(run.iss->stop_reason(), StopReason::kFatal);
  EXPECT_NE(run.iss->fatal_message().find("0x1000"), std::string::npos);
  ASSERT_FALSE(run.beats.empty());
  EXPECT_EQ(run.beats.back().itype, IType::kException);
  EXPECT_EQ(run.beats.back().cause, 1u);
}

// ---- Workloads (cross-compiled at build time) ----

std::string WorkloadPath(const char* name) {
  return std::string(CTTE_BINARY_DIR) + "/workloads/" + name + ".elf";
}

struct WorkloadRun {
  std::string console;
  int exit_code = -1;
  StopReason stop = StopReason::kRunning;
  uint64_t retired = 0;
  std::vector<Retired> interrupts;
  std::vector<uint64_t> interrupt_retired;  ///< retired() when each interrupt beat came
  std::vector<Retired> beats;
};

WorkloadRun RunWorkload(const char* name, IssOptions opts, bool keep_beats = false) {
  WorkloadRun w;
  Result<ProgramImage> image = ProgramImage::Load(WorkloadPath(name));
  EXPECT_TRUE(image.ok()) << image.status().ToString();
  if (!image.ok()) return w;
  Iss iss(*image, opts);
  Retired r;
  while (true) {
    const uint64_t retired_before = iss.retired();
    if (!iss.Step(&r)) break;
    if (r.itype == IType::kInterrupt) {
      w.interrupts.push_back(r);
      w.interrupt_retired.push_back(retired_before);
    }
    if (keep_beats) w.beats.push_back(r);
  }
  w.console = iss.console();
  w.exit_code = iss.exit_code();
  w.stop = iss.stop_reason();
  w.retired = iss.retired();
  return w;
}

class IssWorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(WorkloadPath("loop"))) GTEST_SKIP() << "workloads not built";
  }
};

// Checksums as printed by the same ELFs under qemu-system-riscv64 (QEMU 7.2, virt).
TEST_F(IssWorkloadTest, WorkloadsPrintTheChecksumsQemuPrints) {
  const std::pair<const char*, const char*> kExpected[] = {
      {"loop", "loop checksum=0x000000000040939d\n"},
      {"calls", "calls checksum=0x8509f03d4b515f85\n"},
      {"ptrchase", "ptrchase checksum=0x4ad2934c834209c3\n"},
      {"sort", "sort checksum=0x4eeb4eb334a1f56f\n"},
      {"switch", "switch checksum=0x06d62eb0dd095d0a\n"},
      {"traps", "traps checksum=0x31657b22afdb70c6\n"},
  };
  for (const auto& [name, console] : kExpected) {
    SCOPED_TRACE(name);
    WorkloadRun w = RunWorkload(name, {});
    EXPECT_EQ(w.stop, StopReason::kExited);
    EXPECT_EQ(w.exit_code, 0);
    EXPECT_EQ(w.console, console);
    EXPECT_GE(w.retired, 50'000u);
    EXPECT_LE(w.retired, 2'000'000u);
  }
}

TEST_F(IssWorkloadTest, InterruptEvery1000OnLoopSitsAtThoseIndicesAndKeepsTheChecksum) {
  const WorkloadRun plain = RunWorkload("loop", {});
  IssOptions opts;
  opts.interrupt_every = 1000;
  const WorkloadRun irq = RunWorkload("loop", opts, /*keep_beats=*/true);
  EXPECT_EQ(irq.stop, StopReason::kExited);
  EXPECT_EQ(irq.console, plain.console);
  ASSERT_FALSE(irq.interrupts.empty());
  EXPECT_EQ(irq.interrupts.size(), irq.retired / 1000);
  for (size_t k = 0; k < irq.interrupt_retired.size(); ++k) {
    EXPECT_EQ(irq.interrupt_retired[k], 1000 * (k + 1)) << "interrupt " << k;
  }
  // Beat contract: the interrupt beat names the instruction that had not run yet; the handler's
  // mret comes back to it.
  for (size_t i = 0; i + 1 < irq.beats.size(); ++i) {
    const Retired& b = irq.beats[i];
    if (b.itype != IType::kInterrupt) continue;
    EXPECT_FALSE(b.retires);
    EXPECT_EQ(b.size, 0);
    EXPECT_EQ(b.insn, 0u);
    EXPECT_EQ(b.cause, (1ULL << 63) | 3);
    EXPECT_EQ(irq.beats[i + 1].pc, b.next_pc);
    for (size_t j = i + 1; j < irq.beats.size(); ++j) {
      if (irq.beats[j].itype == IType::kTrapReturn) {
        EXPECT_EQ(irq.beats[j].next_pc, b.pc);
        break;
      }
    }
  }
}

TEST_F(IssWorkloadTest, ExplicitInterruptIndicesAreHonoured) {
  IssOptions opts;
  opts.interrupt_at = {200000, 5000, 20000, 20001};  // unsorted on purpose
  const WorkloadRun w = RunWorkload("sort", opts);
  // 20001 arrives while the interrupt of 20000 is still pending (mip.MSIP is a level that the
  // handler clears through the CLINT): the two coalesce into one trap.
  ASSERT_EQ(w.interrupt_retired.size(), 3u);
  EXPECT_EQ(w.interrupt_retired[0], 5000u);
  EXPECT_EQ(w.interrupt_retired[1], 20000u);
  EXPECT_EQ(w.interrupt_retired[2], 200000u);
  EXPECT_EQ(w.stop, StopReason::kExited);
}

TEST_F(IssWorkloadTest, RunsAreDeterministic) {
  IssOptions opts;
  opts.interrupt_every = 777;
  const WorkloadRun a = RunWorkload("ptrchase", opts, true);
  const WorkloadRun b = RunWorkload("ptrchase", opts, true);
  ASSERT_EQ(a.beats.size(), b.beats.size());
  for (size_t i = 0; i < a.beats.size(); ++i) {
    ASSERT_EQ(a.beats[i].pc, b.beats[i].pc) << i;
    ASSERT_EQ(a.beats[i].itype, b.beats[i].itype) << i;
  }
}

}  // namespace
}  // namespace ctte::oracle
