// ISS speed: retired instructions per second on each cross-compiled workload (counter
// "insn/s"), plus one generated program; the loop through Iss::StepMany (BM_WorkloadBlocks);
// RV32 builds of two workloads and an RV32 generated one. Run: build/bench/iss_bench.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/program_gen.h"
#include "oracle/program_image.h"

namespace {

using ctte::oracle::Iss;
using ctte::oracle::IssOptions;
using ctte::oracle::ProgramImage;
using ctte::oracle::Retired;

void RunImage(benchmark::State& state, const ProgramImage& image, IssOptions opts) {
  uint64_t retired = 0;
  for (auto _ : state) {
    Iss iss(image, opts);
    Retired r;
    while (iss.Step(&r)) {
      benchmark::DoNotOptimize(r.pc);
    }
    retired += iss.retired();
  }
  state.counters["insn/s"] =
      benchmark::Counter(static_cast<double>(retired), benchmark::Counter::kIsRate);
  state.counters["insn/iter"] =
      static_cast<double>(retired) / static_cast<double>(state.iterations());
}

// The same, through Iss::StepMany in blocks of 256 beats (what the simulated board does).
void RunImageInBlocks(benchmark::State& state, const ProgramImage& image, IssOptions opts) {
  uint64_t retired = 0;
  std::vector<Retired> block(256);
  for (auto _ : state) {
    Iss iss(image, opts);
    while (iss.StepMany(block.data(), block.size()) == block.size()) {
      benchmark::DoNotOptimize(block[0].pc);
    }
    retired += iss.retired();
  }
  state.counters["insn/s"] =
      benchmark::Counter(static_cast<double>(retired), benchmark::Counter::kIsRate);
  state.counters["insn/iter"] =
      static_cast<double>(retired) / static_cast<double>(state.iterations());
}

void BM_WorkloadBlocks(benchmark::State& state, const std::string& name) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + name + ".elf";
  ctte::Result<ProgramImage> image = ProgramImage::Load(path);
  if (!image.ok()) {
    state.SkipWithError(image.status().ToString().c_str());
    return;
  }
  RunImageInBlocks(state, *image, {});
}

void BM_Workload(benchmark::State& state, const std::string& name, uint64_t interrupt_every) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + name + ".elf";
  ctte::Result<ProgramImage> image = ProgramImage::Load(path);
  if (!image.ok()) {
    state.SkipWithError(image.status().ToString().c_str());
    return;
  }
  IssOptions opts;
  opts.interrupt_every = interrupt_every;
  RunImage(state, *image, opts);
}

void BM_Generated(benchmark::State& state, ctte::oracle::Xlen xlen) {
  ctte::oracle::ProgramGenOptions o;
  o.max_dynamic = 500'000;
  o.xlen = xlen;
  const ProgramImage image = ctte::oracle::GenerateProgram(7, o).ToImage();
  RunImage(state, image, {});
}

BENCHMARK_CAPTURE(BM_Workload, loop, std::string("loop"), 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, loop_irq1000, std::string("loop"), 1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WorkloadBlocks, loop, std::string("loop"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, calls, std::string("calls"), 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, ptrchase, std::string("ptrchase"), 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, sort, std::string("sort"), 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, switch, std::string("switch"), 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, traps, std::string("traps"), 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Generated, rv64, ctte::oracle::Xlen::k64)->Unit(benchmark::kMillisecond);
// The RV32 core (issue #16): the same interpreter instantiated for 32-bit registers.
BENCHMARK_CAPTURE(BM_Workload, loop_rv32, std::string("loop-rv32"), 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Workload, sort_rv32, std::string("sort-rv32"), 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Generated, rv32, ctte::oracle::Xlen::k32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
