// The HTML report's triage sections (docs/triage.md, "Report"):
//  - #triage: one block per red run: its bisections and triages (the legs as a table, the
//    minimal configuration's `ctte-lab run --config` command), or the bisect command to run;
//  - #pairs: the pairs of factor values by excess (the first kPairRows), when there are any;
//  - #trend (two nights or more): fail rate per verdict over the last nights of the campaign's
//    name (inline SVG,
//    one line per verdict that failed in any of them), and per verdict red in this night the
//    first night of its current red streak and the last green night before it.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace ctte::reports {

inline constexpr size_t kPairRows = 10;

std::string TriageSection(const ReportModel& m);
std::string PairsSection(const ReportModel& m);
std::string TrendSection(const ReportModel& m);

/// For one verdict over `nights` (oldest first): the index of the first night of the red
/// streak that ends at the last night, and of the last night before it that was green for the
/// verdict (judged, not failed). -1 when there is none (the last night is not red, or no green
/// night precedes the streak).
struct StreakBounds {
  int first_red = -1, last_green = -1;
};
StreakBounds RedStreak(const std::vector<db::NightRow>& nights, const std::string& verdict);

}  // namespace ctte::reports
