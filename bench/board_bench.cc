// Simulated board throughput: fabric cycles and retired instructions per second through a
// SimBoard run (ISS, encoder model and capture together), and how the host time splits between
// the ISS, the model's eval() and the rest (harness, sink, ring), sampled by phase
// (base/phase_sampler.h: SIGPROF ticks, no clock read around each eval()).
//   build/bench/board_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <filesystem>

#include "base/phase_sampler.h"
#include "lab/image_manifest.h"
#include "lab/remote_board.h"
#include "lab/sim/sim_board.h"

namespace {

using namespace ctte::lab;

const std::string kImages = CTTE_BINARY_DIR "/images/";
const std::string kWorkloads = CTTE_BINARY_DIR "/workloads/";
const char* const kWorkloadNames[] = {"loop", "calls", "sort", "traps"};

std::unique_ptr<SimBoard> MakeBoard(benchmark::State& state) {
  auto m = ImageManifest::Load(kImages + "ntrace-slim.manifest.json");
  if (!m.ok()) {
    state.SkipWithError(("image not built: " + m.status().ToString()).c_str());
    return nullptr;
  }
  auto b = SimBoard::Create({});
  if (!b.ok() || !(*b)->Deploy(m->ToDeployRequest()).ok() ||
      !(*b)->SetClock(ClockDomain::kFabric, 93'750'000).ok() ||
      !(*b)->SetClock(ClockDomain::kSink, 100'000'000).ok()) {
    state.SkipWithError("board setup failed");
    return nullptr;
  }
  return std::move(*b);
}

RunPlan Plan(int64_t workload) {
  RunPlan p;
  p.workload_elf = kWorkloads + kWorkloadNames[workload] + ".elf";
  p.iss.max_instructions = 200'000;
  return p;
}

void BM_SimBoardRun(benchmark::State& state) {
  auto board = MakeBoard(state);
  if (!board) return;
  const RunPlan p = Plan(state.range(0));
  uint64_t cycles = 0, retired = 0, bytes = 0;
  for (auto _ : state) {
    auto c = board->Run(p);
    if (!c.ok()) {
      state.SkipWithError(c.status().ToString().c_str());
      return;
    }
    cycles += c->fabric_cycles;
    retired += c->retired;
    bytes += c->bytes.size();
  }
  state.SetLabel(kWorkloadNames[state.range(0)]);
  state.counters["fabric_cycles/s"] = benchmark::Counter(static_cast<double>(cycles),
                                                         benchmark::Counter::kIsRate);
  state.counters["retired/s"] = benchmark::Counter(static_cast<double>(retired),
                                                   benchmark::Counter::kIsRate);
  state.counters["bytes/run"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SimBoardRun)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

// Where a board run's CPU time goes, sampled by phase (base/phase_sampler.h).
void BM_SimBoardRunSplit(benchmark::State& state) {
  auto board = MakeBoard(state);
  if (!board) return;
  const RunPlan p = Plan(state.range(0));
  uint64_t evals = 0, cycles = 0;
  ctte::phase::PhaseSampler sampler;
  if (ctte::Status st = sampler.Start(); !st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto c = board->Run(p);
    if (!c.ok()) {
      state.SkipWithError(c.status().ToString().c_str());
      return;
    }
    evals += board->last_split().evals;
    cycles += c->fabric_cycles;
  }
  sampler.Stop();
  state.SetLabel(kWorkloadNames[state.range(0)]);
  state.counters["iss_%"] = sampler.percent(ctte::phase::kBoardIss);
  state.counters["eval_%"] = sampler.percent(ctte::phase::kModel);
  state.counters["rest_%"] = 100.0 - sampler.percent(ctte::phase::kBoardIss) -
                             sampler.percent(ctte::phase::kModel);
  state.counters["evals/fabric_cycle"] = static_cast<double>(evals) / static_cast<double>(cycles);
}
BENCHMARK(BM_SimBoardRunSplit)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same run through a board child process and the protocol (what the runner pays).
void BM_RemoteBoardRun(benchmark::State& state) {
  auto m = ImageManifest::Load(kImages + "ntrace-slim.manifest.json");
  if (!m.ok()) {
    state.SkipWithError("image not built");
    return;
  }
  RemoteBoardOptions o;
  o.board_path = CTTE_BINARY_DIR "/bin/ctte-board";
  auto b = RemoteBoard::Spawn(o);
  if (!b.ok() || !(*b)->Deploy(m->ToDeployRequest()).ok() ||
      !(*b)->SetClock(ClockDomain::kFabric, 93'750'000).ok()) {
    state.SkipWithError("board child setup failed");
    return;
  }
  const RunPlan p = Plan(state.range(0));
  uint64_t cycles = 0;
  for (auto _ : state) {
    auto c = (*b)->Run(p);
    if (!c.ok()) {
      state.SkipWithError(c.status().ToString().c_str());
      return;
    }
    cycles += c->fabric_cycles;
  }
  state.SetLabel(kWorkloadNames[state.range(0)]);
  state.counters["fabric_cycles/s"] = benchmark::Counter(static_cast<double>(cycles),
                                                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RemoteBoardRun)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
