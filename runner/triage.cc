// BisectRun and TriageRun (see triage.h): load, choose the baseline, run, classify, store.
#include "runner/triage.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/output.h"
#include "base/text.h"
#include "db/database.h"
#include "runner/board_worker.h"
#include "runner/campaign_spec.h"
#include "runner/stored_run.h"

namespace ctte::runner {
namespace {

using Json = nlohmann::ordered_json;

struct Loaded {
  std::unique_ptr<db::Database> db;
  db::RunRow row;
  RunConfig config;
  StoredRun stored;  // what reproduces it (runner/stored_run.h): the legs' ring, image and ELF
};

Result<Loaded> LoadRed(int64_t run_id, const std::string& db_path, const char* what) {
  std::error_code ec;
  if (!std::filesystem::exists(db_path, ec)) return Status::NotFound("no database at " + db_path);
  Loaded l;
  auto db = db::Database::Open(db_path);
  if (!db.ok()) return db.status();
  l.db = std::move(*db);
  auto row = l.db->RunById(run_id);
  if (!row.ok()) return Status::NotFound(row.status().message() + " in " + db_path);
  l.row = *row;
  if (l.row.run.replay_of) {
    return Status::InvalidArgument("run " + std::to_string(run_id) + " is a replay of run " +
                                   std::to_string(*l.row.run.replay_of) + ": " + what +
                                   " the original");
  }
  if (l.row.run.status != db::RunStatus::kRed) {
    return Status::InvalidArgument("run " + std::to_string(run_id) + " is " +
                                   db::RunStatusName(l.row.run.status) + ", not red: " + what +
                                   " takes a red run");
  }
  Result<RunConfig> c = RunConfigFromJson(l.row.run.config_json);
  if (!c.ok()) {
    return Status::InvalidArgument("run " + std::to_string(run_id) + ": config_json: " +
                                   c.status().message());
  }
  l.config = *c;
  return l;
}

// The red run, and what reproduces it: a leg runs the run's image only with the run's SHA-256,
// and its ELF as pinned (a user workload included).
Result<Loaded> LoadRedRun(int64_t run_id, const TriageOptions& o, const char* what) {
  CTTE_ASSIGN_OR_RETURN(Loaded l, LoadRed(run_id, o.db_path, what));
  StoredRunOptions so;
  so.db_path = o.db_path;
  so.artifacts_dir = o.artifacts_dir;
  so.execute = o.pool.execute;
  Result<StoredRun> stored = LoadStoredRun(*l.db, run_id, so);
  if (!stored.ok()) return stored.status();
  l.stored = std::move(*stored);
  return l;
}

// The folder the campaign's spec was read from, as the run's pinned ELF shows it: the stored
// spec keeps its user workloads' paths as written ($.workloads.NAME, relative to the spec's
// folder), and the pin holds the path the soak read. "." when the run is not on a user workload
// with a relative path.
std::string SpecDirOf(const Loaded& l, const std::string& spec_text) {
  Result<std::optional<db::RunPins>> pins = l.db->PinsOfRun(l.row.id);
  if (!pins.ok() || !*pins || (*pins)->workload_path.empty()) return ".";
  const nlohmann::json j = nlohmann::json::parse(spec_text, nullptr, false);
  if (!j.is_object() || !j.contains("workloads") || !j["workloads"].is_object()) return ".";
  const auto w = j["workloads"].find(l.config.workload);
  if (w == j["workloads"].end()) return ".";
  const nlohmann::json& file = w->is_object() && w->contains("elf") ? (*w)["elf"] : *w;
  if (!file.is_string()) return ".";
  const std::filesystem::path written = file.get<std::string>();
  const std::string pinned = (*pins)->workload_path;
  const std::string suffix = "/" + written.string();
  if (written.is_absolute() || pinned.size() <= suffix.size() ||
      pinned.compare(pinned.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return ".";
  }
  return pinned.substr(0, pinned.size() - suffix.size());
}

Result<RunConfig> SpecBaselineOf(const Loaded& l) {
  auto spec = db::TriageStore::CampaignSpec(*l.db, l.row.run.campaign_id);
  if (!spec.ok()) return spec.status();
  SpecCheck check = ParseCampaignSpec(spec->first, SpecDirOf(l, spec->first));
  if (!check.ok()) {
    return Status::InvalidArgument("campaign of run " + std::to_string(l.row.id) +
                                   ": stored spec_json does not parse: " +
                                   check.errors[0].path + ": " + check.errors[0].reason);
  }
  check.spec.seed = spec->second;
  return SpecBaseline(check.spec, l.config);
}

// identical_green: "auto" counts the judged green draws of the campaign identical to the red
// run in every factor (flakiness evidence; they cannot serve as a baseline).
Result<RunConfig> ChooseBaseline(const Loaded& l, const std::string& how, std::string* source,
                                 uint64_t* identical_green) {
  if (how == "spec") {
    *source = "spec";
    return SpecBaselineOf(l);
  }
  if (how != "auto") {
    Result<std::string> text = ReadFileText(how);
    if (!text.ok()) return Status::InvalidArgument("--baseline " + how + ": " + text.status().message());
    Result<RunConfig> c = RunConfigFromJson(*text);
    if (!c.ok()) return Status::InvalidArgument("--baseline " + how + ": " + c.status().message());
    *source = how;
    return *c;
  }
  auto runs = l.db->RunsOfCampaign(l.row.run.campaign_id);
  if (!runs.ok()) return runs.status();
  std::optional<RunConfig> best;
  size_t best_diff = 0;
  uint64_t best_dist = 0;
  for (const db::RunRow& r : *runs) {
    if (!r.judged || r.run.status != db::RunStatus::kGreen) continue;
    Result<RunConfig> c = RunConfigFromJson(r.run.config_json);
    if (!c.ok() || c->image != l.config.image) continue;
    const size_t diff = DifferingFactors(l.config, *c).size();
    const uint64_t dist = r.run.index > l.config.index ? r.run.index - l.config.index
                                                       : l.config.index - r.run.index;
    if (diff == 0) {  // the same factors went green: evidence of flakiness, not a baseline
      ++*identical_green;
      continue;
    }
    if (!best || diff < best_diff || (diff == best_diff && dist < best_dist)) {
      best = *c;
      best_diff = diff;
      best_dist = dist;
      *source = "run " + std::to_string(r.id);
    }
  }
  if (best) return *best;
  *source = "spec";
  return SpecBaselineOf(l);
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

Json LegJson(const Leg& l) {
  const Interval i = l.interval();
  Json runs = Json::array();
  for (const LegRun& r : l.runs) {
    runs.push_back({{"repeat", r.repeat}, {"seed", SeedHex(r.seed)},
                    {"status", RunStatusName(r.status)}, {"reproduces", r.reproduces},
                    {"red_verdicts", r.red_verdicts},
                    {"board", r.board_serial}, {"reason", r.reason}});
  }
  Json j{{"kind", LegKindName(l.kind)}, {"factors", l.factors}, {"red", l.red()},
         {"other_red", l.other_red()}, {"judged", l.judged()}, {"unsound", l.unsound()},
         {"rate", l.rate()}, {"interval", {i.lo, i.hi}}, {"verdict", LegVerdictName(l.verdict)}};
  if (l.kind != LegKind::kOriginal && l.kind != LegKind::kSameBoard &&
      l.kind != LegKind::kOtherBoard) {
    const LegTest& t = l.test;
    j["test"] = {{"paired", t.paired}, {"b", t.b}, {"c", t.c}, {"p", t.p},
                 {"p_holm", t.p_holm}, {"level", t.level}, {"effect", t.effect.estimate},
                 {"effect_interval", {t.effect.interval.lo, t.effect.interval.hi}},
                 {"detectable_effect", t.detectable > 1 ? Json(nullptr) : Json(t.detectable)}};
  }
  j["runs"] = runs;
  return j;
}

// The pool's runs as the stored-run loader resolved them: the capture ring the red run's
// campaign asked for ($.capture), its image pinned by SHA-256, its ELF as pinned.
Result<BoardPoolOptions> PoolOfCampaign(const Loaded& l, const BoardPoolOptions& pool) {
  BoardPoolOptions p = pool;
  p.execute = l.stored.execute;
  return p;
}

BatchExecutor PoolExecutor(const BoardPoolOptions& pool) {
  BoardPoolOptions p = pool;
  p.execute.clamp_features = true;  // a spec baseline's features, as drawn (runner/plan.h)
  return [p](const std::vector<RunConfig>& configs) { return RunBatch(p, configs); };
}

}  // namespace

db::BisectionLegRecord LegRecordOf(const Leg& leg, uint32_t ordinal) {
  db::BisectionLegRecord r;
  r.ordinal = ordinal;
  r.kind = LegKindName(leg.kind);
  r.factors = Join(leg.factors, "+");
  r.config_json = RunConfigToJson(leg.config);
  r.verdict = LegVerdictName(leg.verdict);
  r.red = leg.red();
  r.judged = leg.judged();
  r.unsound = leg.unsound();
  const Interval i = leg.interval();
  r.lo = i.lo;
  r.hi = i.hi;
  for (const LegRun& lr : leg.runs) {
    r.runs.push_back({lr.repeat, lr.seed, RunStatusName(lr.status), Join(lr.red_verdicts, ","),
                      lr.reason, lr.board_serial, lr.wall_ms});
  }
  return r;
}

Result<BisectRunResult> BisectRun(int64_t run_id, const TriageOptions& o) {
  CTTE_ASSIGN_OR_RETURN(Loaded l, LoadRedRun(run_id, o, "bisect"));
  BisectRunResult out;
  out.run_id = run_id;
  CTTE_ASSIGN_OR_RETURN(out.baseline, ChooseBaseline(l, o.baseline, &out.baseline_source,
                                                     &out.identical_green));
  BisectOptions bo = o.bisect;
  bo.repeats = o.repeats;
  bo.max_repeats = std::max(o.repeats, o.bisect.max_repeats);
  // The outcome of every leg is the failing verdict set of this run.
  CTTE_ASSIGN_OR_RETURN(const std::vector<db::VerdictRecord> verdicts,
                        l.db->VerdictsOfRun(run_id));
  for (const db::VerdictRecord& v : verdicts) {
    if (v.outcome == db::Outcome::kFail) bo.target_verdicts.push_back(v.verdict);
  }
  out.target_verdicts = bo.target_verdicts;
  CTTE_ASSIGN_OR_RETURN(const BoardPoolOptions pool, PoolOfCampaign(l, o.pool));
  CTTE_ASSIGN_OR_RETURN(out.result, Bisect(l.config, out.baseline, bo, PoolExecutor(pool)));
  if (out.identical_green > 0) {
    out.result.summary += "; flakiness evidence: " + std::to_string(out.identical_green) +
                          " green run(s) of the campaign identical in every factor";
  }
  if (out.result.minimal) {
    out.minimal_path = o.out_dir + "/run-" + std::to_string(run_id) + "-minimal.json";
    OutputOptions oo;
    oo.create_parents = true;
    CTTE_RETURN_IF_ERROR(
        WriteOutputFile(out.minimal_path, RunConfigToJson(*out.result.minimal, 2) + "\n", oo));
    out.minimal_command = "ctte-lab run --config " + out.minimal_path;
  }
  db::BisectionRecord rec;
  rec.run_id = run_id;
  rec.kind = "bisect";
  rec.created_at = NowIsoUtc();
  rec.repeats = out.result.repeats;
  rec.verdict = BisectVerdictName(out.result.verdict);
  rec.culprits = Join(out.result.culprits, ",");
  rec.summary = out.result.summary;
  rec.baseline_json = RunConfigToJson(out.baseline);
  if (out.result.minimal) rec.minimal_config_json = RunConfigToJson(*out.result.minimal);
  rec.minimal_command = out.minimal_command;
  for (size_t i = 0; i < out.result.legs.size(); ++i) {
    rec.legs.push_back(LegRecordOf(out.result.legs[i], static_cast<uint32_t>(i)));
  }
  CTTE_ASSIGN_OR_RETURN(out.bisection_id, db::TriageStore::RecordBisection(*l.db, rec));
  return out;
}

std::string BisectRunResult::ToJson(int indent) const {
  Json differing = Json::array();
  for (const Factor& f : result.differing) {
    differing.push_back({{"factor", f.name}, {"red", f.red_value}, {"baseline", f.base_value}});
  }
  Json legs = Json::array();
  for (const Leg& l : result.legs) legs.push_back(LegJson(l));
  Json j{{"run_id", run_id}, {"bisection_id", bisection_id},
         {"verdict", BisectVerdictName(result.verdict)}, {"culprits", result.culprits},
         {"culprit_pairs", result.culprit_pairs}, {"flaky", result.flaky},
         {"identical_green", identical_green}, {"target_verdicts", target_verdicts},
         {"alpha", result.alpha}, {"repeats", result.repeats}, {"summary", result.summary},
         {"baseline_source", baseline_source}, {"differing", differing}, {"legs", legs},
         {"minimal_differs", result.minimal_differs},
         {"minimal_confirmed", result.minimal_confirmed}, {"minimal_config", minimal_path},
         {"minimal_command", minimal_command}};
  return j.dump(indent);
}

Result<TriageRunResult> TriageRun(int64_t run_id, const TriageOptions& o) {
  CTTE_ASSIGN_OR_RETURN(Loaded l, LoadRedRun(run_id, o, "triage"));
  if (o.repeats == 0) return Status::InvalidArgument("--repeats: must be at least 1");
  CTTE_ASSIGN_OR_RETURN(const BoardPoolOptions pool, PoolOfCampaign(l, o.pool));
  // The two boards. On the lab: the run's own, found by its stored identity, and another board
  // of the inventory. Locally: two fresh children, labelled with the run's serial and
  // serial + "-other" (both simulators: board_specific cannot come out of them).
  BoardSource leg_boards[2] = {pool.boards, pool.boards};
  std::string serials[2];
  if (pool.boards.lab()) {
    if (pool.boards.size() < 2) {
      return Status::InvalidArgument(
          "triage on the lab needs two boards, the run's and another; the lab has " +
          std::to_string(pool.boards.size()) + " (" + pool.boards.Name(0) + ")");
    }
    if (!l.row.run.board_id) {
      return Status::InvalidArgument("run " + std::to_string(run_id) + " stored no board");
    }
    CTTE_ASSIGN_OR_RETURN(const db::BoardRecord was, l.db->BoardById(*l.row.run.board_id));
    const std::string hint = db::StoredBoardName(was);
    Result<unsigned> same = FindBoardSlot(pool.boards, was.kind, was.serial, hint);
    if (!same.ok()) {
      return Status::NotFound("run " + std::to_string(run_id) + " ran on " +
                              (hint.empty() ? "" : hint + ", ") + was.kind + " serial " +
                              was.serial + ", which no board of the lab reports (" +
                              same.status().message() + ")");
    }
    // The other board: another of the lab that can host the run's image, a board of the same
    // kind (a Zynq image does not load on a simulator, nor the reverse).
    Result<unsigned> other = FindBoardSlot(
        pool.boards, [&was](const lab::BoardIdentity& id) { return id.kind == was.kind; },
        "of kind " + was.kind + " but the run's", "", *same);
    if (!other.ok()) {
      return Status::InvalidArgument("triage on the lab needs two boards of kind " + was.kind +
                                     ", the run's (" + pool.boards.Name(*same) + ") and another: " +
                                     other.status().message());
    }
    leg_boards[0] = pool.boards.Only(*same);
    leg_boards[1] = pool.boards.Only(*other);
    serials[0] = pool.boards.Name(*same);
    serials[1] = pool.boards.Name(*other);
  } else {
    std::string serial = "sim-triage";
    if (l.row.run.board_id) {
      if (auto b = l.db->BoardById(*l.row.run.board_id); b.ok() && !b->serial.empty()) {
        serial = b->serial;
      }
    }
    serials[0] = serial;
    serials[1] = serial + "-other";
    for (int b = 0; b < 2; ++b) {
      leg_boards[b].count = 1;
      leg_boards[b].slot_args = {{"--serial", serials[b]}};
    }
  }
  TriageRunResult out;
  out.run_id = run_id;
  // As in a bisection, a repeat reproduces only when red on one of this run's failing verdicts.
  CTTE_ASSIGN_OR_RETURN(const std::vector<db::VerdictRecord> verdicts,
                        l.db->VerdictsOfRun(run_id));
  std::vector<std::string> targets;
  for (const db::VerdictRecord& v : verdicts) {
    if (v.outcome == db::Outcome::kFail) targets.push_back(v.verdict);
  }
  std::vector<RunConfig> configs;
  RunConfig exact = l.config;
  exact.twin_of.reset();
  exact.control.reset();
  configs.push_back(exact);  // the replay: the stored seeds
  for (uint32_t r = 0; r < o.repeats; ++r) configs.push_back(RepeatConfig(l.config, l.config.seed, r));
  Leg* legs[2] = {&out.same_board, &out.other_board};
  std::vector<LegRun> results[2];
  std::vector<std::thread> threads;
  for (int b = 0; b < 2; ++b) {
    legs[b]->kind = b == 0 ? LegKind::kSameBoard : LegKind::kOtherBoard;
    legs[b]->factors = {serials[b]};
    legs[b]->config = l.config;
    threads.emplace_back([&, b] {
      BoardPoolOptions p = pool;
      p.boards = leg_boards[b];
      results[b] = RunBatch(p, configs);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int b = 0; b < 2; ++b) {
    for (size_t i = 0; i < results[b].size(); ++i) {
      results[b][i].repeat = static_cast<uint32_t>(i);  // 0: the replay, k: repeat k - 1
      results[b][i].seed = configs[i].seed;
      results[b][i].reproduces = Reproduces(results[b][i], targets);
      legs[b]->runs.push_back(results[b][i]);
    }
  }
  const Leg& a = out.same_board;
  const Leg& c = out.other_board;
  out.red = a.red() + c.red();
  out.judged = a.judged() + c.judged();
  out.rate = WilsonInterval(out.red, out.judged);
  const uint64_t all = a.runs.size() + c.runs.size();
  const uint64_t bad = a.unsound() + c.unsound();
  auto pct = [](double x) { return std::to_string(static_cast<int>(100.0 * x + 0.5)) + "%"; };
  const std::string rate = std::to_string(out.red) + "/" + std::to_string(out.judged) +
                           " red (95% " + pct(out.rate.lo) + "-" + pct(out.rate.hi) + ")";
  if (3 * bad > all) {
    out.classification = TriageClass::kInfrastructure;
    out.summary = "infrastructure: " + std::to_string(bad) + " of " + std::to_string(all) +
                  " runs were infra or invalid; nothing is classified";
  } else if (out.red == 0) {
    out.classification = TriageClass::kNotReproduced;
    out.summary = "not reproduced: " + rate + " on " + serials[0] + " and " + serials[1];
  } else if (a.red() == a.judged() && c.red() == c.judged()) {
    out.classification = TriageClass::kDesign;
    out.summary = "design: red on both boards in every run (" + rate + ")";
  } else if (c.interval().hi < a.interval().lo || a.interval().hi < c.interval().lo) {
    const bool here = c.interval().hi < a.interval().lo;
    out.classification = TriageClass::kBoardSpecific;
    out.summary = "board-specific: red on " + serials[here ? 0 : 1] + " (" +
                  std::to_string((here ? a : c).red()) + "/" +
                  std::to_string((here ? a : c).judged()) + "), green on " +
                  serials[here ? 1 : 0];
  } else {
    out.classification = TriageClass::kFlaky;
    out.summary = "flaky: " + rate + " over both boards";
  }
  out.same_board.verdict = out.other_board.verdict = LegVerdict::kReference;
  db::BisectionRecord rec;
  rec.run_id = run_id;
  rec.kind = "triage";
  rec.created_at = NowIsoUtc();
  rec.repeats = o.repeats;
  rec.verdict = TriageClassName(out.classification);
  rec.summary = out.summary;
  rec.legs = {LegRecordOf(out.same_board, 0), LegRecordOf(out.other_board, 1)};
  CTTE_ASSIGN_OR_RETURN(out.bisection_id, db::TriageStore::RecordBisection(*l.db, rec));
  return out;
}

const char* TriageClassName(TriageClass c) {
  switch (c) {
    case TriageClass::kDesign: return "design";
    case TriageClass::kBoardSpecific: return "board_specific";
    case TriageClass::kFlaky: return "flaky";
    case TriageClass::kNotReproduced: return "not_reproduced";
    case TriageClass::kInfrastructure: return "infrastructure";
  }
  return "not_reproduced";
}

std::string TriageRunResult::ToJson(int indent) const {
  Json j{{"run_id", run_id}, {"bisection_id", bisection_id},
         {"classification", TriageClassName(classification)}, {"summary", summary}, {"red", red},
         {"judged", judged}, {"interval", {rate.lo, rate.hi}},
         {"legs", Json::array({LegJson(same_board), LegJson(other_board)})}};
  return j.dump(indent);
}

}  // namespace ctte::runner
