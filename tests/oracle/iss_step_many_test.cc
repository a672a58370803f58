// Iss::StepMany against Iss::Step: the same beats in the same order, whatever the block size,
// and the same end state (stop reason, counts, console), on workloads with traps, interrupts,
// an instruction limit and both register widths.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/program_gen.h"
#include "oracle/program_image.h"

namespace ctte::oracle {
namespace {

struct Run {
  std::vector<Retired> beats;
  StopReason stop = StopReason::kRunning;
  uint64_t retired = 0, counted_beats = 0;
  int exit_code = -1;
  std::string console;
};

Run Finish(const Iss& iss, std::vector<Retired> beats) {
  return Run{std::move(beats), iss.stop_reason(), iss.retired(), iss.beats(), iss.exit_code(),
             iss.console()};
}

Run ByStep(const ProgramImage& image, const IssOptions& opts) {
  Iss iss(image, opts);
  std::vector<Retired> beats;
  Retired r;
  while (iss.Step(&r)) beats.push_back(r);
  return Finish(iss, std::move(beats));
}

Run ByBlocks(const ProgramImage& image, const IssOptions& opts, size_t block) {
  Iss iss(image, opts);
  std::vector<Retired> beats;
  std::vector<Retired> buf(block);
  for (;;) {
    const size_t k = iss.StepMany(buf.data(), block);
    beats.insert(beats.end(), buf.begin(), buf.begin() + static_cast<long>(k));
    if (k < block) break;
  }
  Retired r;
  EXPECT_EQ(iss.StepMany(buf.data(), block), 0u) << "a stopped ISS yields no more beats";
  EXPECT_FALSE(iss.Step(&r));
  return Finish(iss, std::move(beats));
}

void ExpectSame(const Run& want, const Run& got, const std::string& what) {
  ASSERT_EQ(want.beats.size(), got.beats.size()) << what;
  for (size_t i = 0; i < want.beats.size(); ++i) {
    const Retired &a = want.beats[i], &b = got.beats[i];
    ASSERT_TRUE(a.pc == b.pc && a.next_pc == b.next_pc && a.cause == b.cause &&
                a.tval == b.tval && a.insn == b.insn && a.size == b.size &&
                a.itype == b.itype && a.priv == b.priv && a.retires == b.retires)
        << what << ": beat " << i << " differs (pc " << a.pc << " vs " << b.pc << ")";
  }
  EXPECT_EQ(want.stop, got.stop) << what;
  EXPECT_EQ(want.retired, got.retired) << what;
  EXPECT_EQ(want.counted_beats, got.counted_beats) << what;
  EXPECT_EQ(want.exit_code, got.exit_code) << what;
  EXPECT_EQ(want.console, got.console) << what;
}

void CheckAllBlockSizes(const ProgramImage& image, const IssOptions& opts,
                        const std::string& name) {
  const Run want = ByStep(image, opts);
  ASSERT_GT(want.beats.size(), 100u) << name;
  for (size_t block : {size_t{1}, size_t{7}, size_t{256}, want.beats.size() + 1}) {
    ExpectSame(want, ByBlocks(image, opts, block), name + " block " + std::to_string(block));
  }
}

Result<ProgramImage> Workload(const std::string& name) {
  return ProgramImage::Load(std::string(CTTE_BINARY_DIR) + "/workloads/" + name + ".elf");
}

TEST(IssStepManyTest, WorkloadsWithTrapsAndInterruptsGiveTheSameBeats) {
  IssOptions irq;
  irq.interrupt_every = 997;
  irq.interrupt_at = {5, 40};
  for (const char* name : {"traps", "loop", "loop-rv32", "sort-rv32"}) {
    const Result<ProgramImage> image = Workload(name);
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    CheckAllBlockSizes(*image, {}, name);
    CheckAllBlockSizes(*image, irq, std::string(name) + " with interrupts");
  }
}

TEST(IssStepManyTest, TheInstructionLimitEndsABlockWhereStepStops) {
  const Result<ProgramImage> image = Workload("loop");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  IssOptions opts;
  opts.max_instructions = 1000;  // not a multiple of 7 or 256
  CheckAllBlockSizes(*image, opts, "loop limited");
  EXPECT_EQ(ByBlocks(*image, opts, 256).stop, StopReason::kMaxInstructions);
}

TEST(IssStepManyTest, GeneratedProgramsOfBothWidthsGiveTheSameBeats) {
  for (Xlen xlen : {Xlen::k64, Xlen::k32}) {
    ProgramGenOptions o;
    o.max_dynamic = 20'000;
    o.xlen = xlen;
    CheckAllBlockSizes(GenerateProgram(11, o).ToImage(), {},
                       xlen == Xlen::k32 ? "generated rv32" : "generated rv64");
  }
}

}  // namespace
}  // namespace ctte::oracle
