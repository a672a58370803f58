// HTML rendering of a ReportModel: one self-contained page (inline CSS, inline SVG, one small
// inline script that makes the run table sortable; no external resources). Sections, each with
// a stable id that tests look for:
//   #controls     table#controls-table: the campaign's controls (only when it has any), first;
//                 "UNSOUND" in its heading and the summary's when one failed
//   #summary      campaign identity and run counts by status
//   #plots        svg#plot-factor-<factor> (run status by factor value, one per factor),
//                 svg#plot-bpi (bits per instruction by workload),
//                 svg#plot-loss (loss fraction against sink capacity),
//                 svg#plot-recovery (recovery distance of loss episodes)
//   #verdicts     outcome counts per verdict, linking docs/verdicts.md#<code> by an absolute
//                 file:// URL (ReportModel::verdicts_doc_url), so links work from any folder
//   #verdict-by-factor  table#vbf-<factor>: per value, failed / judged runs of each verdict
//   #red-runs     red runs: failed verdicts, evidence, replay command
//   #not-judged   invalid and infra runs with their reason
//   #infrastructure  table#infra-table: per board runs, infra attempts, retries, deaths,
//                 respawns (tr.infra-board, then tr.infra-total); table#retried-table: runs
//                 with earlier attempts (tr.retried-run) and what those attempts were
//   #runs         every run
//   #replays      replays recorded for the campaign's runs
// When the script has run, <html> carries data-ready="yes".
#pragma once

#include <string>

#include "reports/report_model.h"

namespace ctte::reports {

std::string RenderHtml(const ReportModel& model);

}  // namespace ctte::reports
