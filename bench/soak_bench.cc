// The smoke campaign as the nightly soak runs it: runs per hour and simulated (retired)
// instructions per second with one and two board child processes (RunSoak, each run stored in a
// fresh database), and where the time goes: the same runs in this process on a SimBoard with
// the eval() timer on, so the share of host time spent outside the Verilator model (planning,
// reference ISS + encoder, board ISS, sink, decoding, judging) can be read off.
//   build/bench/soak_bench [--benchmark_filter=...]
// Each benchmark does one campaign (Iterations(1)); figures are counters.
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "db/database.h"
#include "lab/sim/sim_board.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/execute.h"
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
    o.boards = boards;
    o.db_path = db_path;
    o.execute = Exec();
    o.board.board_path = CTTE_BINARY_DIR "/bin/ctte-board";
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

// The smoke runs in this process: total host time per run (prepare + board + judge) against
// the time inside the model's eval().
void BM_SmokeTimeSplit(benchmark::State& state) {
  auto check = runner::LoadCampaignSpec(kSpec);
  if (!check.ok() || !check->ok()) {
    state.SkipWithError("smoke.json does not load");
    return;
  }
  const runner::CampaignSpec& spec = check->spec;
  lab::SimBoardOptions bo;
  bo.time_split = true;
  auto board = lab::SimBoard::Create(bo);
  if (!board.ok()) {
    state.SkipWithError(board.status().ToString().c_str());
    return;
  }
  const runner::ExecuteOptions exec = Exec();
  for (auto _ : state) {
    double total = 0, board_total = 0, eval = 0, iss = 0;
    uint64_t retired = 0;
    for (uint64_t i = 0; i < spec.runs.value_or(12); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      auto prepared = runner::PrepareRun(runner::Draw(spec, i), exec);
      if (!prepared.ok()) {
        state.SkipWithError(prepared.status().ToString().c_str());
        return;
      }
      runner::RunOutcome out = runner::ExecuteRun(*prepared, **board, nullptr, exec);
      total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const lab::RunTimeSplit& s = (*board)->last_split();
      board_total += s.total_s;
      eval += s.eval_s;
      iss += s.iss_s;
      if (out.capture) retired += out.capture->retired;
    }
    state.counters["seconds"] = total;
    state.counters["in_model_%"] = 100.0 * eval / total;
    state.counters["outside_model_%"] = 100.0 * (total - eval) / total;
    state.counters["board_iss_%"] = 100.0 * iss / total;
    state.counters["board_other_%"] = 100.0 * (board_total - eval - iss) / total;
    state.counters["prepare_judge_%"] = 100.0 * (total - board_total) / total;
    state.counters["sim_insns/s"] = static_cast<double>(retired) / total;
  }
}
BENCHMARK(BM_SmokeTimeSplit)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
