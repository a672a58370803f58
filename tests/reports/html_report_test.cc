// The HTML report, checked as text and in a real headless browser (Debian's chromium): the page
// loads, its script runs without an error, and the DOM holds every plot and the red-run table.
#include "reports/html_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/reports/report_fixture.h"

namespace ctte::reports {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string FindChromium() {
  if (const char* env = std::getenv("CTTE_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::filesystem::path p = std::filesystem::path(dir) / name;
      if (std::filesystem::exists(p)) return p.string();
    }
  }
  return "";
}

struct BrowserResult {
  int exit_code = -1;
  std::string dom;
  std::string console_errors;  ///< "Uncaught ..." lines from the page's console
};

// Loads `html` from a file in a fresh profile and dumps the DOM after the load event.
BrowserResult LoadInBrowser(const std::string& chromium, const std::string& html) {
  std::string templ = ::testing::TempDir() + "ctte_reports_browser_XXXXXX";
  const char* made = mkdtemp(templ.data());
  EXPECT_NE(made, nullptr) << "mkdtemp " << templ;
  const std::string dir = templ;
  const std::string page = dir + "/report.html";
  std::ofstream(page, std::ios::binary) << html;
  const std::string cmd =
      "timeout 120 '" + chromium +
      "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --enable-logging=stderr --v=0 --user-data-dir='" + dir + "/profile' --dump-dom 'file://" +
      page + "' > '" + dir + "/dom.html' 2> '" + dir + "/stderr.txt'";
  BrowserResult r;
  const int rc = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.dom = Slurp(dir + "/dom.html");
  std::stringstream err(Slurp(dir + "/stderr.txt"));
  for (std::string line; std::getline(err, line);) {
    if (line.find("CONSOLE") != std::string::npos &&
        (line.find("Uncaught") != std::string::npos || line.find("Error") != std::string::npos)) {
      r.console_errors += line + "\n";
    }
  }
  std::error_code ec;  // the profile may still be in use by an exiting helper process
  std::filesystem::remove_all(dir, ec);
  return r;
}

TEST(HtmlReportTest, VerdictByFactorCountsFailedOverJudgedRuns) {
  const std::string html = RenderHtml(testing::FixtureModel());
  // saturating: runs 1 and 5; loss_accounting failed in run 1 only, both judged.
  const size_t table = html.find("id=\"vbf-overflow_regime\"");
  ASSERT_NE(table, std::string::npos);
  const size_t row = html.find("<tr><td>saturating</td>", table);
  ASSERT_NE(row, std::string::npos);
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(cells.find("<td class=\"cell-green\">0 / 2</td><td class=\"cell-red\">1 / 2</td>"),
            std::string::npos)
      << cells;
}

// Each verdict link names an existing file (absolute, so it resolves from out/reports/ or
// anywhere else) and an anchor that is a heading of that file.
TEST(HtmlReportTest, VerdictLinksResolveToHeadingsOfTheVerdictsDoc) {
  const std::string html = RenderHtml(testing::FixtureModel());
  const std::string prefix = "<a href=\"file://";
  size_t links = 0;
  for (size_t p = html.find(prefix); p != std::string::npos; p = html.find(prefix, p + 1)) {
    const size_t begin = p + prefix.size();
    const std::string href = html.substr(begin, html.find('"', begin) - begin);
    const size_t hash = href.find('#');
    ASSERT_NE(hash, std::string::npos) << href;
    const std::string file = href.substr(0, hash);
    ASSERT_TRUE(std::filesystem::path(file).is_absolute()) << href;
    std::ifstream in(file);
    ASSERT_TRUE(in) << "verdict link to a missing file: " << href;
    std::stringstream doc;
    doc << in.rdbuf();
    EXPECT_NE(doc.str().find("\n## " + href.substr(hash + 1) + "\n"), std::string::npos) << href;
    ++links;
  }
  EXPECT_EQ(links, testing::EightVerdicts().size());
  EXPECT_EQ(html.find("href=\"docs/"), std::string::npos);
}

TEST(ReportModelUrlTest, DocsUrlIsAbsoluteAndPercentEncoded) {
  EXPECT_EQ(VerdictsDocUrl("/home/lab/ctte lab/docs"),
            "file:///home/lab/ctte%20lab/docs/verdicts.md");
}

TEST(HtmlReportTest, PageIsSelfContained) {
  const std::string html = RenderHtml(testing::FixtureModel());
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(testing::CountOf(html, "<svg "), 4u + 3u);  // one per factor, then three metric plots
}

TEST(HtmlReportTest, InfrastructureSectionListsBoardsTotalsAndRetriedRuns) {
  const std::string h = RenderHtml(testing::FixtureModel());
  EXPECT_NE(h.find("<section id=\"infrastructure\">"), std::string::npos);
  EXPECT_EQ(testing::CountOf(h, "<tr class=\"infra-board\">"), 2u);
  EXPECT_NE(h.find("<tr class=\"infra-total\"><td>total</td><td></td><td></td><td>6</td><td>3"
                   "</td><td>2</td><td>3</td><td>2</td></tr>"),
            std::string::npos);
  EXPECT_EQ(testing::CountOf(h, "<tr class=\"retried-run\">"), 2u);
}

TEST(HtmlReportTest, RedRunTableHasReplayCommandsAndEscapedEvidence) {
  const std::string html = RenderHtml(testing::FixtureModel());
  EXPECT_EQ(testing::CountOf(html, "<tr class=\"red-run\">"), 2u);
  EXPECT_NE(html.find("<code>ctte-lab replay 2 --db out/ctte.db</code>"), std::string::npos);
  EXPECT_NE(html.find("&lt;main+0x44&gt; &amp;"), std::string::npos);
}

TEST(HtmlReportTest, HeadlessChromiumRendersPlotsAndRedRunsWithoutScriptErrors) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it; or set CTTE_CHROMIUM)";
  }
  BrowserResult r = LoadInBrowser(chromium, RenderHtml(testing::FixtureModel()));
  ASSERT_EQ(r.exit_code, 0) << r.dom;
  EXPECT_EQ(r.console_errors, "");
  EXPECT_NE(r.dom.find("data-ready=\"yes\""), std::string::npos) << "the page script did not run";
  for (const char* id : {"plot-factor-overflow_regime", "plot-factor-backpressure",
                         "plot-factor-mode", "plot-factor-workload", "plot-bpi", "plot-loss",
                         "plot-recovery"}) {
    EXPECT_NE(r.dom.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_EQ(testing::CountOf(r.dom, "class=\"red-run\""), 2u);
  EXPECT_NE(r.dom.find("id=\"vbf-workload\""), std::string::npos);
  // Loss coverage sums the lossy runs' loss_coverage (the fixture stores one per lossy run).
  EXPECT_NE(r.dom.find("id=\"loss-coverage-table\""), std::string::npos);
  // Section IX figures per workload, from the runs that store them (the fixture's green ones).
  EXPECT_GE(testing::CountOf(r.dom, "class=\"bits-row\""), 1u);
  EXPECT_NE(r.dom.find("ctte-lab replay 6 --db out/ctte.db"), std::string::npos);
  // Marks inside the plots: dots for 4 judged runs with bits/insn, 2 loss points, 1 of each bin.
  EXPECT_GE(testing::CountOf(r.dom, "class=\"dot "), 4u + 4u);
  EXPECT_GE(testing::CountOf(r.dom, "class=\"bar hist\""), 1u);
}

// The browser check itself must be able to fail: a page whose script throws is reported.
TEST(HtmlReportTest, ScriptErrorIsReported_bad) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed";
  BrowserResult r = LoadInBrowser(
      chromium, "<!DOCTYPE html><html><body><script>notDefinedAnywhere();</script></body></html>");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.console_errors.find("Uncaught ReferenceError"), std::string::npos)
      << "a throwing script went unnoticed";
  EXPECT_EQ(r.dom.find("data-ready"), std::string::npos);
}

}  // namespace
}  // namespace ctte::reports

// ---- Triage sections (docs/triage.md, "Report") ----------------------------------------

#include <algorithm>

#include "reports/triage_html.h"

namespace ctte::reports {
namespace {

db::NightRow Night(int64_t id, uint64_t seed, uint64_t di_fail, uint64_t la_fail) {
  db::NightRow n;
  n.campaign.id = id;
  n.campaign.name = "fixture";
  n.campaign.seed = seed;
  n.campaign.created_at = "2026-11-0" + std::to_string(id) + "T02:00:00Z";
  n.campaign.green = 10 - std::max(di_fail, la_fail);
  n.campaign.red = std::max(di_fail, la_fail);
  n.verdicts["decode_integrity"] = {10 - di_fail, di_fail};
  n.verdicts["loss_accounting"] = {10 - la_fail, la_fail};
  n.verdicts["liveness"] = {10, 0};
  return n;
}

// The fixture with a bisection of its first red run and four nights: decode_integrity green,
// green, red, red (first red night 3, last green night 2); loss_accounting red only in night 1.
ReportModel TriageModel() {
  ReportModel m = testing::FixtureModel();
  const int64_t run = m.RedRuns().front()->id;
  db::BisectionRecord b;
  b.id = 7;
  b.run_id = run;
  b.kind = "bisect";
  b.created_at = "2026-11-05T08:00:00Z";
  b.repeats = 4;
  b.verdict = "culprit";
  b.culprits = "mode,sync";
  b.summary = "culprit: mode, sync (reverting it turns the run green)";
  b.minimal_command = "ctte-lab run --config out/triage/run-2-minimal.json";
  const char* kinds[] = {"original", "single", "single", "single", "minimize"};
  const char* factors[] = {"", "backpressure", "mode", "sync", "backpressure"};
  const char* verdicts[] = {"reference", "innocent", "culprit", "culprit", "innocent"};
  for (uint32_t i = 0; i < 5; ++i) {
    db::BisectionLegRecord l;
    l.ordinal = i;
    l.kind = kinds[i];
    l.factors = factors[i];
    l.verdict = verdicts[i];
    l.red = l.verdict == std::string("culprit") ? 0 : 4;
    l.judged = 4;
    l.lo = l.red ? 0.51 : 0.0;
    l.hi = l.red ? 1.0 : 0.49;
    b.legs.push_back(l);
  }
  m.bisections.push_back(b);
  db::PairRate p;
  p.factor_a = "mode";
  p.value_a = "btm";
  p.factor_b = "sync";
  p.value_b = "halfwords:6";
  p.runs = 5;
  p.red = 5;
  p.rate = 1.0;
  p.rate_a = 0.4;
  p.rate_b = 0.5;
  p.excess = 0.5;
  m.pairs = {p};
  m.nights = {Night(1, 0x11, 0, 3), Night(2, 0x12, 0, 0), Night(3, 0x13, 2, 0), Night(4, 0x14, 5, 0)};
  return m;
}

TEST(TriageHtmlTest, RedStreakNamesFirstRedAndLastGreenNight) {
  const ReportModel m = TriageModel();
  const StreakBounds di = RedStreak(m.nights, "decode_integrity");
  EXPECT_EQ(di.first_red, 2);
  EXPECT_EQ(di.last_green, 1);
  const StreakBounds la = RedStreak(m.nights, "loss_accounting");  // green now
  EXPECT_EQ(la.first_red, -1);
  EXPECT_EQ(RedStreak(m.nights, "liveness").first_red, -1);
}

TEST(TriageHtmlTest, TriageAndTrendSectionsInText) {
  const std::string h = RenderHtml(TriageModel());
  EXPECT_NE(h.find("<section id=\"triage\">"), std::string::npos);
  EXPECT_EQ(testing::CountOf(h, "<tr class=\"leg "), 5u);
  EXPECT_EQ(testing::CountOf(h, "<tr class=\"leg leg-culprit\">"), 2u);
  EXPECT_NE(h.find("<code class=\"minimal\">ctte-lab run --config out/triage/run-2-minimal.json"),
            std::string::npos);
  EXPECT_EQ(testing::CountOf(h, "class=\"not-bisected\""), 1u);  // the other red run
  EXPECT_NE(h.find("<section id=\"trend\">"), std::string::npos);
  EXPECT_EQ(testing::CountOf(h, "<tr class=\"pair\">"), 1u);
  // Two verdicts failed in some night: two lines; liveness never failed: no line.
  EXPECT_EQ(testing::CountOf(h, "class=\"trend-line\""), 2u);
  EXPECT_EQ(h.find("data-verdict=\"liveness\""), std::string::npos);
  const size_t row = h.find("<tr class=\"trend-verdict\"><td>decode_integrity</td>");
  ASSERT_NE(row, std::string::npos);
  const std::string cells = h.substr(row, h.find("</tr>", row) - row);
  EXPECT_NE(cells.find("<td class=\"first-red\">campaign 3 "), std::string::npos) << cells;
  EXPECT_NE(cells.find("<td class=\"last-green\">campaign 2 "), std::string::npos) << cells;
}

// The fixture alone (one night, no bisection) has no trend plot: the other report tests'
// counts of plots stay as they were.
TEST(TriageHtmlTest, OneNightHasNoTrend) {
  const std::string h = RenderHtml(testing::FixtureModel());
  EXPECT_EQ(h.find("id=\"trend\""), std::string::npos);
  EXPECT_EQ(h.find("id=\"plot-trend\""), std::string::npos);
}

TEST(TriageHtmlTest, HeadlessChromiumRendersTriageAndTrend) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it; or set CTTE_CHROMIUM)";
  }
  BrowserResult r = LoadInBrowser(chromium, RenderHtml(TriageModel()));
  ASSERT_EQ(r.exit_code, 0) << r.dom;
  EXPECT_EQ(r.console_errors, "");
  EXPECT_NE(r.dom.find("data-ready=\"yes\""), std::string::npos);
  for (const char* id : {"id=\"triage\"", "id=\"bisection-7\"", "id=\"pairs-table\"",
                         "id=\"trend\"", "id=\"plot-trend\"", "id=\"trend-table\""}) {
    EXPECT_NE(r.dom.find(id), std::string::npos) << id;
  }
  EXPECT_EQ(testing::CountOf(r.dom, "class=\"leg leg-"), 5u);
  EXPECT_EQ(testing::CountOf(r.dom, "class=\"trend-line\""), 2u);
  EXPECT_EQ(testing::CountOf(r.dom, "class=\"dot trend\""), 2u * 4u);
  EXPECT_NE(r.dom.find("ctte-lab run --config out/triage/run-2-minimal.json"), std::string::npos);
}

}  // namespace
}  // namespace ctte::reports
