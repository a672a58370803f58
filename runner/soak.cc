// RunSoak: one worker thread per board, fed by a Scheduler (runner/scheduler.h: resume
// skipping, twins after their originals, image affinity; every index exactly once).
//
// Each worker owns a RemoteBoard child wrapped in a SoakBoard (one deploy per image
// per board; a record of each run), its own Database connection, and writes each outcome with
// RecordRun (one transaction). Originals keep their BoardRunRecord in the scheduler until their
// twin has taken it; the twin is judged against it through a PlaybackBoard.
#include "runner/soak.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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
#include "runner/soak_boards.h"

namespace ctte::runner {
namespace {

using SteadyClock = std::chrono::steady_clock;

void Count(RunStatus s, SoakCounts* c) {
  ++c->done;
  switch (s) {
    case RunStatus::kGreen: ++c->green; break;
    case RunStatus::kRed: ++c->red; break;
    case RunStatus::kInvalid: ++c->invalid; break;
    case RunStatus::kInfra: ++c->infra; break;
  }
}

// A stored run row (never "planned") counted as its status.
void Count(db::RunStatus s, SoakCounts* c) {
  ++c->done;
  switch (s) {
    case db::RunStatus::kGreen: ++c->green; break;
    case db::RunStatus::kRed: ++c->red; break;
    case db::RunStatus::kInvalid: ++c->invalid; break;
    default: ++c->infra; break;
  }
}

struct Shared {
  const SoakOptions* options = nullptr;
  const CampaignSpec* spec = nullptr;
  int64_t campaign_id = 0;
  Scheduler* scheduler = nullptr;
  const SoakProgressFn* progress = nullptr;
  SteadyClock::time_point start;
  uint64_t total = 0;
  std::mutex mu;  // guards counts, fatal, deploys and progress calls
  SoakCounts counts;
  std::string fatal;
  uint64_t deploys = 0;
};

class Worker {
 public:
  Worker(Shared* shared, unsigned slot) : s_(shared), slot_(slot) {}

  void Run() {
    if (Status st = Start(); !st.ok()) {
      Fatal("board " + std::to_string(slot_) + ": " + st.ToString());
    } else {
      while (auto index = s_->scheduler->Next(slot_, board_ ? board_->loaded_image() : "")) {
        if (!RunIndex(*index)) break;
      }
    }
    if (remote_) (void)remote_->Shutdown();
    {
      std::lock_guard<std::mutex> lk(s_->mu);
      if (board_) s_->deploys += board_->deploys();
    }
    s_->scheduler->WorkerExits(slot_);
  }

 private:
  Status Start() {
    auto db = db::Database::Open(s_->options->db_path);
    if (!db.ok()) return db.status();
    db_ = std::move(*db);
    auto remote = lab::RemoteBoard::Spawn(s_->options->board);
    if (!remote.ok()) return remote.status();
    remote_ = std::move(*remote);
    lab::Board* inner = remote_.get();
    if (s_->options->TEST_wrap_board) {
      wrapped_ = s_->options->TEST_wrap_board(remote_.get(), slot_);
      inner = wrapped_.get();
    }
    board_ = std::make_unique<SoakBoard>(inner);
    return RegisterBoard();
  }

  Status RegisterBoard() {
    Result<lab::BoardIdentity> id = remote_->Identify();
    if (!id.ok()) return id.status();
    nlohmann::ordered_json info{{"version", id->version}, {"capabilities", id->capabilities},
                                {"slot", slot_}};
    Result<int64_t> bid = db_->UpsertBoard({id->kind, id->serial, info.dump()});
    if (!bid.ok()) return bid.status();
    board_id_ = *bid;
    return Status::Ok();
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
    board_->BeginRecord();
    std::unique_ptr<PlaybackBoard> playback;
    lab::Board* twin = nullptr;
    if (config.twin_of) {
      if (std::optional<BoardRunRecord> rec = s_->scheduler->TakeRecord(*config.twin_of)) {
        playback = std::make_unique<PlaybackBoard>(std::move(*rec));
        twin = playback.get();
      } else {
        twin = board_.get();  // the original's capture is gone (resume): run its plan again
      }
    }
    return ExecuteRun(*prepared, *board_, twin, s_->options->execute);
  }

  // Runs, retries an infra outcome once on a fresh board, stores. False: stop this worker.
  bool RunIndex(uint64_t index) {
    const RunConfig config = Draw(*s_->spec, index);
    const std::string started = NowIsoUtc();
    RunOutcome out = Execute(config);
    // A board failure is retried; a refusal that a fresh board would repeat is not.
    const bool retry = out.status == RunStatus::kInfra && IsRetryable(out.cause);
    if (retry) {
      {
        std::lock_guard<std::mutex> lk(s_->mu);
        ++s_->counts.retried;
      }
      if (Status st = Respawn(); st.ok()) {
        out = Execute(config);  // a twin's record went to the first attempt: plan runs again
      } else {
        out.status_reason += "; respawn failed: " + st.ToString();
      }
      if (out.status == RunStatus::kInfra) (void)Respawn();  // leave a fresh board behind
    }
    std::optional<BoardRunRecord> record = board_->TakeRecord();

    db::RunRecord rec = StoredRunRecord(out);
    rec.campaign_id = s_->campaign_id;
    rec.board_id = board_id_;
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
    Result<int64_t> id = db_->RecordRun(rec, out.VerdictRecords(),
                                        keep_bytes && !out.stream.empty() ? &out.stream : nullptr);
    if (!id.ok()) {
      Fatal("database: run " + std::to_string(index) + ": " + id.status().ToString());
      s_->scheduler->Finish(index, slot_, std::nullopt);
      return false;
    }
    s_->scheduler->Finish(index, slot_, std::move(record));
    SoakRunEvent ev;
    ev.index = index;
    ev.seed = config.seed;
    ev.run_id = *id;
    ev.board = slot_;
    ev.status = out.status;
    ev.reason = out.status_reason;
    ev.twin_of = config.twin_of;
    ev.wall_seconds = out.wall_seconds;
    std::lock_guard<std::mutex> lk(s_->mu);
    Count(out.status, &s_->counts);
    ev.counts = s_->counts;
    ev.total = s_->total;
    ev.elapsed_seconds = std::chrono::duration<double>(SteadyClock::now() - s_->start).count();
    if (*s_->progress) (*s_->progress)(ev);
    return true;
  }

  Status Respawn() {
    board_->Forget();
    CTTE_RETURN_IF_ERROR(remote_->Respawn());
    return RegisterBoard();
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
  std::unique_ptr<db::Database> db_;
  std::unique_ptr<lab::RemoteBoard> remote_;
  std::unique_ptr<lab::Board> wrapped_;  // TEST_wrap_board
  std::unique_ptr<SoakBoard> board_;
  int64_t board_id_ = 0;
  std::set<std::string> images_;
  std::map<std::string, std::string> manifest_text_;
};

Result<db::CampaignSummary> FindCampaign(db::Database& db, const std::string& which) {
  auto rows = db.Campaigns();
  if (!rows.ok()) return rows.status();
  const db::CampaignSummary* found = nullptr;
  for (const db::CampaignSummary& c : *rows) {
    if (std::to_string(c.id) == which || c.name == which) found = &c;  // newest row by name
  }
  if (found == nullptr) return Status::NotFound("no campaign " + which + " to resume");
  return *found;
}

}  // namespace

Result<SoakSummary> RunSoak(const SoakOptions& options, const SoakProgressFn& progress) {
  if (options.boards == 0) return Status::InvalidArgument("--boards must be at least 1");
  Result<std::string> text = ReadFileText(options.spec_path);
  if (!text.ok()) return text.status();
  SpecCheck check = ParseCampaignSpec(*text);
  if (!check.ok()) {
    std::string msg = options.spec_path + ":";
    for (const SpecError& e : check.errors) msg += "\n  " + e.ToString();
    return Status::InvalidArgument(msg);
  }
  CampaignSpec spec = check.spec;
  if (options.runs) {
    if (*options.runs == 0) return Status::InvalidArgument("--runs must be at least 1");
    spec.runs = options.runs;
    spec.budget_seconds.reset();
  } else if (options.budget_seconds) {
    spec.budget_seconds = options.budget_seconds;
    spec.runs.reset();
  }

  // A seed override makes another campaign: the stored spec carries the seed actually used.
  std::string spec_text = *text;
  if (options.seed) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(spec_text);
    j["seed"] = SeedHex(*options.seed);
    spec_text = j.dump(2) + "\n";
    spec.seed = *options.seed;
  }

  auto opened = db::Database::Open(options.db_path);
  if (!opened.ok()) return opened.status();
  db::Database& db = **opened;
  SoakSummary summary;
  const std::string spec_sha = Sha256Hex(spec_text);
  if (!options.resume.empty()) {
    Result<db::CampaignSummary> c = FindCampaign(db, options.resume);
    if (!c.ok()) return c.status();
    if (c->spec_sha256 != spec_sha) {
      return Status::InvalidArgument("campaign " + c->name + " (id " + std::to_string(c->id) +
                                     ") was run from a spec with SHA-256 " + c->spec_sha256 +
                                     "; " + options.spec_path + " has " + spec_sha +
                                     (options.seed ? " with --seed " + SeedHex(*options.seed)
                                                   : std::string(" (was it run with --seed?)")));
    }
    summary.campaign_id = c->id;
  } else {
    Result<int64_t> id = db.UpsertCampaign(
        {spec.name, spec.description, spec.seed, spec_text, NowIsoUtc()});
    if (!id.ok()) return id.status();
    summary.campaign_id = *id;
  }
  summary.campaign_name = spec.name;
  auto rows = db.RunsOfCampaign(summary.campaign_id);
  if (!rows.ok()) return rows.status();
  std::set<uint64_t> done;
  for (const db::RunRow& r : *rows) {
    if (!r.run.replay_of && r.run.status != db::RunStatus::kPlanned &&
        InShard(options.shard, r.run.index)) {
      done.insert(r.run.index);  // other shards' runs are not this session's business
    }
  }
  if (options.resume.empty() && !done.empty()) {
    return Status::InvalidArgument(
        "campaign " + spec.name + " (id " + std::to_string(summary.campaign_id) + ") in " +
        options.db_path + " already has " + std::to_string(done.size()) +
        " finished runs: continue it with --resume " + std::to_string(summary.campaign_id) +
        ", or use another --db");
  }
  summary.skipped_done = done.size();

  Shared shared;
  shared.options = &options;
  shared.spec = &spec;
  shared.campaign_id = summary.campaign_id;
  shared.progress = &progress;
  shared.start = SteadyClock::now();
  unsigned workers = options.boards;
  if (spec.runs) {
    for (uint64_t i = 0; i < *spec.runs; ++i) {
      shared.total += done.count(i) || !InShard(options.shard, i) ? 0 : 1;
    }
    if (shared.total < workers) workers = static_cast<unsigned>(std::max<uint64_t>(shared.total, 1));
  }
  Scheduler scheduler = Scheduler::ForSpec(spec, done, workers);
  scheduler.SetShard(options.shard);
  if (spec.runs) scheduler.SetLimit(*spec.runs);
  if (spec.budget_seconds) {
    scheduler.SetDeadline(shared.start + std::chrono::seconds(*spec.budget_seconds));
  }
  shared.scheduler = &scheduler;
  if (!spec.runs || shared.total > 0) {
    std::vector<std::unique_ptr<Worker>> ws;
    std::vector<std::thread> threads;
    for (unsigned b = 0; b < workers; ++b) ws.push_back(std::make_unique<Worker>(&shared, b));
    for (auto& w : ws) threads.emplace_back([&w] { w->Run(); });
    for (std::thread& t : threads) t.join();
  }
  summary.counts = shared.counts;
  summary.fatal = shared.fatal;
  summary.deploys = shared.deploys;
  summary.elapsed_seconds =
      std::chrono::duration<double>(SteadyClock::now() - shared.start).count();
  auto after = db.RunsOfCampaign(summary.campaign_id);
  if (!after.ok()) return after.status();
  for (const db::RunRow& r : *after) {
    if (!r.run.replay_of && r.run.status != db::RunStatus::kPlanned) {
      Count(r.run.status, &summary.campaign);
    }
  }
  return summary;
}

}  // namespace ctte::runner
