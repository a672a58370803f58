// Preflight: which runs of a campaign would be infra by design, found without a board.
//
// The soak refuses some runs at once, whatever board runs them (runner/board_session.h): an image
// whose manifest cannot be found or loaded under image_dir (kPrepare), a named workload with no
// ELF under workload_dir (kPrepare), a workload whose ELF class is not the image's XLEN (a 64-bit
// program on a 32-bit image or the reverse; kPrepare, per (image, workload) pair, built-ins
// resolving to their build of the image's width: runner/workload_xlen.h), a fabric clock the board's PLL cannot program or a sink clock
// it cannot program (lab/pll.h, kClock), and a fabric clock whose PLL-programmed frequency is
// above the image's declared fmax (kClosureGate). `ctte-lab campaign check` runs this check.
//
// How: every problem is a property of one axis value or one (image, fabric_mhz) pair, so the
// check walks the spec's values (images x fabric clocks, overflow regimes for the sink clock,
// workloads): complete whatever the run count. It then draws the first `max_scan` runs to name
// the indices each problem hits (Draw is cheap and pure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/campaign_spec.h"
#include "runner/plan.h"
#include "runner/run_status.h"

namespace ctte::runner {

struct PreflightProblem {
  InfraCause cause = InfraCause::kNone;  ///< kPrepare, kClock or kClosureGate
  std::string reason;                    ///< names the value(s) and the limit
  std::vector<uint64_t> first_runs;      ///< up to kPreflightRunsPerProblem indices it hits
  uint64_t runs_hit = 0;                 ///< among the scanned runs
};

inline constexpr size_t kPreflightRunsPerProblem = 10;

struct PreflightReport {
  std::vector<PreflightProblem> problems;  ///< in spec order; empty = no run is infra by design
  uint64_t scanned = 0;                    ///< runs drawn to find the indices
  bool ok() const { return problems.empty(); }
};

/// Checks `spec` against the images and workloads that `options` (image_dir, workload_dir)
/// points at. Never touches a board; reads only manifests and ELF headers.
PreflightReport PreflightCampaign(const CampaignSpec& spec, const PlanOptions& options,
                                  uint64_t max_scan = 100'000);

}  // namespace ctte::runner
