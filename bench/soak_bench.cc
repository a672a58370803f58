// The smoke campaign as the nightly soak runs it: runs per hour and simulated (retired)
// instructions per second with one and two board child processes (RunSoak, each run stored in a
// fresh database), and where the time goes: the same runs in this process on a SimBoard,
// sampled by phase, so the share of host time spent outside the Verilator model (planning,
// reference ISS + encoder, board ISS, harness, decoding, judging) can be read off.
//   build/bench/soak_bench [--benchmark_filter=...]
// Each benchmark does one campaign (Iterations(1)); figures are counters.
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "base/allocator.h"
#include "base/phase_sampler.h"
#include "db/database.h"
#include "lab/sim/sim_board.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/execute.h"
#include "runner/reference_cache.h"
#include "runner/soak.h"

namespace {

using namespace ctte;

const std::string kSpec = CTTE_SOURCE_DIR "/campaigns/smoke.json";

runner::ExecuteOptions Exec() {
  runner::ExecuteOptions o;
  o.image_dir = CTTE_BINARY_DIR "/images";
  o.workload_dir = CTTE_BINARY_DIR "/workloads";
  return o;
}

uint64_t RetiredInDb(const std::string& path, int64_t campaign_id) {
  auto d = db::Database::Open(path);
  if (!d.ok()) return 0;
  auto rows = (*d)->RunsOfCampaign(campaign_id);
  uint64_t retired = 0;
  if (!rows.ok()) return 0;
  for (const db::RunRow& r : *rows) {
    if (r.run.metrics_json.empty()) continue;
    auto j = nlohmann::json::parse(r.run.metrics_json);
    retired += j.value("retired", uint64_t{0});
  }
  return retired;
}

void BM_SmokeSoak(benchmark::State& state) {
  const unsigned boards = static_cast<unsigned>(state.range(0));
  const std::string db_path = "/tmp/ctte_soak_bench_" + std::to_string(getpid()) + "_" +
                              std::to_string(boards) + ".db";
  for (auto _ : state) {
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + s);
    runner::SoakOptions o;
    o.spec_path = kSpec;
    o.boards.count = boards;
    o.db_path = db_path;
    o.execute = Exec();
    o.boards.child.board_path = CTTE_BINARY_DIR "/bin/ctte-board";
    const auto t0 = std::chrono::steady_clock::now();
    auto s = runner::RunSoak(o, nullptr);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s.ok()) {
      state.SkipWithError(s.status().ToString().c_str());
      return;
    }
    const uint64_t retired = RetiredInDb(db_path, s->campaign_id);
    state.counters["runs"] = static_cast<double>(s->counts.done);
    state.counters["green"] = static_cast<double>(s->counts.green);
    state.counters["seconds"] = secs;
    state.counters["runs/hour"] = static_cast<double>(s->counts.done) * 3600.0 / secs;
    state.counters["sim_insns/s"] = static_cast<double>(retired) / secs;
    state.counters["deploys"] = static_cast<double>(s->deploys);
  }
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + s);
}
BENCHMARK(BM_SmokeSoak)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// The smoke runs in this process, sampled by phase (base/phase_sampler.h: SIGPROF ticks of
// process CPU time, so the split does not depend on the machine's load): the share of host time
// inside the model's eval() against the board's harness, the board's ISS, planning (draw,
// reference ISS + encoder) and decoding + judging.
void BM_SmokeTimeSplit(benchmark::State& state) {
  auto check = runner::LoadCampaignSpec(kSpec);
  if (!check.ok() || !check->ok()) {
    state.SkipWithError("smoke.json does not load");
    return;
  }
  const runner::CampaignSpec& spec = check->spec;
  auto board = lab::SimBoard::Create({});
  if (!board.ok()) {
    state.SkipWithError(board.status().ToString().c_str());
    return;
  }
  const runner::ExecuteOptions exec = Exec();
  (void)RetainFreedMemory();  // what RunSoak and the board server do (base/allocator.h)
  for (auto _ : state) {
    phase::PhaseSampler sampler;
    if (Status st = sampler.Start(); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t retired = 0;
    for (uint64_t i = 0; i < spec.runs.value_or(12); ++i) {
      Result<runner::PreparedRun> prepared = [&] {
        const phase::Scope in_prepare(phase::kPrepare);
        return runner::PrepareRun(runner::Draw(spec, i), exec);
      }();
      if (!prepared.ok()) {
        state.SkipWithError(prepared.status().ToString().c_str());
        return;
      }
      const phase::Scope in_judge(phase::kJudge);  // the board's Run() marks its own phases
      runner::RunOutcome out = runner::ExecuteRun(*prepared, **board, nullptr, exec);
      if (out.capture) retired += out.capture->retired;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sampler.Stop();
    state.counters["seconds"] = secs;
    state.counters["samples"] = static_cast<double>(sampler.total_ticks());
    state.counters["in_model_%"] = sampler.percent(phase::kModel);
    state.counters["outside_model_%"] = 100.0 - sampler.percent(phase::kModel);
    state.counters["board_iss_%"] = sampler.percent(phase::kBoardIss);
    state.counters["board_harness_%"] = sampler.percent(phase::kBoardHarness);
    state.counters["prepare_%"] = sampler.percent(phase::kPrepare);
    state.counters["judge_%"] = sampler.percent(phase::kJudge);
    state.counters["other_%"] = sampler.percent(phase::kOther);
    state.counters["sim_insns/s"] = static_cast<double>(retired) / secs;
    // PrepareRun's reference cache (runner/reference_cache.h): runs whose reference was reused.
    state.counters["reference_hits"] = static_cast<double>(runner::ProcessReferenceCache().hits());
    state.counters["reference_misses"] =
        static_cast<double>(runner::ProcessReferenceCache().misses());
    // Misses whose reference ISS run came from a recorded trace (only the encoder ran), and
    // misses that recorded one (the second run of an ISS run).
    state.counters["reference_trace_hits"] =
        static_cast<double>(runner::ProcessReferenceCache().trace_hits());
    state.counters["reference_trace_records"] =
        static_cast<double>(runner::ProcessReferenceCache().trace_records());
  }
}
BENCHMARK(BM_SmokeTimeSplit)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
