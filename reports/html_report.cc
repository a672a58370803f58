#include "reports/html_report.h"
#include "reports/triage_html.h"

#include <algorithm>
#include <map>

#include "reports/svg_plot.h"
#include "reports/text_format.h"

namespace ctte::reports {
namespace {

const char* kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px} th,td{padding:3px 8px;border-bottom:1px solid #eee;
text-align:left;vertical-align:top} th{background:#f4f4f4;cursor:pointer}
code{font:12px ui-monospace,monospace;background:#f6f6f6;padding:1px 3px}
.status{font-weight:600} .s-green{color:#1a7f37} .s-red{color:#c62828} .s-invalid{color:#b26a00}
.s-infra{color:#6a1b9a} .s-planned{color:#777}
.counts span{margin-right:16px}
.plots{display:flex;flex-wrap:wrap;gap:12px}
svg.plot{background:#fff;border:1px solid #e4e4e4}
svg .plot-title{font-size:13px;font-weight:600} svg .tick{font-size:11px;fill:#444}
svg .axis-label{font-size:12px;fill:#333} svg .nodata{font-size:14px;fill:#999}
svg .grid{stroke:#eee} svg .axis{stroke:#888} svg .mean{stroke:#000;stroke-width:2}
svg .green{fill:#2e7d32} svg .red{fill:#c62828} svg .invalid{fill:#ef9a00}
svg .infra{fill:#7b1fa2} svg .planned{fill:#bbb} svg .hist{fill:#1565c0}
svg .dot{fill-opacity:.75}
.vbf{margin:0 0 12px} .cell-red{background:#fde0e0;color:#c62828;font-weight:600}
.cell-green{color:#1a7f37} .cell-na{color:#999}
.evidence{white-space:pre-wrap;font:12px ui-monospace,monospace;max-width:640px}
)css";

// Sorts the run table by a clicked column (numbers numerically), then marks the page ready.
const char* kScript = R"js(
(function () {
  var table = document.getElementById('runs-table');
  if (table) {
    var heads = table.querySelectorAll('th');
    heads.forEach(function (th, col) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var asc = th.getAttribute('data-dir') !== 'asc';
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        th.setAttribute('data-dir', asc ? 'asc' : 'desc');
      });
    });
  }
  document.documentElement.setAttribute('data-ready', 'yes');
})();
)js";

std::string E(const std::string& s) { return XmlEscape(s); }

const char* StatusClass(db::RunStatus s) {
  switch (s) {
    case db::RunStatus::kGreen: return "green";
    case db::RunStatus::kRed: return "red";
    case db::RunStatus::kInvalid: return "invalid";
    case db::RunStatus::kInfra: return "infra";
    case db::RunStatus::kPlanned: return "planned";
  }
  return "planned";
}

std::string StatusCell(db::RunStatus s) {
  return std::string("<td class=\"status s-") + StatusClass(s) + "\">" + db::RunStatusName(s) +
         "</td>";
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string Plots(const ReportModel& m) {
  std::string h = "<section id=\"plots\"><h2>Plots</h2><div class=\"plots\">\n";
  const std::vector<Series> series = {
      {"green", "green"}, {"red", "red"}, {"invalid", "invalid"}, {"infra", "infra"}};
  for (const std::string& factor : m.factors) {
    std::vector<BarRow> rows;
    for (const FactorValueCounts& fc : m.factor_counts) {
      if (fc.factor != factor) continue;
      rows.push_back({fc.value, {fc.green, fc.red, fc.invalid, fc.infra}});
    }
    h += StackedBars("plot-factor-" + factor, "Run status by " + factor, series, rows) + "\n";
  }

  std::vector<StripColumn> bpi;
  std::map<std::string, size_t> column_of;
  std::vector<Point> loss;
  std::vector<uint64_t> recovery;  // log2 buckets of recovery bytes, over every run
  for (const ReportRun& r : m.runs) {
    const std::string who = "run " + std::to_string(r.index) + " (id " + std::to_string(r.id) +
                            ", " + db::RunStatusName(r.status) + ")";
    if (r.wire_bits_per_instruction && r.status != db::RunStatus::kInfra) {
      const std::string wl = r.AxisValue("workload").empty() ? "?" : r.AxisValue("workload");
      auto [it, added] = column_of.emplace(wl, bpi.size());
      if (added) bpi.push_back({wl, {}});
      bpi[it->second].points.push_back({0, *r.wire_bits_per_instruction, StatusClass(r.status),
                                        who + ": " + Fixed(*r.wire_bits_per_instruction, 3) +
                                            " bits per instruction"});
    }
    if (r.loss_fraction && r.sink_capacity) {
      loss.push_back({*r.sink_capacity, *r.loss_fraction, StatusClass(r.status),
                      who + ": sink capacity " + Fixed(*r.sink_capacity, 3) +
                          " B/fabric cycle, loss " + Fixed(*r.loss_fraction * 100, 2) + "%"});
    }
    if (recovery.size() < r.recovery_bytes_log2.size()) recovery.resize(r.recovery_bytes_log2.size());
    for (size_t k = 0; k < r.recovery_bytes_log2.size(); ++k) recovery[k] += r.recovery_bytes_log2[k];
  }
  h += StripPlot("plot-bpi", "Bits per instruction by workload (wire bits, 8 per byte)",
                 "bits per instruction", bpi) + "\n";
  h += ScatterPlot("plot-loss", "Loss fraction against sink capacity",
                   "sink capacity (bytes per fabric cycle)", "lost / traced instructions", loss) +
       "\n";
  h += Log2Histogram("plot-recovery", "Recovery distance (Error to anchor), log2 buckets",
                     "bytes (bucket lower bound)", recovery) +
       "\n";
  return h + "</div></section>\n";
}

std::string VerdictTable(const ReportModel& m) {
  std::string h = "<section id=\"verdicts\"><h2>Outcomes per verdict</h2><table>"
                  "<thead><tr><th>verdict</th><th>pass</th><th>fail</th><th>n/a</th></tr>"
                  "</thead><tbody>\n";
  for (const VerdictTotals& t : m.verdict_totals) {
    h += "<tr><td><a href=\"" + E(m.verdicts_doc_url) + "#" + E(t.verdict) + "\">" + E(t.verdict) +
         "</a></td><td>" + std::to_string(t.pass) + "</td><td>" + std::to_string(t.fail) +
         "</td><td>" + std::to_string(t.not_applicable) + "</td></tr>\n";
  }
  if (m.verdict_totals.empty()) h += "<tr><td colspan=\"4\">no judged runs</td></tr>\n";
  return h + "</tbody></table></section>\n";
}

// One table per factor: a row per value, a column per verdict, cells "fail / judged".
std::string VerdictByFactor(const ReportModel& m) {
  std::string h = "<section id=\"verdict-by-factor\"><h2>Verdict outcome by factor value</h2>"
                  "<p>Each cell: runs where the verdict failed / runs where it was judged "
                  "(pass or fail); n/a outcomes are not counted.</p>\n";
  for (const std::string& factor : m.factors) {
    h += "<table class=\"vbf\" id=\"vbf-" + E(factor) + "\"><thead><tr><th>" + E(factor) +
         "</th>";
    for (const VerdictTotals& t : m.verdict_totals) h += "<th>" + E(t.verdict) + "</th>";
    h += "</tr></thead><tbody>\n";
    std::string row_value;
    bool open = false;
    for (const FactorVerdictCounts& c : m.factor_verdicts) {
      if (c.factor != factor) continue;
      if (!open || c.value != row_value) {
        if (open) h += "</tr>\n";
        h += "<tr><td>" + E(c.value) + "</td>";
        row_value = c.value;
        open = true;
      }
      const uint64_t judged = c.pass + c.fail;
      h += std::string("<td class=\"") + (c.fail ? "cell-red" : judged ? "cell-green" : "cell-na") +
           "\">" + (judged ? std::to_string(c.fail) + " / " + std::to_string(judged) : "n/a") +
           "</td>";
    }
    if (open) h += "</tr>\n";
    h += "</tbody></table>\n";
  }
  return h + "</section>\n";
}

std::string RedTable(const ReportModel& m) {
  std::string h = "<section id=\"red-runs\"><h2>Red runs</h2><table id=\"red-table\">"
                  "<thead><tr><th>run</th><th>index</th><th>seed</th><th>red verdicts</th>"
                  "<th>evidence</th><th>replay</th></tr></thead><tbody>\n";
  for (const ReportRun* r : m.RedRuns()) {
    std::string names, evidence;
    for (const ReportVerdict& v : r->verdicts) {
      if (v.outcome != db::Outcome::kFail) continue;
      names += (names.empty() ? "" : ", ") + v.verdict;
      evidence += v.verdict + ": " + FirstLine(v.evidence) + "\n";
    }
    if (evidence.empty()) evidence = r->reason;
    h += "<tr class=\"red-run\"><td>" + std::to_string(r->id) + "</td><td>" +
         std::to_string(r->index) + "</td><td><code>" + Hex64(r->seed) + "</code></td><td>" +
         E(names) + "</td><td class=\"evidence\">" + E(evidence) + "</td><td><code>" +
         E(r->replay_command) + "</code></td></tr>\n";
  }
  if (m.RedRuns().empty()) h += "<tr><td colspan=\"6\">no red runs</td></tr>\n";
  return h + "</tbody></table></section>\n";
}

std::string NotJudgedTable(const ReportModel& m) {
  std::string h = "<section id=\"not-judged\"><h2>Invalid and infra runs</h2><table>"
                  "<thead><tr><th>run</th><th>index</th><th>seed</th><th>status</th>"
                  "<th>reason</th></tr></thead><tbody>\n";
  size_t n = 0;
  for (const ReportRun& r : m.runs) {
    if (r.status != db::RunStatus::kInvalid && r.status != db::RunStatus::kInfra) continue;
    ++n;
    h += "<tr><td>" + std::to_string(r.id) + "</td><td>" + std::to_string(r.index) +
         "</td><td><code>" + Hex64(r.seed) + "</code></td>" + StatusCell(r.status) +
         "<td class=\"evidence\">" + E(r.reason) + "</td></tr>\n";
  }
  if (n == 0) h += "<tr><td colspan=\"5\">none</td></tr>\n";
  return h + "</tbody></table></section>\n";
}

// The paper's Section IX figures per workload, over the judged runs that have them: the
// capture's wire bits per instruction against the reference encoder's on the same beats, the
// message rate, and the offered output rate's worst peak against its mean.
std::string BitsSection(const ReportModel& m) {
  struct Acc {
    uint64_t runs = 0;
    double wire = 0, ref = 0, msgs = 0, peak = 0;
  };
  std::vector<std::pair<std::string, Acc>> rows;
  for (const ReportRun& r : m.runs) {
    if (!r.judged || !r.wire_bits_per_instruction || !r.reference_wire_bits_per_instruction ||
        !r.messages_per_kilo_instruction || !r.output_peak_to_mean) {
      continue;
    }
    const std::string wl = r.AxisValue("workload").empty() ? "?" : r.AxisValue("workload");
    auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& p) { return p.first == wl; });
    if (it == rows.end()) it = rows.insert(rows.end(), {wl, Acc{}});
    Acc& a = it->second;
    ++a.runs;
    a.wire += *r.wire_bits_per_instruction;
    a.ref += *r.reference_wire_bits_per_instruction;
    a.msgs += *r.messages_per_kilo_instruction;
    a.peak = std::max(a.peak, *r.output_peak_to_mean);
  }
  std::string h = "<section id=\"bits\"><h2>Bits per instruction against the reference "
                  "encoder</h2><p>Per workload, mean over its judged runs: the capture's wire "
                  "bits per instruction, the reference encoder's on the same beats with the same "
                  "features, their ratio (above 1: loss and recovery cost bits), messages per "
                  "1000 instructions, and the largest peak-to-mean offered output rate "
                  "(1024-instruction windows).</p><table id=\"bits-table\"><thead><tr>"
                  "<th>workload</th><th>runs</th><th>capture wire bits</th>"
                  "<th>reference wire bits</th><th>capture / reference</th>"
                  "<th>messages per 1000</th><th>peak / mean rate</th></tr></thead><tbody>\n";
  for (const auto& [wl, a] : rows) {
    const double n = static_cast<double>(a.runs);
    h += "<tr class=\"bits-row\"><td>" + E(wl) + "</td><td>" + std::to_string(a.runs) +
         "</td><td>" + Fixed(a.wire / n, 3) + "</td><td>" + Fixed(a.ref / n, 3) + "</td><td>" +
         (a.ref > 0 ? Fixed(a.wire / a.ref, 3) : std::string("-")) + "</td><td>" +
         Fixed(a.msgs / n, 1) + "</td><td>" + Fixed(a.peak, 2) + "</td></tr>\n";
  }
  if (rows.empty()) h += "<tr><td colspan=\"7\">no judged run has them</td></tr>\n";
  return h + "</tbody></table></section>\n";
}

// Loss coverage: of the drops whose beat the judge found, how many found compression state
// (docs/verdicts.md "Loss coverage"), summed over the campaign's judged runs.
std::string LossCoverageSection(const ReportModel& m) {
  ReportRun::LossCoverage t;
  uint64_t runs = 0;
  for (const ReportRun& r : m.runs) {
    if (r.loss_coverage.drops == 0) continue;
    ++runs;
    t.drops += r.loss_coverage.drops;
    t.return_stack += r.loss_coverage.return_stack;
    t.hist += r.loss_coverage.hist;
    t.held_repeat += r.loss_coverage.held_repeat;
    t.seq_jump_setter += r.loss_coverage.seq_jump_setter;
  }
  std::string h = "<section id=\"loss-coverage\"><h2>Loss coverage</h2><p>Drops whose beat the "
                  "judge found (the reference encoder replayed from each anchor), in " +
                  std::to_string(runs) + " runs, and how many of them dropped compression "
                  "state: what the recovery checks guard.</p><table id=\"loss-coverage-table\">"
                  "<thead><tr><th>drops</th><th>return-stack entries</th><th>HIST bits</th>"
                  "<th>a held repeat</th><th>a sequential-jump setter</th></tr></thead><tbody>"
                  "<tr><td>" + std::to_string(t.drops) + "</td><td>" +
                  std::to_string(t.return_stack) + "</td><td>" + std::to_string(t.hist) +
                  "</td><td>" + std::to_string(t.held_repeat) + "</td><td>" +
                  std::to_string(t.seq_jump_setter) + "</td></tr>\n";
  return h + "</tbody></table></section>\n";
}

// Per board: runs, infra attempts, retries, deaths, respawns; then the runs that were retried.
std::string InfraSection(const ReportModel& m) {
  std::string h = "<section id=\"infrastructure\"><h2>Infrastructure</h2><p>Per board, original "
                  "runs only: runs stored on it; infra attempts (attempts that failed in the "
                  "lab); retries (attempts tried again); deaths (the board died or timed out); "
                  "respawns (the board process was replaced).</p><table id=\"infra-table\">"
                  "<thead><tr><th>board</th><th>kind</th><th>serial</th><th>runs</th>"
                  "<th>infra attempts</th><th>retries</th><th>deaths</th><th>respawns</th>"
                  "</tr></thead><tbody>\n";
  const auto row = [](const std::string& board, const std::string& kind,
                      const std::string& serial, const db::BoardInfraCounts& c,
                      const char* cls) {
    return std::string("<tr class=\"") + cls + "\"><td>" + board + "</td><td>" + E(kind) +
           "</td><td>" + E(serial) + "</td><td>" + std::to_string(c.runs) + "</td><td>" +
           std::to_string(c.infra_attempts) + "</td><td>" + std::to_string(c.retries) +
           "</td><td>" + std::to_string(c.deaths) + "</td><td>" + std::to_string(c.respawns) +
           "</td></tr>\n";
  };
  for (const db::BoardInfraCounts& b : m.infrastructure) {
    h += row(b.board_id ? std::to_string(*b.board_id) : "-", b.kind, b.serial, b, "infra-board");
  }
  if (m.infrastructure.empty()) h += "<tr><td colspan=\"8\">no finished runs</td></tr>\n";
  else h += row("total", "", "", m.InfraTotals(), "infra-total");
  h += "</tbody></table>\n";
  if (!m.quarantined.empty()) {
    // Named by the soak that wrote this report (docs/lab.md "Health and quarantine").
    h += "<p id=\"quarantined\">Quarantined at the end of the soak:</p><ul>\n";
    for (const std::string& q : m.quarantined) h += "<li class=\"quarantined-board\">" + E(q) + "</li>\n";
    h += "</ul>\n";
  }
  h += "<table id=\"retried-table\"><thead><tr><th>run</th><th>index</th>"
       "<th>status</th><th>earlier attempts</th></tr></thead><tbody>\n";
  size_t n = 0;
  for (const ReportRun& r : m.runs) {
    if (!r.retried()) continue;
    ++n;
    h += "<tr class=\"retried-run\"><td>" + std::to_string(r.id) + "</td><td>" +
         std::to_string(r.index) + "</td>" + StatusCell(r.status) + "<td class=\"evidence\">" +
         E(r.AttemptsNote()) + "</td></tr>\n";
  }
  if (n == 0) h += "<tr><td colspan=\"4\">no retried runs</td></tr>\n";
  return h + "</tbody></table></section>\n";
}

std::string RunRows(const ReportModel& m, const std::vector<ReportRun>& runs, bool replays) {
  std::string h = "<thead><tr><th>run</th><th>index</th><th>seed</th><th>status</th>";
  for (const std::string& f : m.factors) h += "<th>" + E(f) + "</th>";
  h += "<th>bits/insn</th><th>loss</th><th>stream</th><th>wall ms</th></tr></thead><tbody>\n";
  for (const ReportRun& r : runs) {
    h += "<tr><td>" + std::to_string(r.id) + "</td><td>" + std::to_string(r.index) +
         (r.twin_of ? " (twin of " + std::to_string(*r.twin_of) + ")" : "") + "</td><td><code>" +
         Hex64(r.seed) + "</code></td>" + StatusCell(r.status);
    for (const std::string& f : m.factors) h += "<td>" + E(r.AxisValue(f)) + "</td>";
    h += "<td>" + Fixed(r.wire_bits_per_instruction, 3) + "</td><td>" +
         (r.loss_fraction ? Fixed(*r.loss_fraction * 100, 2) + "%" : "") + "</td><td><code>" +
         E(r.stream_sha256.substr(0, 12)) + "</code></td><td>" +
         (r.wall_ms ? std::to_string(*r.wall_ms) : "") + "</td></tr>\n";
  }
  if (runs.empty()) h += std::string("<tr><td>") + (replays ? "no replays" : "no runs") +
                         "</td></tr>\n";
  return h + "</tbody>";
}

}  // namespace

// The control table (runner/controls.h): control, image, expected red, observed red, result.
std::string ControlTable(const ReportModel& m) {
  if (m.controls.empty()) return "";
  std::string h = "<section id=\"controls\"><h2>Controls" +
                  std::string(m.unsound ? " &mdash; <span class=\"s-red\">UNSOUND</span>: a "
                                          "control failed, the draws below measure nothing"
                                        : ": every gate shown to fail") +
                  "</h2><table id=\"controls-table\"><thead><tr><th>control</th><th>image</th>"
                  "<th>round</th><th>board</th><th>expected red</th><th>observed red</th><th>result</th>"
                  "<th>run</th></tr></thead><tbody>\n";
  for (const ControlRow& c : m.controls) {
    h += "<tr class=\"s-" + std::string(c.passed ? "green" : "red") + "\"><td>" + E(c.name) +
         "</td><td>" + E(c.image) + "</td><td>" + E(ControlRoundLabel(c.round, c.shard)) + "</td><td>" +
         E(c.board.empty() ? "-" : c.board) + "</td><td>" + E(JoinVerdicts(c.expect_red)) + "</td><td>" + E(JoinVerdicts(c.observed_red)) +
         "</td><td>" + (c.passed ? "pass" : "FAIL: " + E(c.reason)) + "</td><td>" +
         std::to_string(c.run_id) + "</td></tr>\n";
  }
  h += "</tbody></table>\n";
  for (const UntrustedBoard& u : m.untrusted) {
    h += "<p class=\"s-red untrusted\">" + E(u.board) + ": " + std::to_string(u.failed_controls) +
         " of " + std::to_string(u.controls) + " controls failed there: its " +
         std::to_string(u.unproven_draws) + " draws are unproven</p>\n";
  }
  return h + "</section>\n";
}

std::string RenderHtml(const ReportModel& m) {
  const db::CampaignSummary& c = m.campaign;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<title>" + E("CTTE Lab report: " + c.name) + "</title><style>" + kStyle +
                  "</style></head><body>\n";
  h += ControlTable(m);
  h += "<section id=\"summary\"><h1>Campaign " + E(c.name) +
       (m.unsound ? " (UNSOUND: a control failed)" : "") + "</h1><p>" + E(c.description) +
       "</p><p>campaign id " + std::to_string(c.id) + ", seed <code>" + Hex64(c.seed) +
       "</code>, spec sha256 <code>" + E(c.spec_sha256) + "</code>, created " + E(c.created_at) +
       (m.db_path.empty() ? "" : ", database <code>" + E(m.db_path) + "</code>") + "</p>";
  h += "<p class=\"counts\"><span>runs <b id=\"count-runs\">" + std::to_string(m.runs.size()) +
       "</b></span>";
  for (db::RunStatus s : {db::RunStatus::kGreen, db::RunStatus::kRed, db::RunStatus::kInvalid,
                          db::RunStatus::kInfra, db::RunStatus::kPlanned}) {
    h += std::string("<span class=\"s-") + StatusClass(s) + "\">" + db::RunStatusName(s) +
         " <b id=\"count-" + db::RunStatusName(s) + "\">" + std::to_string(m.Count(s)) +
         "</b></span>";
  }
  h += "</p></section>\n";
  h += Plots(m);
  h += BitsSection(m);
  h += LossCoverageSection(m);
  h += VerdictTable(m);
  h += VerdictByFactor(m);
  h += RedTable(m);
  h += TriageSection(m);
  h += PairsSection(m);
  h += TrendSection(m);
  h += NotJudgedTable(m);
  h += InfraSection(m);
  h += "<section id=\"runs\"><h2>Runs</h2><table id=\"runs-table\">" + RunRows(m, m.runs, false) +
       "</table></section>\n";
  h += "<section id=\"replays\"><h2>Replays</h2><table>" + RunRows(m, m.replays, true) +
       "</table></section>\n";
  h += std::string("<script>") + kScript + "</script>\n</body></html>\n";
  return h;
}

}  // namespace ctte::reports
