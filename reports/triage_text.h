// Text of stored bisections and triages (db/triage_store.h), for `ctte-lab show`, `bisect`,
// `triage` and the reports: one leg per line (docs/triage.md, "Output").
#pragma once

#include <string>
#include <vector>

#include "db/triage_store.h"

namespace ctte::reports {

/// "bisection 3 (bisect, 5 repeats): culprit: mode, sync ..." then the legs table and the
/// minimal configuration's command.
std::string FormatBisection(const db::BisectionRecord& b);

/// "12/20 (60%, 95% 39-78%)".
std::string RateCell(uint64_t red, uint64_t judged, double lo, double hi);

/// The pairs table of `history --pairs` (the first `limit` rows; 0 = all).
std::string FormatPairs(const std::vector<db::PairRate>& pairs, size_t limit);

/// The nights table of `history --nights`: one line per campaign row, fail counts per verdict.
std::string FormatNights(const std::vector<db::NightRow>& nights);

}  // namespace ctte::reports
