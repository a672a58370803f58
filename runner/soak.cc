// RunSoak: one worker thread per board, fed by a Scheduler (runner/scheduler.h: resume
// skipping, twins after their originals, image affinity; every index exactly once).
//
// Each worker owns a BoardWorker (a RemoteBoard child or a lab board, wrapped in a SoakBoard (one deploy per image
// per board; a record of each run), its own Database connection, and writes each outcome with
// RecordRun (one transaction). Originals keep their BoardRunRecord in the scheduler until their
// twin has taken it; the twin is judged against it through a PlaybackBoard.
#include "runner/soak.h"

#include "runner/campaign_open.h"

#include <nlohmann/json.hpp>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "base/allocator.h"
#include "base/files.h"
#include "base/sha256.h"
#include "base/text.h"
#include "db/database.h"
#include "runner/artifacts.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/features_axis.h"
#include "runner/scheduler.h"
#include "runner/soak_boards.h"
#include "runner/soak_worker.h"

namespace ctte::runner {
namespace {

using soak_internal::Count;
using soak_internal::MakeSoakWorker;
using soak_internal::Shared;
using soak_internal::SoakWorker;
using soak_internal::SteadyClock;

Result<db::CampaignSummary> FindCampaign(db::Database& db, const std::string& which) {
  Result<db::CampaignSummary> c = db.CampaignByIdOrName(which);
  if (!c.ok() && c.status().code() == Status::Code::kNotFound) {
    return Status::NotFound("--resume " + which + ": " + c.status().message());
  }
  return c;
}

}  // namespace

Result<SoakSummary> RunSoak(const SoakOptions& options, const SoakProgressFn& progress) {
  if (options.boards.size() == 0) return Status::InvalidArgument("--boards must be at least 1");
  (void)RetainFreedMemory();  // run after run of megabyte vectors (base/allocator.h)
  Result<std::string> text = ReadFileText(options.spec_path);
  if (!text.ok()) return text.status();
  SpecCheck check =
      ParseCampaignSpec(*text, std::filesystem::path(options.spec_path).parent_path().string());
  if (!check.ok()) {
    std::string msg = FormatSpecErrors(options.spec_path, check.errors);
    msg.pop_back();  // the last newline
    return Status::InvalidArgument(msg);
  }
  CampaignSpec spec = check.spec;
  // The spec's own ELFs ($.workloads) become plan lookups of this soak's workers and controls.
  SoakOptions local = options;
  for (const UserWorkload& w : spec.workloads) local.execute.user_workloads[w.name] = w.path;
  // Drawn feature sets are clamped to the drawn image's compiled features (runner/plan.h); a
  // control that fixes features its image lacks is refused before anything runs.
  local.execute.clamp_features = true;
  // Every run (draws and controls) asks its board for the campaign's capture ring.
  local.execute.ring_bytes = spec.ring_bytes;
  if (Status st = CheckControlFeatures(spec, local.execute.image_dir, local.execute.manifest_path);
      !st.ok()) {
    return Status::InvalidArgument(options.spec_path + ": " + st.message());
  }
  if (options.runs) {
    if (*options.runs == 0) return Status::InvalidArgument("--runs must be at least 1");
    spec.runs = options.runs;
    spec.budget_seconds.reset();
  } else if (options.budget_seconds) {
    spec.budget_seconds = options.budget_seconds;
    spec.runs.reset();
  }

  // A seed override makes another campaign: the stored spec carries the seed actually used.
  // User workloads are pinned in the stored spec by SHA-256: another ELF, another campaign.
  const std::string spec_text = StoredSpecText(*text, spec, options.seed);
  if (options.seed) spec.seed = *options.seed;

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
    Result<int64_t> id = OpenCampaign(db, spec, spec_text);
    if (!id.ok()) return id.status();
    summary.campaign_id = *id;
  }
  summary.campaign_name = spec.name;
  if (options.retry_infra) {
    if (options.resume.empty()) {
      return Status::InvalidArgument("--retry-infra needs --resume CAMPAIGN");
    }
    // This shard's draws, and its own control runs: an infra control proved nothing (it is not
    // a gate that failed), so it runs again too, its attempt kept.
    Result<std::vector<uint64_t>> requeued = db.RequeueInfraRuns(
        summary.campaign_id, [&](uint64_t i) {
          return IsControlIndex(i) ? ControlIndexSlot(i) == ControlShardSlot(options.shard)
                                   : InShard(options.shard, i);
        });
    if (!requeued.ok()) return requeued.status();
    summary.requeued_infra = requeued->size();
  }
  auto rows = db.RunsOfCampaign(summary.campaign_id);
  if (!rows.ok()) return rows.status();
  std::set<uint64_t> done;
  for (const db::RunRow& r : *rows) {
    if (!r.run.replay_of && r.run.status != db::RunStatus::kPlanned &&
        InShard(options.shard, r.run.index) && !IsControlIndex(r.run.index)) {
      done.insert(r.run.index);  // controls and other shards' runs are not draws of this session
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
  std::optional<db::ArtifactStore> store;
  if (options.artifacts_dir != "none") {
    store.emplace(options.artifacts_dir.empty() ? db::ArtifactStore::DefaultRoot(options.db_path)
                                                : options.artifacts_dir);
    Status st = StoreSpecArtifacts(spec, local.execute, *store);
    if (!st.ok()) return Status::IOError("keeping the campaign's artifacts: " + st.ToString());
  }

  ControlRunOptions control_options;
  control_options.db_path = options.db_path;
  control_options.campaign_id = summary.campaign_id;
  control_options.boards = options.boards;
  control_options.shard = options.shard;
  control_options.store_all_streams = options.store_all_streams;
  control_options.execute = local.execute;
  control_options.TEST_verdict_override = options.TEST_verdict_override;
  // The boards, opened once: the controls and the draws run on the same sessions.
  BoardSet board_set(options.boards, options.db_path, local.execute.ring_bytes);
  const auto run_controls = [&](uint32_t round) -> Status {
    if (spec.controls.empty()) return Status::Ok();
    Result<std::vector<ControlResult>> r = RunControls(spec, round, control_options, &board_set);
    if (!r.ok()) return r.status();
    for (ControlResult& c : *r) summary.controls.push_back(std::move(c));
    return Status::Ok();
  };
  CTTE_RETURN_IF_ERROR(run_controls(0));

  Shared shared;
  shared.options = &local;
  shared.spec = &spec;
  shared.campaign_id = summary.campaign_id;
  shared.progress = &progress;
  shared.start = SteadyClock::now();
  unsigned workers = options.boards.size();
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
  shared.board_set = &board_set;
  shared.boards.resize(workers);
  shared.health.resize(workers);
  for (unsigned b = 0; b < workers; ++b) {
    shared.health[b].board = options.boards.Name(b);
  }
  if (options.open_log) {
    Result<LogFn> log = options.open_log(spec.name, summary.campaign_id);
    if (log.ok()) {
      shared.log = *log;
    } else {
      summary.log_error = log.status().ToString();
    }
  }
  soak_internal::Log(shared, LogLevel::kInfo,
                     "soak " + spec.name + " (campaign id " + std::to_string(summary.campaign_id) +
                         ") on " + std::to_string(workers) + " board(s); quarantine after " +
                         std::to_string(options.health.quarantine_after) +
                         " infra failures in a row");
  if (!spec.runs || shared.total > 0) {
    std::vector<std::unique_ptr<SoakWorker>> ws;
    std::vector<std::thread> threads;
    std::atomic<unsigned> running{workers};
    for (unsigned b = 0; b < workers; ++b) ws.push_back(MakeSoakWorker(&shared, b));
    for (auto& w : ws) {
      threads.emplace_back([&w, &running] {
        w->Run();
        --running;
      });
    }
    // Stop requests: the first stops the scheduler, a second kills the boards' children.
    while (options.stop_requests != nullptr && running.load() > 0) {
      const int requests = options.stop_requests->load();
      if (requests >= 1 && !summary.interrupted) {
        summary.interrupted = true;
        scheduler.Stop();
      }
      if (requests >= 2 && !shared.abandon.load()) {
        shared.abandon = true;
        for (auto& w : ws) w->KillBoard();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (std::thread& t : threads) t.join();
  }
  if (spec.budget_seconds && shared.fatal.empty() &&
      !(options.stop_requests != nullptr && options.stop_requests->load() > 0)) {
    CTTE_RETURN_IF_ERROR(run_controls(1));
  }
  if (options.stop_requests != nullptr && options.stop_requests->load() > 0) {
    summary.interrupted = true;
  }
  board_set.CloseAll();
  if (store) {  // generated programs, and images that changed since the start
    Result<uint64_t> added = StoreRunArtifacts(db, summary.campaign_id, local.execute, *store);
    if (!added.ok() && shared.fatal.empty()) {
      shared.fatal = "keeping the campaign's artifacts: " + added.status().ToString();
    }
  }
  summary.counts = shared.counts;
  summary.boards = shared.boards;
  summary.abandoned = shared.abandoned;
  summary.fatal = shared.fatal;
  summary.deploys = shared.deploys;
  summary.health = shared.health;
  soak_internal::Log(shared, summary.fatal.empty() ? LogLevel::kInfo : LogLevel::kError,
                     "soak ended: " + std::to_string(shared.counts.done) + " runs this session" +
                         (summary.fatal.empty() ? "" : "; stopped early: " + summary.fatal));
  summary.elapsed_seconds =
      std::chrono::duration<double>(SteadyClock::now() - shared.start).count();
  auto after = db.RunsOfCampaign(summary.campaign_id);
  if (!after.ok()) return after.status();
  for (const db::RunRow& r : *after) {
    if (!r.run.replay_of && r.run.status != db::RunStatus::kPlanned &&
        !IsControlIndex(r.run.index)) {
      Count(r.run.status, &summary.campaign);
    }
  }
  return summary;
}

}  // namespace ctte::runner
