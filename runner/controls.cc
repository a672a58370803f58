// Controls: drawing, running, judging and storing a campaign's control runs (runner/controls.h).
//
// How: a control's config is Draw() on a derived spec (the control's image, its fixed axes, its
// own seed), re-indexed into the control namespace and marked. RunControls places a round's
// controls on the boards of its source (ControlPlacement), runs each board's missing ones on a
// BoardWorker of that board (one thread each; the worker's one retry rule), and stores each run
// with RecordRun, its control result (and board) added to metrics_json under "control".
#include "runner/controls.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "base/check.h"
#include "base/files.h"
#include "base/random.h"
#include "base/text.h"
#include "db/database.h"
#include "runner/draw.h"
#include "runner/board_worker.h"
#include "runner/soak_boards.h"

namespace ctte::runner {

uint32_t ControlShardSlot(const ShardSpec& shard) {
  return shard.count > 1 ? shard.index + 1 : 0;
}

uint64_t ControlIndex(uint32_t round, size_t k, uint32_t slot) {
  CTTE_CHECK(k < kMaxControls, "ControlIndex: too many controls");
  CTTE_CHECK(round < kMaxControlRounds, "ControlIndex: too many rounds");
  return kControlIndexBase + (uint64_t{slot} * kMaxControlRounds + round) * kMaxControls + k;
}

bool IsControlIndex(uint64_t index) { return index >= kControlIndexBase; }

uint32_t ControlIndexSlot(uint64_t index) {
  return static_cast<uint32_t>((index - kControlIndexBase) / kMaxControls / kMaxControlRounds);
}

Result<std::vector<std::vector<size_t>>> ControlPlacement(const CampaignSpec& spec,
                                                          unsigned boards) {
  boards = std::max(boards, 1u);
  const size_t n = spec.controls.size();
  if (n * boards > kMaxControls) {
    return Status::InvalidArgument(std::to_string(n) + " controls on " + std::to_string(boards) +
                                   " boards: at most " + std::to_string(kMaxControls) +
                                   " control runs a round");
  }
  std::vector<std::vector<size_t>> placed(boards);
  std::vector<size_t> red;
  for (size_t k = 0; k < n; ++k) {
    if (spec.controls[k].expect_red.empty()) {
      for (auto& b : placed) b.push_back(k);  // the clean control: every board
    } else {
      red.push_back(k);
    }
  }
  for (size_t i = 0; i < red.size(); ++i) placed[i % boards].push_back(red[i]);
  for (unsigned b = red.size(); b < boards && !red.empty(); ++b) {
    placed[b].push_back(red[b % red.size()]);  // a board dealt no red control runs one more
  }
  for (auto& b : placed) std::sort(b.begin(), b.end());
  return placed;
}

RunConfig DrawControl(const CampaignSpec& spec, size_t k, uint32_t round,
                      const ShardSpec& shard, unsigned board) {
  CTTE_CHECK(k < spec.controls.size(), "DrawControl: no such control");
  const ControlSpec& ctl = spec.controls[k];
  CampaignSpec s = spec;
  s.controls.clear();
  s.seed = DeriveSeed(spec.seed, ("control:" + ctl.name).c_str());
  s.determinism_pairs_ppm = 0;
  s.images = {{ctl.image, 1}};
  for (const auto& [axis, value] : ctl.axes) {
    for (Axis& a : s.axes) {
      if (a.name == axis) a.values = {{value, 1}};
    }
  }
  RunConfig c = Draw(s, round);
  c.campaign = spec.name;
  c.index = ControlIndex(round, board * spec.controls.size() + k, ControlShardSlot(shard));
  c.control = ControlMarker{ctl.name, round, shard.count > 1 ? ShardText(shard) : "",
                            ctl.expect_red, ctl.twin};
  return c;
}

RunOutcome ExecuteControl(PreparedRun* run, lab::Board& board, const ExecuteOptions& options) {
  const bool twin = run->config.control && run->config.control->twin;
  if (!twin) return ExecuteRun(*run, board, nullptr, options);
  const uint64_t model_seed = run->plan.model_seed;
  run->plan.model_seed = DeriveSeed(run->config.seed, "model-twin");
  RunOutcome first = ExecuteRun(*run, board, nullptr, options);
  run->plan.model_seed = model_seed;
  if (first.status == RunStatus::kInfra || !first.capture) {
    first.status_reason = "twin: " + first.status_reason;
    return first;
  }
  ExecuteOptions o = options;
  o.twin_stream = std::move(first.stream);
  return ExecuteRun(*run, board, nullptr, o);
}

bool ControlPassed(const std::vector<std::string>& expect_red, RunStatus status,
                   const std::vector<std::string>& observed_red, std::string* reason) {
  if (status != RunStatus::kGreen && status != RunStatus::kRed) {
    *reason = std::string("the run is ") + RunStatusName(status) + ": it proves nothing";
    return false;
  }
  if (expect_red.empty()) {
    if (status == RunStatus::kGreen) return true;
    *reason = "clean control is red";
    for (const std::string& v : observed_red) *reason += (v == observed_red[0] ? ": " : ", ") + v;
    return false;
  }
  std::string missing;
  for (const std::string& v : expect_red) {
    if (std::find(observed_red.begin(), observed_red.end(), v) == observed_red.end()) {
      missing += (missing.empty() ? "" : ", ") + v;
    }
  }
  if (missing.empty()) return true;
  *reason = "expected red but not red: " + missing;
  return false;
}

ControlResult JudgeControl(const RunOutcome& out) {
  CTTE_CHECK(out.config.control.has_value(), "JudgeControl: not a control run");
  ControlResult r;
  r.name = out.config.control->name;
  r.image = out.config.image;
  r.round = out.config.control->round;
  r.shard = out.config.control->shard;
  r.expect_red = out.config.control->expect_red;
  r.has_result = true;
  r.status = out.status;
  for (const oracle::Verdict& v : out.verdicts) {
    if (v.outcome == oracle::Outcome::kFail) r.observed_red.push_back(VerdictCodeName(v.code));
  }
  r.passed = ControlPassed(r.expect_red, r.status, r.observed_red, &r.reason);
  return r;
}

void ApplyVerdictOverride(const VerdictOverride& override, RunOutcome* out) {
  if (!override) return;
  override(&out->verdicts);
  if (out->status != RunStatus::kGreen && out->status != RunStatus::kRed) return;
  const bool red = std::any_of(out->verdicts.begin(), out->verdicts.end(),
                               [](const oracle::Verdict& v) {
                                 return v.outcome == oracle::Outcome::kFail;
                               });
  out->status = red ? RunStatus::kRed : RunStatus::kGreen;
  if (!red) out->status_reason.clear();
}

namespace {

std::string ControlJson(const ControlResult& r) {
  nlohmann::ordered_json j{{"passed", r.passed},
                           {"observed_red", r.observed_red},
                           {"reason", r.reason},
                           {"board", r.board}};
  return j.dump();
}

// The control result stored with a run row (db::StoredControlOf, the one reader), or nullopt.
std::optional<ControlResult> StoredResult(const db::RunRow& row) {
  const std::optional<db::StoredControl> c = db::StoredControlOf(row);
  if (!c) return std::nullopt;
  ControlResult r;
  static_cast<db::StoredControl&>(r) = *c;
  r.run_id = row.id;
  r.status = FromDbStatus(row.run.status).value_or(RunStatus::kInfra);  // planned: not run
  return r;
}

struct ControlShared {
  const CampaignSpec* spec = nullptr;
  const ControlRunOptions* options = nullptr;
  uint32_t round = 0;
  std::vector<std::vector<size_t>> todo;  // per board: the controls still to run
  std::mutex mu;
  std::map<size_t, ControlResult> results;  // by k' = board * K + k
  std::string fatal;
  BoardSet* boards = nullptr;
};

void ControlWorker(ControlShared* s, unsigned slot) {
  const ControlRunOptions& o = *s->options;
  const size_t n = s->spec->controls.size();
  const auto fail = [&](const std::string& why) {
    std::lock_guard<std::mutex> lk(s->mu);
    if (s->fatal.empty()) s->fatal = "controls: " + o.boards.Name(slot) + ": " + why;
  };
  auto db = db::Database::Open(o.db_path);
  if (!db.ok()) return fail(db.status().ToString());
  Result<BoardWorker*> opened = s->boards->Opened(slot);
  if (!opened.ok()) return fail(opened.status().ToString());
  BoardWorker& worker = **opened;
  std::set<std::string> images;
  for (const size_t k : s->todo[slot]) {
    const RunConfig c = DrawControl(*s->spec, k, s->round, s->options->shard, slot);
    const std::string started = NowIsoUtc();
    std::string manifest_text;
    std::vector<RunAttempt> attempts;  // a failed first attempt, kept in run_attempts
    RunOutcome out = worker.Run(
        [&](SoakBoard& board) -> RunOutcome {
          Result<PreparedRun> prepared = PrepareRun(c, o.execute);
          if (!prepared.ok()) return PrepareFailedOutcome(c, prepared.status());
          Result<std::string> text = ReadFileText(prepared->manifest.manifest_path);
          manifest_text = text.ok() ? *text : "";
          return ExecuteControl(&*prepared, board, o.execute);
        },
        &attempts, started);
    ApplyVerdictOverride(o.TEST_verdict_override, &out);
    ControlResult result = JudgeControl(out);
    result.board = worker.name();
    db::RunRecord rec = StoredRunRecord(out);
    rec.campaign_id = o.campaign_id;
    rec.board_id = worker.board_id();
    rec.started_at = started;
    nlohmann::ordered_json m = nlohmann::ordered_json::parse(
        rec.metrics_json.empty() ? "{}" : rec.metrics_json, nullptr, false);
    if (!m.is_object()) m = nlohmann::ordered_json::object();
    m["control"] = nlohmann::ordered_json::parse(ControlJson(result));
    rec.metrics_json = m.dump();
    if (!out.image_sha256.empty() && images.insert(out.image_sha256).second) {
      auto r = (*db)->UpsertImage({out.image_name, out.image_sha256, out.build_id, manifest_text});
      if (!r.ok()) return fail("database: " + r.status().ToString());
    }
    const bool keep = o.store_all_streams || out.status == RunStatus::kRed ||
                      out.status == RunStatus::kInvalid;
    Result<int64_t> id = (*db)->RecordRun(rec, out.VerdictRecords(),
                                          keep && !out.stream.empty() ? &out.stream : nullptr,
                                          ToAttemptRecords(attempts));
    if (!id.ok()) return fail("database: control " + result.name + ": " + id.status().ToString());
    result.run_id = *id;
    std::lock_guard<std::mutex> lk(s->mu);
    s->results[slot * n + k] = std::move(result);
  }
}

}  // namespace

Result<std::vector<ControlResult>> RunControls(const CampaignSpec& spec, uint32_t round,
                                               const ControlRunOptions& options,
                                               BoardSet* boards) {
  if (spec.controls.size() > kMaxControls) {
    return Status::InvalidArgument("more than 1000 controls");
  }
  Result<std::vector<std::vector<size_t>>> placed =
      ControlPlacement(spec, options.boards.size());
  if (!placed.ok()) return placed.status();
  const size_t n = spec.controls.size();
  ControlShared s;
  s.spec = &spec;
  s.options = &options;
  s.round = round;
  {
    auto db = db::Database::Open(options.db_path);
    if (!db.ok()) return db.status();
    auto rows = (*db)->RunsOfCampaign(options.campaign_id);
    if (!rows.ok()) return rows.status();
    for (const db::RunRow& row : *rows) {
      if (row.run.replay_of || row.run.status == db::RunStatus::kPlanned ||
          !IsControlIndex(row.run.index)) {
        continue;
      }
      const uint64_t rel = row.run.index - kControlIndexBase;
      const uint64_t slot_round = rel / kMaxControls;  // this shard's rows of this round only
      if (slot_round != uint64_t{ControlShardSlot(options.shard)} * kMaxControlRounds + round ||
          n == 0) {
        continue;
      }
      if (std::optional<ControlResult> r = StoredResult(row)) s.results[rel % kMaxControls] = *r;
    }
  }
  s.todo.resize(placed->size());
  bool any = false;
  for (size_t b = 0; b < placed->size(); ++b) {
    for (const size_t k : (*placed)[b]) {
      if (s.results.count(b * n + k) == 0) {
        s.todo[b].push_back(k);
        any = true;
      }
    }
  }
  std::optional<BoardSet> own;
  if (boards == nullptr && any) {
    own.emplace(options.boards, options.db_path, options.execute.ring_bytes);
    boards = &*own;
  }
  s.boards = boards;
  std::vector<std::thread> threads;
  for (unsigned b = 0; any && b < s.todo.size(); ++b) {
    if (!s.todo[b].empty()) threads.emplace_back(ControlWorker, &s, b);
  }
  for (std::thread& t : threads) t.join();
  if (own) own->CloseAll();
  if (!s.fatal.empty()) return Status::Unavailable(s.fatal);
  std::vector<ControlResult> out;
  for (auto& [k, r] : s.results) out.push_back(std::move(r));
  return out;
}

}  // namespace ctte::runner
