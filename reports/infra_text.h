// The terminal text of the "Infrastructure" section (ctte-lab history, soak's summary): one line
// per board with its runs, infra attempts, retries, board deaths and respawns, then the totals.
// Fixed-width columns, plain ASCII, ending in a newline.
#pragma once

#include <string>
#include <vector>

#include "db/records.h"

namespace ctte::reports {

std::string RenderInfrastructureText(const std::vector<db::BoardInfraCounts>& boards);

}  // namespace ctte::reports
