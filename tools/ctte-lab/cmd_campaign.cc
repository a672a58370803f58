// `ctte-lab campaign check|draw|plan`: campaign specs (docs/campaign-spec.md) and their draws.
#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/files.h"
#include "base/text.h"
#include "db/database.h"
#include "runner/campaign_open.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"
#include "runner/preflight.h"
#include "runner/run_config.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/install_paths.h"
#include "tools/ctte-lab/flag_checks.h"

namespace ctte::cli {
namespace {

struct CampaignFlags {
  std::string spec_path;
  uint64_t count = 0;
  uint64_t start = 0;
  bool json = false;
  std::string db_path = "out/ctte.db";
  std::string image_dir = DefaultImageDir();
  std::string workload_dir = DefaultWorkloadDir();
};

/// Loads and validates a spec; prints every error (path: reason) to stderr on failure.
std::optional<runner::CampaignSpec> LoadOrReport(const std::string& path, std::string* text) {
  auto loaded = runner::LoadCampaignSpec(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", loaded.status().ToString().c_str());
    return std::nullopt;
  }
  if (!loaded->ok()) {
    std::fputs(runner::FormatSpecErrors(path, loaded->errors).c_str(), stderr);
    std::fprintf(stderr, "%s: %zu error(s)\n", path.c_str(), loaded->errors.size());
    return std::nullopt;
  }
  if (text) {
    auto t = ReadFileText(path);
    if (t.ok()) *text = *t;
  }
  return loaded->spec;
}

int RunCheck(const CampaignFlags& f) {
  auto spec = LoadOrReport(f.spec_path, nullptr);
  if (!spec) return kExitUsage;
  std::printf("campaign %s: ok\n", spec->name.c_str());
  if (!spec->description.empty()) std::printf("  %s\n", spec->description.c_str());
  std::printf("  seed               %s\n", runner::SeedHex(spec->seed).c_str());
  if (spec->runs) std::printf("  runs               %" PRIu64 "\n", *spec->runs);
  if (spec->budget_seconds) std::printf("  budget             %" PRIu64 " s\n", *spec->budget_seconds);
  std::printf("  clocks             fabric %u MHz, sink %u MHz (regime none)\n", spec->fabric_mhz,
              spec->sink_mhz);
  std::printf("  horizon            %" PRIu64 " retirements\n", spec->horizon_retirements);
  std::printf("  determinism pairs  %.6g\n", spec->determinism_pairs_ppm / 1e6);
  auto print_values = [](const char* name, const std::vector<runner::WeightedValue>& values) {
    uint64_t total = 0;
    for (const auto& v : values) total += v.weight;
    std::printf("  %-18s", name);
    for (size_t i = 0; i < values.size(); ++i) {
      std::printf("%s%s (%.0f%%)", i ? ", " : "", values[i].value.c_str(),
                  100.0 * static_cast<double>(values[i].weight) / static_cast<double>(total));
    }
    std::printf("\n");
  };
  print_values("images", spec->images);
  for (const runner::Axis& a : spec->axes) print_values(a.name.c_str(), a.values);
  // The soak's own preparation, without a board: runs that would be infra by design.
  runner::PlanOptions po;
  po.image_dir = f.image_dir;
  po.workload_dir = f.workload_dir;
  for (const runner::UserWorkload& w : spec->workloads) {
    po.user_workloads[w.name] = w.path;
    std::printf("  user workload      %s = %s (sha256 %s)\n", w.name.c_str(), w.path.c_str(),
                w.sha256.c_str());
  }
  const runner::PreflightReport pre = runner::PreflightCampaign(*spec, po);
  if (pre.ok()) {
    std::printf("  preflight          every image, clock and workload is usable (%s, %s)\n",
                f.image_dir.c_str(), f.workload_dir.c_str());
    return kExitOk;
  }
  for (const runner::PreflightProblem& p : pre.problems) {
    std::string runs;
    for (uint64_t i : p.first_runs) runs += (runs.empty() ? "" : ", ") + std::to_string(i);
    if (p.runs_hit > p.first_runs.size()) runs += ", ...";
    std::fprintf(stderr, "%s: infra by design (%s): %s; runs %s (%" PRIu64 " of the first %" PRIu64
                         " runs)\n",
                 f.spec_path.c_str(), runner::InfraCauseName(p.cause), p.reason.c_str(),
                 runs.empty() ? "none drawn" : runs.c_str(), p.runs_hit, pre.scanned);
  }
  std::fprintf(stderr, "%s: %zu value(s) would make runs infra\n", f.spec_path.c_str(),
               pre.problems.size());
  return kExitUsage;
}

void PrintRunLine(const runner::RunConfig& c) {
  std::printf("%4" PRIu64 "  %s  %-14s", c.index, runner::SeedHex(c.seed).c_str(),
              c.image.c_str());
  for (const std::string& axis : runner::AxisNames()) {
    std::printf(" %s=%s", axis.c_str(), c.AxisValue(axis).c_str());
  }
  if (c.twin_of) std::printf(" twin_of=%" PRIu64, *c.twin_of);
  std::printf("\n");
}

int RunDraw(const CampaignFlags& f) {
  auto spec = LoadOrReport(f.spec_path, nullptr);
  if (!spec) return kExitUsage;
  if (f.json) std::printf("[\n");
  for (uint64_t i = 0; i < f.count; ++i) {
    const runner::RunConfig c = runner::Draw(*spec, f.start + i);
    if (f.json) {
      std::printf("%s%s\n", runner::RunConfigToJson(c).c_str(), i + 1 < f.count ? "," : "");
    } else {
      PrintRunLine(c);
    }
  }
  if (f.json) std::printf("]\n");
  return kExitOk;
}

int RunPlan(const CampaignFlags& f) {
  std::string text;
  auto spec = LoadOrReport(f.spec_path, &text);
  if (!spec) return kExitUsage;
  uint64_t count = f.count;
  if (count == 0) {
    if (!spec->runs) {
      std::fprintf(stderr, "ctte-lab: campaign %s has a time budget, not a run count: "
                           "give --count N\n", spec->name.c_str());
      return kExitUsage;
    }
    count = *spec->runs;
    if (count > kMaxDrawCount) {
      std::fprintf(stderr, "ctte-lab: campaign %s has %" PRIu64 " runs, more than plan records at "
                           "once (%" PRIu64 "): give --count N\n", spec->name.c_str(), count,
                   kMaxDrawCount);
      return kExitUsage;
    }
  }
  // Only the default out/ is created (as `soak` does); an explicit --db needs its folder, and
  // Database::Open refuses a missing folder or a path that is not a regular file by name.
  const std::filesystem::path db_path(f.db_path);
  std::error_code ec;
  if (f.db_path == "out/ctte.db") std::filesystem::create_directories(db_path.parent_path(), ec);
  if (ec) {
    std::fprintf(stderr, "ctte-lab: cannot create %s: %s\n",
                 db_path.parent_path().c_str(), ec.message().c_str());
    return kExitUsage;
  }
  auto db = db::Database::Open(f.db_path);
  if (!db.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", db.status().ToString().c_str());
    return kExitUsage;
  }
  // The same row a soak of this spec opens (user workloads pinned by digest).
  auto campaign_id = runner::OpenCampaign(**db, *spec, runner::StoredSpecText(text, *spec));
  if (!campaign_id.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", campaign_id.status().ToString().c_str());
    return kExitUsage;
  }
  std::vector<db::RunRecord> runs;
  uint64_t twins = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const runner::RunConfig c = runner::Draw(*spec, f.start + i);
    db::RunRecord r;
    r.campaign_id = *campaign_id;
    r.index = c.index;
    r.seed = c.seed;
    r.config_json = runner::RunConfigToJson(c);
    r.status = db::RunStatus::kPlanned;
    r.image_name = c.image;
    r.fabric.requested_hz = c.fabric_hz;
    r.sink.requested_hz = c.sink_hz;
    twins += c.twin_of ? 1 : 0;
    runs.push_back(std::move(r));
  }
  auto added = (*db)->PlanRuns(runs);
  if (!added.ok()) {
    std::fprintf(stderr, "ctte-lab: %s\n", added.status().ToString().c_str());
    return kExitUsage;
  }
  std::printf("campaign %s (id %" PRId64 ", seed %s): %" PRIu64 " runs drawn (indices %" PRIu64
              "..%" PRIu64 ", %" PRIu64 " determinism twins), %" PRIu64
              " newly recorded as planned in %s\n",
              spec->name.c_str(), *campaign_id, runner::SeedHex(spec->seed).c_str(), count,
              f.start, f.start + count - 1, twins, *added, f.db_path.c_str());
  return kExitOk;
}

}  // namespace

Command CampaignCommand() {
  return Command{
    "campaign",
    "Check, draw and plan campaign specs (docs/campaign-spec.md)",
    [](CLI::App& sub) -> std::function<int()> {
      auto flags = std::make_shared<CampaignFlags>();
      sub.require_subcommand(1);
      CLI::App* check = sub.add_subcommand("check", "Validate a spec and the runs it would "
                                                    "make: a summary, or every error with its JSON "
                                                    "path and every infra-by-design value (exit 2)");
      check->add_option("SPEC", flags->spec_path, "campaign spec JSON file")->required();
      check->add_option("--image-dir", flags->image_dir,
                        "image manifests the soak would use (checked: found, loadable, fmax)");
      check->add_option("--workload-dir", flags->workload_dir, "workload ELFs the soak would use");

      CLI::App* draw = sub.add_subcommand("draw", "Print the configurations of runs "
                                                  "[start, start + count)");
      draw->add_option("SPEC", flags->spec_path, "campaign spec JSON file")->required();
      draw->add_option("--count,-n", flags->count, "number of runs to draw, 1..10^7")
          ->required()
          ->check(UnsignedIn(1, kMaxDrawCount));
      draw->add_option("--start", flags->start, "first run index, 0..2^62 (default 0)")
          ->check(UnsignedIn(0, kMaxRunIndex));
      draw->add_flag("--json", flags->json, "print a JSON array of RunConfig objects");

      CLI::App* plan = sub.add_subcommand("plan", "Record the campaign and its drawn runs as "
                                                  "'planned' in the database");
      plan->add_option("SPEC", flags->spec_path, "campaign spec JSON file")->required();
      plan->add_option("--db", flags->db_path, "database file (default out/ctte.db)");
      plan->add_option("--count,-n", flags->count,
                       "number of runs, 1..10^7 (default: the spec's runs; required for budget "
                       "specs)")
          ->check(UnsignedIn(1, kMaxDrawCount));
      plan->add_option("--start", flags->start, "first run index, 0..2^62 (default 0)")
          ->check(UnsignedIn(0, kMaxRunIndex));

      return [flags, check, draw, plan]() {
        if (check->parsed()) return RunCheck(*flags);
        if (draw->parsed()) return RunDraw(*flags);
        if (plan->parsed()) return RunPlan(*flags);
        return static_cast<int>(kExitUsage);
      };
    },
};
}

}  // namespace ctte::cli
