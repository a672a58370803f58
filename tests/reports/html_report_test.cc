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
