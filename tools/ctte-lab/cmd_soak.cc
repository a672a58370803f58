// `ctte-lab soak SPEC`: a campaign on N simulated boards in parallel (runner/soak.h), every run
// stored in the database, then the reports. Progress: one updating line on a terminal, plain log
// lines otherwise; every red run's line names its seed and replay command.
// Exit: 0 all green, 1 any red, 2 usage or infrastructure error, 3 invalid runs (and no red),
// 128 + signal (130 SIGINT, 143 SIGTERM) when a signal stopped it (docs/soak.md, "Stopping").
//
// Signals: SIGINT and SIGTERM are blocked before any board starts (the board children inherit
// the mask, so a terminal's Ctrl-C reaches only this process) and taken by one thread with
// sigtimedwait, which turns them into RunSoak stop requests.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "base/files.h"
#include "base/output.h"
#include "db/database.h"
#include "base/log.h"
#include "lab/net/inventory.h"
#include "tools/ctte-lab/lab_source.h"
#include "tools/ctte-lab/lab_usb.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/report_model.h"
#include "runner/campaign_spec.h"
#include "runner/replay.h"
#include "runner/soak.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/flag_checks.h"
#include "tools/ctte-lab/plan_flags.h"
#include "tools/ctte-lab/soak_support.h"

namespace ctte::cli {
namespace {

struct SoakFlags {
  std::string spec;
  uint64_t runs = 0;
  std::string budget;
  unsigned boards = 1;
  std::string db_path = "out/ctte.db";
  std::string report_dir = "out/reports";
  std::string resume;
  bool retry_infra = false;
  std::string seed;
  std::string store_streams = "red";
  std::string shard;
  std::string image_dir = DefaultImageDir();
  std::string workload_dir = DefaultWorkloadDir();
  std::string board_path;
  BoardSourceFlags lab;
  std::string log_level = "info";
  unsigned quarantine_after = 3;
  double health_check_after = 30;
  std::string artifacts;
  bool json = false;
  std::vector<std::string> given;  ///< the options given, as "--name value", for the resume hint
};

int Usage(const std::string& msg) {
  std::fprintf(stderr, "ctte-lab soak: %s\n", msg.c_str());
  return kExitUsage;
}

std::string Duration(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

class Progress {
 public:
  Progress(bool tty, std::string db_path, std::optional<uint64_t> budget)
      : tty_(tty), db_path_(std::move(db_path)), budget_(budget) {}

  void operator()(const runner::SoakRunEvent& e) {
    const runner::SoakCounts& c = e.counts;
    const double per_hour = e.elapsed_seconds > 0 ? c.done * 3600.0 / e.elapsed_seconds : 0;
    std::string left;
    if (e.total > 0 && c.done > 0) {
      left = Duration(e.elapsed_seconds / c.done * static_cast<double>(e.total - c.done));
    } else if (budget_) {
      left = Duration(static_cast<double>(*budget_) - e.elapsed_seconds);
    }
    char line[512];
    std::snprintf(line, sizeof line,
                  "run %llu seed %s %s on board %u (%.1f s)%s%s",
                  static_cast<unsigned long long>(e.index), runner::SeedHex(e.seed).c_str(),
                  runner::RunStatusName(e.status), e.board, e.wall_seconds,
                  e.twin_of ? (" twin of " + std::to_string(*e.twin_of)).c_str() : "",
                  e.status == runner::RunStatus::kGreen ? "" : (": " + e.reason).c_str());
    char status[256];
    std::snprintf(status, sizeof status,
                  "%llu%s done; green %llu, red %llu, invalid %llu, infra %llu; %.0f runs/h; "
                  "%s left",
                  static_cast<unsigned long long>(c.done),
                  e.total ? ("/" + std::to_string(e.total)).c_str() : "",
                  static_cast<unsigned long long>(c.green),
                  static_cast<unsigned long long>(c.red),
                  static_cast<unsigned long long>(c.invalid),
                  static_cast<unsigned long long>(c.infra), per_hour,
                  left.empty() ? "?" : left.c_str());
    if (tty_) {
      // Non-green runs stay on the screen; the status line is redrawn in place.
      if (e.status != runner::RunStatus::kGreen) std::fprintf(stderr, "\r\033[K%s\n", line);
      if (e.status == runner::RunStatus::kRed) {
        std::fprintf(stderr, "  replay: %s\n", runner::ReplayCommand(e.run_id, db_path_).c_str());
      }
      std::fprintf(stderr, "\r\033[K%s", status);
    } else {
      std::fprintf(stderr, "%s | %s\n", line, status);
      if (e.status == runner::RunStatus::kRed) {
        std::fprintf(stderr, "  replay: %s\n", runner::ReplayCommand(e.run_id, db_path_).c_str());
      }
    }
    std::fflush(stderr);
  }

 private:
  bool tty_;
  std::string db_path_;
  std::optional<uint64_t> budget_;
};

Result<std::vector<std::string>> WriteReports(const std::string& db_path, int64_t campaign_id,
                                              const std::string& dir,
                                              const std::vector<std::string>& quarantined) {
  auto db = db::Database::OpenReadOnly(db_path);
  if (!db.ok()) return db.status();
  reports::ReportOptions ro;
  ro.db_path = db_path;
  auto model = reports::BuildReportModel(**db, std::to_string(campaign_id), ro);
  if (!model.ok()) return model.status();
  model->quarantined = quarantined;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  const std::string base = dir + "/" + model->campaign.name + "-" + std::to_string(campaign_id);
  std::vector<std::string> written;
  const std::pair<std::string, std::string> files[] = {
      {base + ".html", reports::RenderHtml(*model)},
      {base + ".junit.xml", reports::RenderJUnit(*model)},
      {base + ".csv", reports::RenderCsv(*model)}};
  for (const auto& [path, text] : files) {
    CTTE_RETURN_IF_ERROR(WriteOutputFile(path, text));  // base/output.h: only a file is replaced
    written.push_back(path);
  }
  return written;
}

/// The command that continues this campaign: the same options, with --resume ID.
std::string ResumeCommand(const SoakFlags& f, int64_t campaign_id) {
  std::string cmd = "ctte-lab soak " + ShellQuote(f.spec);
  for (size_t i = 0; i + 1 < f.given.size(); i += 2) {
    if (f.given[i] == "--resume") continue;
    cmd += " " + f.given[i] + " " + ShellQuote(f.given[i + 1]);
  }
  return cmd + " --resume " + std::to_string(campaign_id);
}

int RunSoakCommand(const SoakFlags& f) {
  runner::SoakOptions o;
  o.spec_path = f.spec;
  if (f.runs > 0 && !f.budget.empty()) return Usage("give --runs or --budget, not both");
  if (f.runs > 0) o.runs = f.runs;
  if (!f.seed.empty()) {
    o.seed = runner::ParseSeedText(f.seed);
    if (!o.seed) return Usage("--seed: '" + f.seed + "' is not a 64-bit seed (0x... or decimal)");
  }
  if (!f.budget.empty()) {
    o.budget_seconds = runner::ParseDuration(f.budget);
    if (!o.budget_seconds) return Usage("--budget: malformed duration '" + f.budget + "'");
  }
  if (f.boards < 1 || f.boards > 64) return Usage("--boards must be 1 to 64");
  if (f.store_streams != "red" && f.store_streams != "all") {
    return Usage("--store-streams must be red or all, not '" + f.store_streams + "'");
  }
  if (!f.shard.empty()) {
    Result<runner::ShardSpec> shard = runner::ParseShard(f.shard);
    if (!shard.ok()) return Usage(shard.status().message());
    o.shard = *shard;
  }
  o.db_path = f.db_path;
  o.resume = f.resume;
  if (f.retry_infra && f.resume.empty()) return Usage("--retry-infra needs --resume CAMPAIGN");
  o.retry_infra = f.retry_infra;
  o.store_all_streams = f.store_streams == "all";
  o.artifacts_dir = f.artifacts;
  o.execute.image_dir = f.image_dir;
  o.execute.workload_dir = f.workload_dir;
  lab::RemoteBoardOptions child;
  child.board_path = f.board_path.empty() ? BoardPathNextToSelf() : f.board_path;
  Result<runner::BoardSource> source = BoardSourceOf(f.lab, child, f.boards);
  if (!source.ok()) return Usage(source.status().message());
  o.boards = *source;
  if (!f.lab.lab.empty()) {
    // One worker per inventory board (docs/lab.md); its controls run on them too.
    Result<lab::net::Inventory> inv = InventoryOf(f.lab);
    if (!inv.ok()) return Usage(inv.status().message());
    // Power-cycle a board once before quarantining it, when the inventory names its hub port
    // (docs/lab.md, "USB"): true = its serial came back, and the health check decides.
    o.health.before_quarantine = PowerCycleBeforeQuarantine(inv->boards);
  }
  if (Status st = CheckOutputPaths(f.db_path, f.report_dir); !st.ok()) return Usage(st.ToString());
  Result<LogLevel> log_level = ParseLogLevel(f.log_level, "--log-level");
  if (!log_level.ok()) return Usage(log_level.status().message());
  o.health.quarantine_after = f.quarantine_after;
  o.health.health_check_after_seconds = f.health_check_after;
  if (!f.report_dir.empty()) {
    // One log per soak beside its reports: <report-dir>/<campaign>-<id>.log.
    o.open_log = [dir = f.report_dir, level = *log_level](const std::string& name, int64_t id) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      return OpenLogFile(dir + "/" + name + "-" + std::to_string(id) + ".log", level);
    };
  }

  Progress progress(isatty(STDERR_FILENO) != 0, f.db_path, o.budget_seconds);
  int signal_number = 0;
  Result<runner::SoakSummary> s = [&] {
    SignalWatcher signals;
    o.stop_requests = signals.requests();
    auto r = runner::RunSoak(o, [&progress](const runner::SoakRunEvent& e) { progress(e); });
    signal_number = signals.first_signal();
    return r;
  }();
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\n");
  if (!s.ok()) return Usage(s.status().ToString());

  std::vector<std::string> report_files;
  std::string report_error;
  if (!f.report_dir.empty()) {
    auto written = WriteReports(f.db_path, s->campaign_id, f.report_dir, s->quarantined());
    if (written.ok()) report_files = *written;
    else report_error = written.status().ToString();
  }
  const runner::SoakCounts& c = s->campaign;
  std::vector<reports::ControlRow> controls;
  std::vector<reports::UntrustedBoard> untrusted;  // boards whose control failed
  if (auto db = db::Database::OpenReadOnly(f.db_path); db.ok()) {
    if (auto rows = (*db)->RunsOfCampaign(s->campaign_id); rows.ok()) {
      controls = reports::ControlRows(*rows);
      untrusted = reports::UntrustedBoards(controls, *rows, reports::BoardNames(**db));
    }
  }
  const bool unsound = s->unsound() || reports::Unsound(controls);
  if (f.json) {
    nlohmann::ordered_json cj = nlohmann::ordered_json::array();
    for (const reports::ControlRow& r : controls) {
      cj.push_back({{"control", r.name}, {"image", r.image}, {"round", r.round},
                    {"expect_red", r.expect_red}, {"observed_red", r.observed_red},
                    {"passed", r.passed}, {"reason", r.reason}, {"run_id", r.run_id},
                    {"board", r.board}});
      if (!r.shard.empty()) cj.back()["shard"] = r.shard;
    }
    nlohmann::ordered_json uj = nlohmann::ordered_json::array();
    for (const reports::UntrustedBoard& u : untrusted) {
      uj.push_back({{"board", u.board}, {"failed_controls", u.failed_controls},
                    {"controls", u.controls}, {"unproven_draws", u.unproven_draws}});
    }
    nlohmann::ordered_json j{
        {"campaign", s->campaign_name}, {"campaign_id", s->campaign_id},
        {"db", f.db_path}, {"shard", runner::ShardText(o.shard)}, {"reports", report_files},
        {"session", {{"runs", s->counts.done}, {"green", s->counts.green},
                     {"red", s->counts.red}, {"invalid", s->counts.invalid},
                     {"infra", s->counts.infra}, {"retried", s->counts.retried},
                     {"board_deaths", s->counts.deaths}, {"respawns", s->counts.respawns},
                     {"abandoned", s->abandoned},
                     {"skipped_done", s->skipped_done},
                     {"requeued_infra", s->requeued_infra}, {"deploys", s->deploys},
                     {"elapsed_seconds", s->elapsed_seconds}}},
        {"campaign_runs", {{"runs", c.done}, {"green", c.green}, {"red", c.red},
                           {"invalid", c.invalid}, {"infra", c.infra}}},
        {"controls", cj}, {"untrusted_boards", uj}, {"unsound", unsound},
        {"fatal", s->fatal}};
    nlohmann::ordered_json boards = nlohmann::ordered_json::array();
    for (size_t b = 0; b < s->boards.size(); ++b) {
      const runner::SoakCounts& bc = s->boards[b];
      boards.push_back({{"board", b}, {"runs", bc.done}, {"board_deaths", bc.deaths},
                        {"respawns", bc.respawns}, {"retried", bc.retried}});
    }
    for (size_t b = 0; b < boards.size() && b < s->health.size(); ++b) {
      const runner::BoardHealthReport& h = s->health[b];
      boards[b]["name"] = h.board;
      boards[b]["quarantined"] = h.quarantined;
      boards[b]["quarantines"] = h.quarantines;
      boards[b]["health_checks"] = h.health_checks;
      boards[b]["readmissions"] = h.readmissions;
      if (!h.reason.empty()) boards[b]["quarantine_reason"] = h.reason;
    }
    j["boards"] = boards;
    j["quarantined"] = s->quarantined();
    if (!f.report_dir.empty()) {
      j["log"] = f.report_dir + "/" + s->campaign_name + "-" + std::to_string(s->campaign_id) + ".log";
    }
    j["interrupted"] = s->interrupted;
    if (s->interrupted) j["resume"] = ResumeCommand(f, s->campaign_id);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", reports::FormatControlTable(controls).c_str());
    std::printf("%s", reports::FormatUntrusted(untrusted).c_str());
    std::printf("soak %s (campaign id %lld): %llu runs this session in %s (%llu already done), "
                "%llu image deploys on %u boards\n",
                s->campaign_name.c_str(), static_cast<long long>(s->campaign_id),
                static_cast<unsigned long long>(s->counts.done),
                Duration(s->elapsed_seconds).c_str(),
                static_cast<unsigned long long>(s->skipped_done),
                static_cast<unsigned long long>(s->deploys), o.boards.size());
    if (f.retry_infra) {
      std::printf("retry-infra: %llu infra runs run again in place\n",
                  static_cast<unsigned long long>(s->requeued_infra));
    }
    std::printf("campaign: %llu runs: %llu green, %llu red, %llu invalid, %llu infra\n",
                static_cast<unsigned long long>(c.done), static_cast<unsigned long long>(c.green),
                static_cast<unsigned long long>(c.red),
                static_cast<unsigned long long>(c.invalid),
                static_cast<unsigned long long>(c.infra));
    std::printf("boards:   %llu board deaths (died or hung), %llu respawns, %llu runs retried",
                static_cast<unsigned long long>(s->counts.deaths),
                static_cast<unsigned long long>(s->counts.respawns),
                static_cast<unsigned long long>(s->counts.retried));
    for (size_t b = 0; b < s->boards.size(); ++b) {
      const runner::SoakCounts& bc = s->boards[b];
      if (bc.deaths == 0 && bc.respawns == 0) continue;
      std::printf("; board %zu: %llu deaths, %llu respawns", b,
                  static_cast<unsigned long long>(bc.deaths),
                  static_cast<unsigned long long>(bc.respawns));
    }
    std::printf("\n");
    for (const std::string& q : s->quarantined()) std::printf("quarantined: %s\n", q.c_str());
    std::printf("database: %s\n", f.db_path.c_str());
    for (const std::string& r : report_files) std::printf("report:   %s\n", r.c_str());
    if (!f.report_dir.empty() && s->log_error.empty()) {
      std::printf("log:      %s/%s-%lld.log\n", f.report_dir.c_str(), s->campaign_name.c_str(),
                  static_cast<long long>(s->campaign_id));
    }
  }
  if (!s->log_error.empty()) std::fprintf(stderr, "ctte-lab soak: log: %s\n", s->log_error.c_str());
  if (!s->fatal.empty()) std::fprintf(stderr, "ctte-lab soak: stopped early: %s\n", s->fatal.c_str());
  if (!report_error.empty()) std::fprintf(stderr, "ctte-lab soak: reports: %s\n", report_error.c_str());
  if (s->interrupted) {
    std::fprintf(stderr,
                 "ctte-lab soak: interrupted by %s after %llu runs this session (%llu abandoned); "
                 "continue with:\n  %s\n",
                 signal_number == SIGTERM ? "SIGTERM" : "SIGINT",
                 static_cast<unsigned long long>(s->counts.done),
                 static_cast<unsigned long long>(s->abandoned),
                 ResumeCommand(f, s->campaign_id).c_str());
    return 128 + (signal_number ? signal_number : SIGINT);
  }
  if (!s->fatal.empty()) return kExitUsage;
  const int code = CampaignExitCode(unsound, c.green, c.red, c.invalid, c.infra);
  if (code == kExitOk && !report_error.empty()) return kExitUsage;
  return code;
}

}  // namespace

Command SoakCommand() {
  return Command{
    "soak", "Run a campaign on N simulated boards in parallel, store every run, write reports",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<SoakFlags>();
      sub.add_option("spec", f->spec, "campaign spec (JSON)")->required();
      sub.add_option("--runs", f->runs, "number of runs, 1..10^9 (overrides the spec)")
          ->check(UnsignedIn(1, runner::kMaxRuns));
      sub.add_option("--budget", f->budget,
                     "time budget, e.g. 2h, 30m, at most 30 days (overrides the spec)")
          ->check(DurationFlag());
      sub.add_option("--boards", f->boards, "simulated boards in parallel, 1..64 (default 1)")
          ->check(UnsignedIn(1, 64));
      sub.add_option("--db", f->db_path, "database file (default out/ctte.db)");
      sub.add_option("--report-dir", f->report_dir,
                     "write HTML, JUnit and CSV reports here (default out/reports; '' = none)");
      sub.add_option("--resume", f->resume, "continue this campaign: an id (digits), a name, or name:NAME");
      sub.add_flag("--retry-infra", f->retry_infra,
                   "with --resume: run the campaign's infra runs again in place (same index, "
                   "seed and config; the failed attempt stays in the run's history)");
      sub.add_option("--seed", f->seed,
                     "campaign seed, overriding the spec's (e.g. one per night: each seed is its "
                     "own campaign in the database; give the same --seed to --resume it)")
          ->check(SeedFlag());
      sub.add_option("--store-streams", f->store_streams,
                     "keep stream bytes for red and invalid runs (red, default) or all runs");
      sub.add_option("--shard", f->shard,
                     "run only shard I of N (1-based, e.g. $CI_NODE_INDEX/$CI_NODE_TOTAL): "
                     "index pairs (2k, 2k+1) with k mod N = I-1; merge with `ctte-lab db merge`");
      sub.add_option("--image-dir", f->image_dir, "image manifests");
      sub.add_option("--workload-dir", f->workload_dir, "workload ELFs");
      sub.add_option("--artifacts", f->artifacts,
                     "keep every image and ELF the campaign used here, by SHA-256 (default "
                     "<db>.artifacts; \"none\": keep nothing)");
      sub.add_option("--board", f->board_path, "the ctte-board executable (default: next to this)");
      AddLabFlags(&sub, &f->lab, "one worker per board; controls and draws run on them all");
      sub.add_option("--log-level", f->log_level,
                     "soak log level: debug, info (default), warn, error; the log is "
                     "<report-dir>/<campaign>-<id>.log")
          ->check(CLI::IsMember({"debug", "info", "warn", "error"}));
      sub.add_option("--quarantine-after", f->quarantine_after,
                     "quarantine a board after K infra failures in a row, 0..1000 (default 3; "
                     "0 = never)")
          ->check(UnsignedIn(0, 1000));
      sub.add_option("--health-check-after", f->health_check_after,
                     "seconds after a quarantine (and between tries) to health-check the board, "
                     "0.01..86400 (default 30)")
          ->check(CLI::Range(0.01, 86400.0));
      sub.add_flag("--json", f->json, "print the summary as JSON");
      return [f, &sub] {
        for (const char* name : {"--runs", "--budget", "--boards", "--db", "--report-dir",
                                 "--seed", "--store-streams", "--image-dir", "--workload-dir",
                                 "--board", "--lab", "--board-name", "--log-level", "--quarantine-after",
                                 "--health-check-after", "--artifacts"}) {
          const CLI::Option* opt = sub.get_option(name);
          if (opt->count() > 0 && !opt->results().empty()) {
            f->given.push_back(name);
            f->given.push_back(opt->results().back());
          }
        }
        return RunSoakCommand(*f);
      };
    }};
}

}  // namespace ctte::cli
