// `ctte-lab report CAMPAIGN`: one result model (reports/report_model.h) rendered as HTML, JUnit
// XML and CSV. CAMPAIGN is a campaign id or name (db::Database::CampaignByIdOrName).
// Without any of --html/--junit/--csv it writes all three to
// out/reports/<name>-<id>.{html,junit.xml,csv} (the names `soak --report-dir` uses).
// With --check it writes only what is named and exits with the campaign's code (README "Exit
// codes"): what a CI gate reads, with no SQL.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "base/output.h"
#include "db/database.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/report_model.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

struct ReportFlags {
  std::string campaign;
  std::string db_path = "out/ctte.db";
  std::string html, junit, csv;
  bool check = false;
};



int ReportFail(const Status& s, const char* flag = nullptr) {
  std::fprintf(stderr, "ctte-lab report: %s%s%s%s\n", flag ? "--" : "", flag ? flag : "",
               flag ? ": " : "", s.ToString().c_str());
  return kExitUsage;
}

int RunReport(ReportFlags f) {
  if (f.campaign.empty()) return ReportFail(Status::InvalidArgument("campaign: give an id or a name"));
  // Read-only: a report works on a read-only database or folder and never migrates the file.
  auto db = db::Database::OpenReadOnly(f.db_path);
  if (!db.ok()) return ReportFail(db.status());
  reports::ReportOptions options;
  options.db_path = f.db_path;
  Result<reports::ReportModel> model = reports::BuildReportModel(**db, f.campaign, options);
  if (!model.ok()) return ReportFail(model.status());
  // Explicit paths need their folder to exist (base/output.h); the default out/reports/ is
  // created, as `soak` does.
  OutputOptions out_options;
  if (f.html.empty() && f.junit.empty() && f.csv.empty() && !f.check) {
    out_options.create_parents = true;
    const std::string base =
        "out/reports/" + model->campaign.name + "-" + std::to_string(model->campaign.id);
    f.html = base + ".html";
    f.junit = base + ".junit.xml";
    f.csv = base + ".csv";
  }
  const struct {
    const std::string& path;
    std::string (*render)(const reports::ReportModel&);
    const char* what;
  } outputs[] = {{f.html, reports::RenderHtml, "html"},
                 {f.junit, reports::RenderJUnit, "junit"},
                 {f.csv, reports::RenderCsv, "csv"}};
  for (const auto& o : outputs) {  // refuse a bad path before writing any of them
    if (o.path.empty()) continue;
    if (Status s = CheckOutputPath(o.path, out_options); !s.ok()) {
      return ReportFail(s, o.what);
    }
  }
  for (const auto& o : outputs) {
    if (o.path.empty()) continue;
    if (Status s = WriteOutputFile(o.path, o.render(*model), out_options); !s.ok()) {
      return ReportFail(s, o.what);
    }
    std::printf("%-6s %s\n", o.what, o.path.c_str());
  }
  std::printf("campaign %s (id %lld): %zu runs, %llu green, %llu red, %llu invalid, %llu infra\n",
              model->campaign.name.c_str(), static_cast<long long>(model->campaign.id),
              model->runs.size(),
              static_cast<unsigned long long>(model->Count(db::RunStatus::kGreen)),
              static_cast<unsigned long long>(model->Count(db::RunStatus::kRed)),
              static_cast<unsigned long long>(model->Count(db::RunStatus::kInvalid)),
              static_cast<unsigned long long>(model->Count(db::RunStatus::kInfra)));
  if (!f.check) return kExitOk;
  const int code = CampaignExitCode(
      model->unsound, model->Count(db::RunStatus::kGreen), model->Count(db::RunStatus::kRed),
      model->Count(db::RunStatus::kInvalid), model->Count(db::RunStatus::kInfra));
  static const char* const kWhat[] = {"green", "red", "infrastructure (or no draw judged)",
                                      "invalid", "UNSOUND (a control failed)"};
  std::printf("check: %s (exit %d)\n", kWhat[code], code);
  return code;
}

}  // namespace

Command ReportCommand() {
  return Command{
    "report", "Render a campaign's results as HTML (with plots), JUnit XML and CSV",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<ReportFlags>();
      sub.add_option("campaign", f->campaign, "campaign: an id (digits), a name (the newest row), or name:NAME")->required();
      sub.add_option("--db", f->db_path, "database file (default out/ctte.db)");
      sub.add_option("--html", f->html, "write the HTML page here");
      sub.add_option("--junit", f->junit, "write JUnit XML here");
      sub.add_option("--csv", f->csv, "write CSV here");
      sub.add_flag("--check", f->check,
                   "exit with the campaign's code, as soak does: 4 UNSOUND (a control failed), "
                   "else 1 a red draw, else 2 infrastructure (or no draw judged), else 3 an "
                   "invalid draw, else 0; writes only the reports named");
      return [f] { return RunReport(*f); };
    }};
}

}  // namespace ctte::cli
