// Helpers the soak tests share (soak_test.cc, soak_attempts_test.cc): running the ctte-lab
// binary under test, and the soak options that point at this build's images, workloads and
// board.
#pragma once

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "db/database.h"
#include "runner/soak.h"
#include "tests/integration/lab_cli.h"

namespace ctte::runner::soak_testing {

using Cmd = ctte::testing::CliResult;  ///< exit code; stdout and stderr
using ctte::testing::RunLab;             ///< `ctte-lab ARGS 2>&1` (ARGS is shell text)

/// The stored runs of the one campaign named `campaign` in `db_path` (a test failure, and none,
/// when the database cannot be read or holds no such campaign or more than one).
inline std::vector<db::RunRow> CampaignRuns(const std::string& db_path,
                                            const std::string& campaign) {
  auto d = db::Database::Open(db_path);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) return {};
  auto campaigns = (*d)->Campaigns(campaign);
  EXPECT_TRUE(campaigns.ok() && campaigns->size() == 1u) << campaign;
  if (!campaigns.ok() || campaigns->size() != 1u) return {};
  auto rows = (*d)->RunsOfCampaign(campaigns->front().id);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? std::move(*rows) : std::vector<db::RunRow>{};
}

/// Options for a soak of `spec_path` into `db_path` on this build's images, workloads and
/// ctte-board.
inline SoakOptions BuildSoakOptions(const std::string& spec_path, const std::string& db_path) {
  SoakOptions o;
  o.spec_path = spec_path;
  o.db_path = db_path;
  o.execute.image_dir = std::string(CTTE_BINARY_DIR) + "/images";
  o.execute.workload_dir = std::string(CTTE_BINARY_DIR) + "/workloads";
  o.boards.child.board_path = std::string(CTTE_BINARY_DIR) + "/bin/ctte-board";
  return o;
}

// Small and fast: short workloads, both modes, overflow, an early stop, determinism pairs.
inline constexpr const char* kTinySpec = R"({
  "name": "soak-tiny",
  "description": "kill-and-resume test campaign",
  "seed": "0x0123456789abcdef",
  "runs": 12,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 3000,
  "determinism_pairs": 0.5,
  "axes": {
    "overflow_regime": ["none", "saturating"],
    "mode": ["htm", "btm"],
    "workload": ["loop", "calls"],
    "window": ["full", "early_stop"]
  }
})";

}  // namespace ctte::runner::soak_testing
