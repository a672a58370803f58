// RunBatch (see board_pool.h): BoardWorker threads over the soak's Scheduler.
#include "runner/board_pool.h"

#include <memory>
#include <mutex>
#include <thread>

#include "runner/scheduler.h"
#include "base/text.h"
#include "runner/board_worker.h"
#include "runner/soak_boards.h"

namespace ctte::runner {

LegRun LegRunOf(const RunOutcome& out) {
  LegRun r;
  r.status = out.status;
  for (const oracle::Verdict& v : out.verdicts) {
    if (v.failed()) r.red_verdicts.push_back(oracle::VerdictCodeName(v.code));
  }
  r.reason = out.status_reason;
  r.board_serial = out.board_serial;
  r.wall_ms = static_cast<int64_t>(out.wall_seconds * 1000.0 + 0.5);
  return r;
}

std::vector<LegRun> RunBatch(const BoardPoolOptions& o, const std::vector<RunConfig>& configs) {
  std::vector<LegRun> out(configs.size());
  if (configs.empty()) return out;
  const unsigned n =
      std::max(1u, std::min<unsigned>(o.boards.size(), static_cast<unsigned>(configs.size())));
  Scheduler scheduler([&configs](uint64_t i) { return configs[i].image; },
                      [](uint64_t) { return false; }, {}, n);
  scheduler.SetLimit(configs.size());
  std::vector<std::thread> threads;
  for (unsigned slot = 0; slot < n; ++slot) {
    threads.emplace_back([&, slot] {
      BoardWorker w(o.boards, slot, nullptr, o.execute.ring_bytes);
      (void)w.Open();  // a failed open is tried again per run (and then a leg run is infra)
      while (auto i = scheduler.Next(slot, w.is_open() ? w.board().loaded_image() : "")) {
        const RunConfig& config = configs[*i];
        RunOutcome res = w.Run(
            [&](SoakBoard& board) -> RunOutcome {
              Result<PreparedRun> prepared = PrepareRun(config, o.execute);
              if (!prepared.ok()) return PrepareFailedOutcome(config, prepared.status());
              return ExecuteRun(*prepared, board, nullptr, o.execute);
            },
            nullptr, NowIsoUtc());
        out[*i] = LegRunOf(res);
        scheduler.Finish(*i, slot, std::nullopt);
      }
      w.Close();
      scheduler.WorkerExits(slot);
    });
  }
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace ctte::runner
