// CSV rendering of a ReportModel: a header row, then one row per run (by index). Columns: the
// run's identity and status, its board, attempts (1 + earlier attempts), infra_cause and
// retry_causes (the earlier attempts' causes, ";"-separated), one column per factor, image, clocks, stream, the plotted metrics,
// one column per verdict (its stored outcome), and the replay command.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace ctte::reports {

std::string RenderCsv(const ReportModel& model);

}  // namespace ctte::reports
