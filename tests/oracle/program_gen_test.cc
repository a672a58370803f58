// The random program generator: determinism, termination on the ISS, knobs.
#include "oracle/program_gen.h"

#include <gtest/gtest.h>

#include <array>

#include "oracle/insn.h"
#include "oracle/iss.h"

namespace ctte::oracle {
namespace {

struct Outcome {
  StopReason stop = StopReason::kRunning;
  int exit_code = -1;
  uint64_t retired = 0;
  std::array<uint64_t, 16> itypes{};
  uint64_t compressed = 0;
};

Outcome RunOnIss(const GeneratedProgram& p, IssOptions opts = {}) {
  opts.max_instructions = 5'000'000;
  Iss iss(p.ToImage(), opts);
  Outcome o;
  Retired r;
  while (iss.Step(&r)) {
    ++o.itypes[static_cast<size_t>(r.itype)];
    if (r.retires && r.size == 2) ++o.compressed;
  }
  o.stop = iss.stop_reason();
  o.exit_code = iss.exit_code();
  o.retired = iss.retired();
  return o;
}

TEST(ProgramGenTest, SameSeedGivesSameBytesAndOtherSeedsDiffer) {
  const ProgramGenOptions opts;
  const GeneratedProgram a = GenerateProgram(42, opts), b = GenerateProgram(42, opts);
  const GeneratedProgram c = GenerateProgram(43, opts);
  EXPECT_EQ(a.segments[0].bytes, b.segments[0].bytes);
  EXPECT_EQ(a.segments[1].bytes, b.segments[1].bytes);
  EXPECT_NE(a.segments[0].bytes, c.segments[0].bytes);
}

TEST(ProgramGenTest, HundredSeedsTerminateWithinTheirEstimate) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    ProgramGenOptions opts;
    opts.loop_depth = static_cast<uint32_t>(seed % 4);
    opts.call_depth = static_cast<uint32_t>(seed % 7);
    opts.max_dynamic = 40'000;
    const GeneratedProgram p = GenerateProgram(seed, opts);
    const Outcome o = RunOnIss(p);
    ASSERT_EQ(o.stop, StopReason::kExited) << "seed " << seed;
    EXPECT_EQ(o.exit_code, 0) << "seed " << seed;
    EXPECT_LE(o.retired, p.estimated_dynamic) << "seed " << seed;
    EXPECT_LE(p.estimated_dynamic, opts.max_dynamic + 200) << "seed " << seed;
  }
}

// RV32: every instruction is RV32IMAC. The only illegal instruction a program holds is the
// intended custom-0 word (0x0000000b); each one decodes as RV32 (and the programs differ from the
// RV64 ones of the same seed, which hold RV64-only instructions).
TEST(ProgramGenTest, HundredRv32SeedsTerminateAndUseOnlyRv32Instructions) {
  uint64_t illegal = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    ProgramGenOptions opts;
    opts.loop_depth = static_cast<uint32_t>(seed % 4);
    opts.call_depth = static_cast<uint32_t>(seed % 7);
    opts.compressed_percent = static_cast<uint32_t>((seed * 17) % 101);
    opts.max_dynamic = 40'000;
    opts.xlen = Xlen::k32;
    const GeneratedProgram p = GenerateProgram(seed, opts);
    ASSERT_EQ(p.ToImage().xlen(), Xlen::k32);
    IssOptions iopts;
    iopts.max_instructions = 5'000'000;
    Iss iss(p.ToImage(), iopts);
    Retired r;
    while (iss.Step(&r)) {
      if (r.itype == IType::kException && r.cause == 2) {
        EXPECT_EQ(r.tval, 0x0000000bu) << "seed " << seed << " pc 0x" << std::hex << r.pc;
        ++illegal;
      }
      if (r.retires) {
        EXPECT_NE(DecodeInsn(r.insn, Xlen::k32).cls, InsnClass::kIllegal) << "seed " << seed;
      }
    }
    ASSERT_EQ(iss.stop_reason(), StopReason::kExited) << "seed " << seed;
    EXPECT_LE(iss.retired(), p.estimated_dynamic) << "seed " << seed;
  }
  EXPECT_GT(illegal, 0u);  // the custom-0 traps are there, and are the only ones
  ProgramGenOptions o64, o32;
  o32.xlen = Xlen::k32;
  EXPECT_NE(GenerateProgram(5, o64).segments[0].bytes, GenerateProgram(5, o32).segments[0].bytes);
}

TEST(ProgramGenTest, DefaultKnobsCoverEveryRetiringItypeAndExceptions) {
  std::array<uint64_t, 16> seen{};
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Outcome o = RunOnIss(GenerateProgram(seed, {}));
    for (size_t i = 0; i < seen.size(); ++i) seen[i] += o.itypes[i];
  }
  for (int t : {0, 1, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15}) {
    EXPECT_GT(seen[static_cast<size_t>(t)], 0u) << "itype " << t;
  }
}

TEST(ProgramGenTest, KnobsTakeEffect) {
  ProgramGenOptions none;
  none.compressed_percent = 0;
  none.trap_per_mille = 0;
  none.indirect_per_mille = 0;
  const Outcome plain = RunOnIss(GenerateProgram(5, none));
  EXPECT_EQ(plain.compressed, 0u);
  EXPECT_EQ(plain.itypes[static_cast<size_t>(IType::kException)], 0u);
  EXPECT_EQ(plain.itypes[static_cast<size_t>(IType::kIndirectJump)], 0u);
  EXPECT_EQ(plain.itypes[static_cast<size_t>(IType::kIndirectCall)], 0u);

  ProgramGenOptions heavy;
  heavy.compressed_percent = 100;
  heavy.trap_per_mille = 100;
  heavy.indirect_per_mille = 200;
  const Outcome busy = RunOnIss(GenerateProgram(5, heavy));
  EXPECT_GT(busy.compressed, busy.retired / 4);
  EXPECT_GT(busy.itypes[static_cast<size_t>(IType::kException)], 10u);
  EXPECT_GT(busy.itypes[static_cast<size_t>(IType::kIndirectJump)], 10u);
}

TEST(ProgramGenTest, InterruptsAreServedByTheGeneratedHandler) {
  IssOptions opts;
  opts.interrupt_every = 500;
  const Outcome o = RunOnIss(GenerateProgram(9, {}), opts);
  EXPECT_EQ(o.stop, StopReason::kExited);
  EXPECT_GT(o.itypes[static_cast<size_t>(IType::kInterrupt)], 10u);
}

}  // namespace
}  // namespace ctte::oracle
