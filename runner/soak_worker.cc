// The soak's worker (see soak_worker.h).
#include "runner/soak_worker.h"

#include <nlohmann/json.hpp>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "base/files.h"
#include "base/sha256.h"
#include "base/text.h"
#include "db/database.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/scheduler.h"
#include "runner/board_worker.h"
#include "runner/soak_boards.h"
#include "runner/soak_health.h"

namespace ctte::runner::soak_internal {

void Count(RunStatus s, SoakCounts* c) {
  ++c->done;
  switch (s) {
    case RunStatus::kGreen: ++c->green; break;
    case RunStatus::kRed: ++c->red; break;
    case RunStatus::kInvalid: ++c->invalid; break;
    case RunStatus::kInfra: ++c->infra; break;
  }
}

void Log(Shared& shared, LogLevel level, const std::string& line) {
  if (shared.log) shared.log(level, line);
}

void Count(db::RunStatus s, SoakCounts* c) {
  Count(FromDbStatus(s).value_or(RunStatus::kInfra), c);
}

namespace {


bool LostBoard(InfraCause c) {
  return c == InfraCause::kBoardDied || c == InfraCause::kBoardTimeout;
}

class Worker : public SoakWorker {
 public:
  Worker(Shared* shared, unsigned slot)
      : s_(shared), slot_(slot), name_(shared->options->boards.Name(slot)),
        health_(shared, slot, name_) {}

  /// Kills the board child (from another thread: a second stop request). The worker's next
  /// board call then fails, and the worker stores nothing of that run.
  void KillBoard() override {
    if (BoardWorker* w = worker_.load()) w->Kill();
  }

  void Run() override {
    if (Status st = Start(); !st.ok()) {
      Log(*s_, LogLevel::kError, name_ + ": cannot open: " + st.ToString());
      Fatal("board " + std::to_string(slot_) + ": " + st.ToString());
    } else {
      while (auto index = s_->scheduler->Next(slot_, bw_->is_open() ? board().loaded_image() : "")) {
        if (!RunIndex(*index)) break;
      }
    }
    if (bw_) {  // the board stays open: RunSoak closes the set after the last controls
      std::lock_guard<std::mutex> lk(s_->mu);
      s_->deploys += bw_->deploys() - deploys_before_;
    }
    s_->scheduler->WorkerExits(slot_);
  }

 private:
  Status Start() {
    auto db = db::Database::Open(s_->options->db_path);
    if (!db.ok()) return db.status();
    db_ = std::move(*db);
    bw_ = &s_->board_set->at(slot_);
    worker_ = bw_;
    deploys_before_ = bw_->deploys();  // the controls' deploys are not the draws'
    CTTE_RETURN_IF_ERROR(s_->board_set->Opened(slot_).status());  // open unless the controls did
    LogOpened();
    return Status::Ok();
  }

  SoakBoard& board() { return bw_->board(); }

  void LogOpened() {
    const lab::BoardIdentity& id = bw_->identity();
    Log(*s_, LogLevel::kInfo, name_ + ": opened (" + id.kind + ", serial " + id.serial +
                                  (id.image_sha256.empty() ? "" : ", holds image " + id.image_sha256) + ")");
  }

  RunOutcome Execute(const RunConfig& config) {
    Result<PreparedRun> prepared = PrepareRun(config, s_->options->execute);
    if (!prepared.ok()) {
      return PrepareFailedOutcome(config, prepared.status());
    }
    if (manifest_text_.count(prepared->manifest.sha256) == 0) {
      Result<std::string> text = ReadFileText(prepared->manifest.manifest_path);
      manifest_text_[prepared->manifest.sha256] = text.ok() ? *text : "";
    }
    board().BeginRecord();
    std::unique_ptr<PlaybackBoard> playback;
    lab::Board* twin = nullptr;
    if (config.twin_of) {
      if (std::optional<BoardRunRecord> rec = s_->scheduler->TakeRecord(*config.twin_of)) {
        playback = std::make_unique<PlaybackBoard>(std::move(*rec));
        twin = playback.get();
      } else {
        twin = &board();  // the original's capture is gone (resume): run its plan again
      }
    }
    const uint64_t skipped = board().skipped_deploys();
    RunOutcome out = ExecuteRun(*prepared, board(), twin, s_->options->execute);
    if (board().skipped_deploys() > skipped) {
      Log(*s_, LogLevel::kInfo, name_ + ": deploy of " + prepared->manifest.name + " skipped: the board " +
                                    "already holds sha256 " + prepared->manifest.sha256);
    }
    return out;
  }

  // A second stop request came: the run in flight is dropped, nothing of it stored.
  bool Abandoned(uint64_t index) {
    if (!s_->abandon.load()) return false;
    {
      std::lock_guard<std::mutex> lk(s_->mu);
      ++s_->abandoned;
    }
    s_->scheduler->Finish(index, slot_, std::nullopt);
    return true;
  }

  void NoteOutcome(const RunOutcome& out) {
    if (out.status != RunStatus::kInfra || !LostBoard(out.cause)) return;
    std::lock_guard<std::mutex> lk(s_->mu);
    ++s_->counts.deaths;
    ++s_->boards[slot_].deaths;
  }

  // Runs, retries an infra outcome once on a fresh board (or hands it to another board when
  // this one is quarantined or cannot be reopened), stores. False: stop this worker.
  bool RunIndex(uint64_t index) {
    const RunConfig config = Draw(*s_->spec, index);
    const std::string started = NowIsoUtc();
    std::vector<RunAttempt> attempts = health_.TakeHanded(index);  // earlier attempts, other boards
    RunOutcome out = Execute(config);
    if (Abandoned(index)) return false;
    ApplyVerdictOverride(s_->options->TEST_verdict_override, &out);
    NoteOutcome(out);
    health_.Note(out);
    // A board failure is retried; a refusal that a fresh board would repeat is not.
    const bool retry = out.status == RunStatus::kInfra && IsRetryable(out.cause);
    if (retry) {
      {
        std::lock_guard<std::mutex> lk(s_->mu);
        ++s_->counts.retried;
        ++s_->boards[slot_].retried;
      }
      Log(*s_, LogLevel::kWarn, name_ + ": run " + std::to_string(index) + " infra (" +
                                    InfraCauseName(out.cause) + "): " + out.status_reason);
      const int64_t first_board = bw_->board_id();
      Status st = Respawn();
      attempts.push_back(AttemptOf(out, first_board, started, st.ok()));
      if (!st.ok()) health_.Lost(st.ToString());
      if (health_.QuarantineDue() && s_->scheduler->OtherActive(slot_)) {
        // Another board takes the run (with this attempt); this one is quarantined.
        (void)board().TakeRecord();
        health_.Handoff(index, std::move(attempts));
        Quarantine();
        return true;
      }
      if (st.ok()) {
        out = Execute(config);  // a twin's record went to the first attempt: plan runs again
        if (Abandoned(index)) return false;
        NoteOutcome(out);
        health_.Note(out);
      } else {
        out.status_reason += "; respawn failed: " + st.ToString();
      }
      if (out.status == RunStatus::kInfra && st.ok()) {
        Status again = Respawn();  // leave a fresh board behind
        if (!again.ok()) health_.Lost(again.ToString());
        if (IsRetryable(out.cause) && health_.QuarantineDue() &&
            s_->scheduler->OtherActive(slot_)) {
          // The retry failed too and this board is now quarantined: another board takes it.
          attempts.push_back(AttemptOf(out, bw_->board_id(), started, again.ok()));
          (void)board().TakeRecord();
          health_.Handoff(index, std::move(attempts));
          Quarantine();
          return true;
        }
      }
      ApplyVerdictOverride(s_->options->TEST_verdict_override, &out);
    }
    std::optional<BoardRunRecord> record = board().TakeRecord();

    db::RunRecord rec = StoredRunRecord(out);
    rec.campaign_id = s_->campaign_id;
    rec.board_id = bw_->board_id();
    rec.started_at = started;
    const bool keep_bytes = s_->options->store_all_streams ||
                            out.status == RunStatus::kRed || out.status == RunStatus::kInvalid;
    if (!out.image_sha256.empty() && images_.insert(out.image_sha256).second) {
      db::ImageRecord image{out.image_name, out.image_sha256, out.build_id,
                            manifest_text_[out.image_sha256]};
      if (auto r = db_->UpsertImage(image); !r.ok()) {
        Fatal("database: " + r.status().ToString());
        s_->scheduler->Finish(index, slot_, std::nullopt);
        return false;
      }
    }
    // The earlier attempts (board deaths, respawns) go to run_attempts in the same transaction.
    Result<int64_t> id = db_->RecordRun(rec, out.VerdictRecords(),
                                        keep_bytes && !out.stream.empty() ? &out.stream : nullptr,
                                        ToAttemptRecords(attempts));
    if (!id.ok()) {
      Fatal("database: run " + std::to_string(index) + ": " + id.status().ToString());
      s_->scheduler->Finish(index, slot_, std::nullopt);
      return false;
    }
    s_->scheduler->Finish(index, slot_, std::move(record));
    health_.NoteGreen(config, out);
    Log(*s_, out.status == RunStatus::kGreen ? LogLevel::kInfo : LogLevel::kWarn,
        name_ + ": run " + std::to_string(index) + " (id " + std::to_string(*id) + ") " +
            RunStatusName(out.status) + (out.status_reason.empty() ? "" : ": " + out.status_reason) +
            (attempts.empty() ? "" : " after " + std::to_string(attempts.size()) + " failed attempt(s)"));
    SoakRunEvent ev;
    ev.index = index;
    ev.seed = config.seed;
    ev.run_id = *id;
    ev.board = slot_;
    ev.status = out.status;
    ev.reason = out.status_reason;
    ev.twin_of = config.twin_of;
    ev.wall_seconds = out.wall_seconds;
    ev.attempts = std::move(attempts);
    {
      std::lock_guard<std::mutex> lk(s_->mu);
      Count(out.status, &s_->counts);
      Count(out.status, &s_->boards[slot_]);
      ev.counts = s_->counts;
      ev.total = s_->total;
      ev.elapsed_seconds = std::chrono::duration<double>(SteadyClock::now() - s_->start).count();
      if (*s_->progress) (*s_->progress)(ev);
    }
    if (health_.QuarantineDue()) Quarantine();
    return true;
  }

  // One health check (runner/board_health.h): reopen the board, run the known-green
  // configuration; green with the same stream passes.
  bool HealthCheck() {
    std::optional<std::pair<RunConfig, std::string>> known = health_.HealthConfig();
    if (!known) {
      Log(*s_, LogLevel::kWarn, name_ + ": health check not possible yet: no green run so far");
      return false;
    }
    if (Status st = Respawn(); !st.ok()) {
      Log(*s_, LogLevel::kWarn, name_ + ": health check: cannot reopen: " + st.ToString());
      return false;
    }
    RunConfig config = known->first;
    config.twin_of.reset();
    const RunOutcome out = Execute(config);
    (void)board().TakeRecord();
    const bool ok = out.status == RunStatus::kGreen && out.stream_sha256 == known->second;
    Log(*s_, ok ? LogLevel::kInfo : LogLevel::kWarn,
        name_ + ": health check (run " + std::to_string(config.index) + "'s config): " +
            (ok ? "passed" : std::string(RunStatusName(out.status)) +
                                 (out.stream_sha256 == known->second ? "" : ", stream differs") +
                                 ": " + out.status_reason));
    return ok;
  }

  void Quarantine() { health_.Quarantine([this] { return HealthCheck(); }); }

  // Reopens the board (BoardWorker::Reopen: a child respawned, a lab board reconnected) and
  // counts it.
  Status Respawn() {
    const bool lab = s_->options->boards.lab();
    if (!lab && s_->abandon.load()) {
      bw_->board().Forget();
      return Status::Unavailable("the soak is stopping");
    }
    Status st = bw_->Reopen();
    if (lab || st.ok()) {  // a lab board's reconnect counts even when it failed
      std::lock_guard<std::mutex> lk(s_->mu);
      ++s_->counts.respawns;
      ++s_->boards[slot_].respawns;
    }
    if (st.ok()) LogOpened();
    return st;
  }

  void Fatal(const std::string& why) {
    {
      std::lock_guard<std::mutex> lk(s_->mu);
      if (s_->fatal.empty()) s_->fatal = why;
    }
    s_->scheduler->Stop();
  }

  Shared* s_;
  unsigned slot_;
  std::string name_;
  BoardHealth health_;
  std::unique_ptr<db::Database> db_;
  BoardWorker* bw_ = nullptr;
  std::atomic<BoardWorker*> worker_{nullptr};  // bw_, for KillBoard from another thread
  uint64_t deploys_before_ = 0;
  std::set<std::string> images_;
  std::map<std::string, std::string> manifest_text_;
};

}  // namespace

std::unique_ptr<SoakWorker> MakeSoakWorker(Shared* shared, unsigned slot) {
  return std::make_unique<Worker>(shared, slot);
}

}  // namespace ctte::runner::soak_internal
