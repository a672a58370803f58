// RunBatch (see board_pool.h): worker threads over the soak's Scheduler and SoakBoards.
#include "runner/board_pool.h"

#include <memory>
#include <mutex>
#include <thread>

#include "runner/scheduler.h"
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

namespace {

struct Worker {
  unsigned slot = 0;
  const BoardPoolOptions* o = nullptr;
  std::unique_ptr<lab::RemoteBoard> remote;
  std::unique_ptr<SoakBoard> board;

  Status Spawn() {
    lab::RemoteBoardOptions bo = o->board;
    if (slot < o->slot_args.size()) {
      for (const std::string& a : o->slot_args[slot]) bo.args.push_back(a);
    }
    auto r = lab::RemoteBoard::Spawn(bo);
    if (!r.ok()) return r.status();
    remote = std::move(*r);
    board = std::make_unique<SoakBoard>(remote.get());
    return Status::Ok();
  }

  RunOutcome Execute(const RunConfig& config) {
    Result<PreparedRun> prepared = PrepareRun(config, o->execute);
    if (!prepared.ok()) return PrepareFailedOutcome(config, prepared.status());
    if (!board) {
      if (Status st = Spawn(); !st.ok()) {
        RunOutcome out = PrepareFailedOutcome(config, st);
        out.cause = InfraCause::kBoardDied;
        return out;
      }
    }
    board->BeginRecord();
    return ExecuteRun(*prepared, *board, nullptr, o->execute);
  }
};

bool LostBoard(InfraCause c) { return c == InfraCause::kBoardDied || c == InfraCause::kBoardTimeout; }

}  // namespace

std::vector<LegRun> RunBatch(const BoardPoolOptions& o, const std::vector<RunConfig>& configs) {
  std::vector<LegRun> out(configs.size());
  if (configs.empty()) return out;
  const unsigned n = std::max(1u, std::min<unsigned>(o.boards, static_cast<unsigned>(configs.size())));
  Scheduler scheduler([&configs](uint64_t i) { return configs[i].image; },
                      [](uint64_t) { return false; }, {}, n);
  scheduler.SetLimit(configs.size());
  std::vector<std::thread> threads;
  for (unsigned slot = 0; slot < n; ++slot) {
    threads.emplace_back([&, slot] {
      Worker w;
      w.slot = slot;
      w.o = &o;
      (void)w.Spawn();  // a failed spawn is retried per run (and then stored as infra)
      while (auto i = scheduler.Next(slot, w.board ? w.board->loaded_image() : "")) {
        RunOutcome res = w.Execute(configs[*i]);
        if (res.status == RunStatus::kInfra && LostBoard(res.cause)) {
          w.board.reset();
          w.remote.reset();
          if (w.Spawn().ok()) res = w.Execute(configs[*i]);  // once, on a fresh board
        }
        out[*i] = LegRunOf(res);
        scheduler.Finish(*i, slot, std::nullopt);
      }
      if (w.remote) (void)w.remote->Shutdown();
      scheduler.WorkerExits(slot);
    });
  }
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace ctte::runner
