// JUnit XML rendering of a ReportModel, for CI: one <testsuite> per campaign, one <testcase> per
// run (name "run <index> seed <seed>", classname "<campaign>.<workload>"). A red run has a
// <failure> whose message names the red verdicts and whose text holds their evidence and the
// replay command; invalid and infra runs (and planned ones) are <skipped> with their reason. A
// run that went green after earlier attempts failed in the lab (a board died, ...) passes, with
// a <system-out> note listing those attempts; other runs list them in their <system-out>.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace ctte::reports {

std::string RenderJUnit(const ReportModel& model);

}  // namespace ctte::reports
