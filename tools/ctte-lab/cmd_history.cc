// `ctte-lab history`: what the database knows (docs/db-schema.md): campaigns with run counts by
// status, outcome counts per verdict, fail rate per factor value, red runs.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <memory>

#include "db/database.h"
#include "db/triage_store.h"
#include "reports/triage_text.h"
#include "reports/control_table.h"
#include "runner/campaign_spec.h"
#include "runner/replay.h"
#include "runner/run_config.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

struct HistoryFlags {
  std::string db_path = "out/ctte.db";
  std::string campaign;
  bool json = false;
  bool pairs = false;     ///< --pairs: fail rate per pair of factor values (docs/triage.md)
  uint64_t min_runs = 3;  ///< --min-runs: pairs seen in fewer judged runs are left out
  bool nights = false;    ///< --nights: campaigns of one name across seeds
};

// `history --pairs` and `history --nights` (docs/triage.md, "History").
int RunPairsOrNights(db::Database& db, const HistoryFlags& f) {
  using nlohmann::ordered_json;
  if (f.nights) {
    if (f.campaign.empty()) {
      std::fprintf(stderr, "ctte-lab history: --nights needs --campaign NAME\n");
      return kExitUsage;
    }
    auto nights = db::TriageStore::Nights(db, f.campaign);
    if (!nights.ok()) {
      std::fprintf(stderr, "ctte-lab: %s\n", nights.status().ToString().c_str());
      return kExitUsage;
    }
    if (f.json) {
      ordered_json j = ordered_json::array();
      for (const db::NightRow& n : *nights) {
        ordered_json v = ordered_json::object();
        for (const auto& [name, c] : n.verdicts) v[name] = {{"pass", c.first}, {"fail", c.second}};
        j.push_back({{"campaign_id", n.campaign.id}, {"seed", runner::SeedHex(n.campaign.seed)},
                     {"created_at", n.campaign.created_at}, {"green", n.campaign.green},
                     {"red", n.campaign.red}, {"invalid", n.campaign.invalid},
                     {"infra", n.campaign.infra}, {"verdicts", v}});
      }
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("Nights of campaign %s (fail counts per verdict over judged draws)\n%s",
                  f.campaign.c_str(), reports::FormatNights(*nights).c_str());
    }
    return kExitOk;
  }
  auto pairs = db::TriageStore::PairRates(db, f.campaign, f.min_runs);
  if (!pairs.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", pairs.status().ToString().c_str());
    return kExitUsage;
  }
  if (f.json) {
    ordered_json j = ordered_json::array();
    for (const db::PairRate& p : *pairs) {
      j.push_back({{"factor_a", p.factor_a}, {"value_a", p.value_a}, {"factor_b", p.factor_b},
                   {"value_b", p.value_b}, {"runs", p.runs}, {"red", p.red},
                   {"fail_rate", p.rate}, {"fail_rate_a", p.rate_a}, {"fail_rate_b", p.rate_b},
                   {"excess", p.excess}, {"interval", {p.lo, p.hi}},
                   {"excess_lo", p.excess_lo}});
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("Fail rate per pair of factor values (judged draws; pairs seen in at least %llu "
                "runs), by excess = pair rate - max(single rates)\n%s",
                static_cast<unsigned long long>(f.min_runs),
                reports::FormatPairs(*pairs, 0).c_str());
  }
  return kExitOk;
}

struct History {
  std::vector<db::CampaignSummary> campaigns;
  std::vector<db::OutcomeCount> outcomes;
  std::vector<db::FactorRate> factors;
  std::vector<db::RunRow> red_runs;
  std::vector<std::vector<reports::ControlRow>> controls;  ///< per campaign, same order
  std::vector<db::BoardInfraCounts> boards;  ///< board deaths, respawns and retries
};

Status Collect(db::Database& db, const std::string& campaign, History* h) {
  auto campaigns = db.Campaigns(campaign);
  if (!campaigns.ok()) return campaigns.status();
  h->campaigns = std::move(*campaigns);
  for (const db::CampaignSummary& c : h->campaigns) {
    auto rows = db.ControlRunsOfCampaign(c.id);
    if (!rows.ok()) return rows.status();
    h->controls.push_back(reports::ControlRows(*rows));
  }
  auto outcomes = db.OutcomeCounts(campaign);
  if (!outcomes.ok()) return outcomes.status();
  h->outcomes = std::move(*outcomes);
  auto rates = db.FailRatesByFactor(campaign);  // every axis in one pass, by factor and value
  if (!rates.ok()) return rates.status();
  for (const std::string& axis : runner::AxisNames()) {
    for (const db::FactorRate& f : *rates) {
      if (f.factor == axis) h->factors.push_back(f);
    }
  }
  auto red = db.RedRuns(campaign);
  if (!red.ok()) return red.status();
  h->red_runs = std::move(*red);
  auto boards = db.InfraByBoard(campaign);
  if (!boards.ok()) return boards.status();
  h->boards = std::move(*boards);
  return Status::Ok();
}

// The replay command of a run, naming the database unless it is the default one.
void PrintJson(const History& h, const std::string& db_path) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["campaigns"] = ordered_json::array();
  for (size_t i = 0; i < h.campaigns.size(); ++i) {
    const auto& c = h.campaigns[i];
    ordered_json controls = ordered_json::array();
    for (const reports::ControlRow& r : h.controls[i]) {
      controls.push_back({{"control", r.name}, {"image", r.image}, {"round", r.round},
                          {"expect_red", r.expect_red}, {"observed_red", r.observed_red},
                          {"passed", r.passed}, {"run_id", r.run_id}});
      if (!r.shard.empty()) controls.back()["shard"] = r.shard;
    }
    j["campaigns"].push_back({{"id", c.id}, {"name", c.name}, {"description", c.description},
                              {"seed", runner::SeedHex(c.seed)}, {"spec_sha256", c.spec_sha256},
                              {"created_at", c.created_at}, {"runs", c.total()},
                              {"planned", c.planned}, {"green", c.green}, {"red", c.red},
                              {"invalid", c.invalid}, {"infra", c.infra},
                              {"retried", c.retried}, {"infra_attempts", c.infra_attempts},
                              {"unsound", reports::Unsound(h.controls[i])},
                              {"controls", controls}});
  }
  j["outcomes"] = ordered_json::array();
  for (const auto& o : h.outcomes) {
    j["outcomes"].push_back({{"verdict", o.verdict}, {"pass", o.pass}, {"fail", o.fail},
                             {"n/a", o.not_applicable}});
  }
  j["factors"] = ordered_json::array();
  for (const auto& f : h.factors) {
    j["factors"].push_back({{"factor", f.factor}, {"value", f.value}, {"runs", f.runs},
                            {"green", f.green}, {"red", f.red},
                            {"fail_rate", f.green + f.red == 0 ? ordered_json(nullptr)
                                                               : ordered_json(f.fail_rate())}});
  }
  j["red_runs"] = ordered_json::array();
  for (const auto& r : h.red_runs) {
    j["red_runs"].push_back({{"id", r.id}, {"campaign", r.campaign_name},
                             {"index", r.run.index}, {"seed", runner::SeedHex(r.run.seed)},
                             {"started_at", r.run.started_at},
                             {"replay", runner::ReplayCommand(r.id, db_path)}});
  }
  j["boards"] = ordered_json::array();
  for (const auto& b : h.boards) {
    j["boards"].push_back({{"board_id", b.board_id ? ordered_json(*b.board_id) : ordered_json()},
                           {"kind", b.kind}, {"serial", b.serial}, {"runs", b.runs},
                           {"infra_attempts", b.infra_attempts}, {"retries", b.retries},
                           {"board_deaths", b.deaths}, {"respawns", b.respawns}});
  }
  std::printf("%s\n", j.dump(2).c_str());
}

void PrintText(const History& h, const std::string& db_path) {
  // The control tables first: a campaign with a failed control measures nothing.
  for (size_t i = 0; i < h.campaigns.size(); ++i) {
    if (h.controls[i].empty()) continue;
    std::printf("Controls of campaign %" PRId64 " (%s)\n", h.campaigns[i].id,
                h.campaigns[i].name.c_str());
    std::printf("%s\n", reports::FormatControlTable(h.controls[i]).c_str());
  }
  std::printf("Campaigns (draws only; UNSOUND = a control failed)\n");
  std::printf("  %4s  %-16s %-18s %6s %8s %6s %5s %8s %6s %8s  %s\n", "id", "name", "seed",
              "runs", "planned", "green", "red", "invalid", "infra", "retried", "created");
  for (size_t i = 0; i < h.campaigns.size(); ++i) {
    const auto& c = h.campaigns[i];
    std::printf("  %4" PRId64 "  %-16s %-18s %6" PRIu64 " %8" PRIu64 " %6" PRIu64 " %5" PRIu64
                " %8" PRIu64 " %6" PRIu64 " %8" PRIu64 "  %s%s\n",
                c.id, c.name.c_str(), runner::SeedHex(c.seed).c_str(), c.total(), c.planned,
                c.green, c.red, c.invalid, c.infra, c.retried, c.created_at.c_str(),
                reports::Unsound(h.controls[i]) ? "  UNSOUND" : "");
  }
  if (h.campaigns.empty()) std::printf("  (none)\n");

  std::printf("\nOutcomes per verdict (green and red runs; replays excluded)\n");
  std::printf("  %-28s %6s %6s %6s\n", "verdict", "pass", "fail", "n/a");
  for (const auto& o : h.outcomes) {
    std::printf("  %-28s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n", o.verdict.c_str(), o.pass,
                o.fail, o.not_applicable);
  }
  if (h.outcomes.empty()) std::printf("  (no judged runs yet)\n");

  std::printf("\nFail rate per factor value (red / judged runs; replays excluded)\n");
  std::printf("  %-16s %-16s %6s %6s %5s %7s\n", "factor", "value", "runs", "green", "red",
              "fail");
  for (const auto& f : h.factors) {
    char rate[16] = "      -";  // nothing judged yet
    if (f.green + f.red > 0) std::snprintf(rate, sizeof rate, "%6.1f%%", 100.0 * f.fail_rate());
    std::printf("  %-16s %-16s %6" PRIu64 " %6" PRIu64 " %5" PRIu64 " %s\n", f.factor.c_str(),
                f.value.c_str(), f.runs, f.green, f.red, rate);
  }
  if (h.factors.empty()) std::printf("  (no runs)\n");

  std::printf("\nRed runs\n");
  for (const auto& r : h.red_runs) {
    std::printf("  run %" PRId64 "  %s #%" PRIu64 "  seed %s  replay: %s\n", r.id,
                r.campaign_name.c_str(), r.run.index, runner::SeedHex(r.run.seed).c_str(),
                runner::ReplayCommand(r.id, db_path).c_str());
  }
  if (h.red_runs.empty()) std::printf("  (none)\n");

  // Only boards that had trouble: a clean lab prints "(none)".
  std::printf("\nBoard trouble (deaths = died or hung; retries = runs tried again after an "
              "attempt here)\n");
  bool any = false;
  for (const auto& b : h.boards) {
    if (b.infra_attempts == 0 && b.retries == 0 && b.deaths == 0 && b.respawns == 0) continue;
    any = true;
    std::printf("  board %-6s %-24s %6" PRIu64 " runs %4" PRIu64 " infra attempts %4" PRIu64
                " deaths %4" PRIu64 " respawns %4" PRIu64 " retries\n",
                b.board_id ? std::to_string(*b.board_id).c_str() : "-",
                (b.kind + " " + b.serial).c_str(), b.runs, b.infra_attempts, b.deaths,
                b.respawns, b.retries);
  }
  if (!any) std::printf("  (none)\n");
}

int RunHistory(const HistoryFlags& f) {
  // Read-only: history works on a read-only database or folder and never migrates the file.
  auto db = db::Database::OpenReadOnly(f.db_path);
  if (!db.ok() && db.status().code() == Status::Code::kNotFound) {
    std::fprintf(stderr,
                 "ctte-lab: %s (record runs first, e.g. "
                 "`ctte-lab campaign plan campaigns/smoke.json --db %s`)\n",
                 db.status().ToString().c_str(), f.db_path.c_str());
    return kExitUsage;
  }
  if (!db.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", db.status().ToString().c_str());
    return kExitUsage;
  }
  if (f.pairs || f.nights) return RunPairsOrNights(**db, f);
  History h;
  Status st = Collect(**db, f.campaign, &h);
  if (!st.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  if (!f.campaign.empty() && h.campaigns.empty()) {
    std::fprintf(stderr, "ctte-lab: no campaign named %s in %s\n", f.campaign.c_str(),
                 f.db_path.c_str());
    return kExitUsage;
  }
  if (f.json) PrintJson(h, f.db_path);
  else PrintText(h, f.db_path);
  return kExitOk;
}

}  // namespace

Command HistoryCommand() {
  return Command{
    "history",
    "Campaigns, outcomes per verdict, fail rate per factor value and red runs from the database",
    [](CLI::App& sub) -> std::function<int()> {
      auto flags = std::make_shared<HistoryFlags>();
      sub.add_option("--db", flags->db_path, "database file (default out/ctte.db)");
      sub.add_option("--campaign", flags->campaign, "only campaigns with this name");
      sub.add_flag("--json", flags->json, "print JSON instead of tables");
      sub.add_flag("--pairs", flags->pairs,
                   "fail rate per pair of factor values with its Wilson interval, ranked by the "
                   "lower bound of the excess over the single values");
      sub.add_option("--min-runs", flags->min_runs,
                     "--pairs: leave out pairs seen in fewer judged runs (default 3)")
          ->check(CLI::Range(uint64_t{1}, uint64_t{1000000000}));
      sub.add_flag("--nights", flags->nights,
                   "campaigns of --campaign NAME across seeds, counts per verdict");
      return [flags]() { return RunHistory(*flags); };
    },
};
}

}  // namespace ctte::cli
