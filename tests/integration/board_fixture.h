// Runs on in-process simulated boards for integration_test: the base configuration and options
// (tests/judge/captured_run.h), whether the images and workloads are built, and a fresh capture
// of a prepared run on SimBoards (main + determinism twin), as the judge golden files hold.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "lab/sim/sim_board.h"
#include "runner/execute.h"
#include "tests/judge/captured_run.h"

namespace ctte::testing {

inline bool HaveImagesAndWorkloads(std::string* why) {
  for (const char* f : {"/ntrace-slim.manifest.json", "/ntrace-shallow.manifest.json",
                        "/ntrace-full.manifest.json"}) {
    if (!std::filesystem::exists(kImageDir + f)) {
      *why = "no image manifest " + kImageDir + f + " (build ctte_images)";
      return false;
    }
  }
  if (!std::filesystem::exists(kWorkloadDir + "/calls.elf") ||
      !std::filesystem::exists(kWorkloadDir + "/farcalls.elf")) {
    *why = "no workloads in " + kWorkloadDir + " (build ctte_workloads)";
    return false;
  }
  return true;
}

inline Result<lab::Capture> CaptureOn(const runner::PreparedRun& run) {
  Result<std::unique_ptr<lab::SimBoard>> board = lab::SimBoard::Create({});
  if (!board.ok()) return board.status();
  Result<lab::DeployReceipt> r = (*board)->Deploy(run.manifest.ToDeployRequest());
  if (!r.ok()) return r.status();
  CTTE_RETURN_IF_ERROR((*board)->SetClock(lab::ClockDomain::kFabric, run.fabric_hz).status());
  CTTE_RETURN_IF_ERROR((*board)->SetClock(lab::ClockDomain::kSink, run.sink_hz).status());
  return (*board)->Run(run.plan);
}

/// `config` planned against the built images and captured on fresh SimBoards now.
inline Result<std::unique_ptr<CapturedRun>> CaptureFresh(const runner::RunConfig& config,
                                                         const runner::ExecuteOptions& options,
                                                         bool twin) {
  auto c = std::make_unique<CapturedRun>();
  Result<runner::PreparedRun> p = runner::PrepareRun(config, options);
  if (!p.ok()) return p.status();
  c->run = std::move(*p);
  Result<lab::Capture> cap = CaptureOn(c->run);
  if (!cap.ok()) return cap.status();
  c->capture = std::move(*cap);
  if (twin) {
    Result<lab::Capture> t = CaptureOn(c->run);
    if (!t.ok()) return t.status();
    c->twin_capture = std::move(*t);
    c->has_twin = true;
  }
  return c;
}

}  // namespace ctte::testing
