// Real captures for the judge tests: each configuration is planned (runner/execute.h), run on
// in-process SimBoards (main + determinism twin) in SetUpTestSuite and kept for the suite; tests
// then manipulate copies of the captured bytes and counters and judge them again. ctest runs
// every discovered test in its own process (gtest_discover_tests), so there the captures are
// made once per test; running the binary directly makes them once per suite.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "lab/sim/sim_board.h"
#include "oracle/judges.h"
#include "oracle/ntrace_writer.h"
#include "runner/execute.h"

namespace ctte::testing {

inline const std::string kImageDir = CTTE_BINARY_DIR "/images";
inline const std::string kWorkloadDir = CTTE_BINARY_DIR "/workloads";

inline bool HaveImagesAndWorkloads(std::string* why) {
  for (const char* f : {"/ntrace-slim.manifest.json", "/ntrace-shallow.manifest.json",
                        "/ntrace-full.manifest.json"}) {
    if (!std::filesystem::exists(kImageDir + f)) {
      *why = "no image manifest " + kImageDir + f + " (build ctte_images)";
      return false;
    }
  }
  if (!std::filesystem::exists(kWorkloadDir + "/calls.elf")) {
    *why = "no workloads in " + kWorkloadDir + " (build ctte_workloads)";
    return false;
  }
  return true;
}

// The ntrace-full image and the farcalls workload besides (the feature judges' tests).
inline bool HaveFull(std::string* why) {
  if (!HaveImagesAndWorkloads(why)) return false;
  if (!std::filesystem::exists(kImageDir + "/ntrace-full.manifest.json") ||
      !std::filesystem::exists(kWorkloadDir + "/farcalls.elf")) {
    *why = "no ntrace-full image or farcalls workload (build ctte_images ctte_workloads)";
    return false;
  }
  return true;
}

inline runner::ExecuteOptions TestOptions(uint64_t max_instructions) {
  runner::ExecuteOptions o;
  o.image_dir = kImageDir;
  o.workload_dir = kWorkloadDir;
  o.max_instructions = max_instructions;
  return o;
}

/// A base configuration (slim image, HTM, no pressure); tests change fields.
inline runner::RunConfig BaseConfig(const std::string& image, const std::string& workload) {
  runner::RunConfig c;
  c.campaign = "judge_test";
  c.seed = 0x1234;
  c.image = image;
  c.workload = workload;
  c.mode = "htm";
  c.sync = "off";
  c.backpressure = "none";
  c.overflow_regime = "none";
  c.window = "full";
  c.interrupts = "none";
  c.fabric_hz = 75'000'000;  // below both images' fmax (closure gate)
  c.sink_hz = 100'000'000;
  c.core_stall_percent = 50;
  c.stall_seed = 11;
  c.sink_seed = 12;
  return c;
}

/// One captured run: the prepared run (with its reference), the board captures, the facts.
struct CapturedRun {
  runner::PreparedRun run;
  lab::Capture capture;
  lab::Capture twin_capture;
  bool has_twin = false;

  oracle::Observed Observe() const {
    oracle::Observed o;
    o.stream = oracle::DecodeForJudging(capture.bytes, *run.program, run.expected.mode,
                                        run.expected.features);
    o.capture = runner::ToCaptureFacts(capture, run.plan.drain_budget_sink_cycles);
    if (has_twin) {
      o.twin = oracle::DecodeForJudging(twin_capture.bytes, *run.program, run.expected.mode,
                                      run.expected.features);
      o.twin_capture = runner::ToCaptureFacts(twin_capture, run.plan.drain_budget_sink_cycles);
    }
    return o;
  }
  /// Observed for manipulated main bytes (counters adjusted by the caller through *facts).
  oracle::Observed ObserveBytes(const std::vector<uint8_t>& bytes) const {
    oracle::Observed o = Observe();
    o.stream = oracle::DecodeForJudging(bytes, *run.program, run.expected.mode,
                                        run.expected.features);
    return o;
  }
};

inline Result<lab::Capture> CaptureOn(const runner::PreparedRun& run) {
  Result<std::unique_ptr<lab::SimBoard>> board = lab::SimBoard::Create({});
  if (!board.ok()) return board.status();
  Result<lab::DeployReceipt> r = (*board)->Deploy(run.manifest.ToDeployRequest());
  if (!r.ok()) return r.status();
  CTTE_RETURN_IF_ERROR((*board)->SetClock(lab::ClockDomain::kFabric, run.fabric_hz).status());
  CTTE_RETURN_IF_ERROR((*board)->SetClock(lab::ClockDomain::kSink, run.sink_hz).status());
  return (*board)->Run(run.plan);
}

inline Result<std::unique_ptr<CapturedRun>> CaptureRun(const runner::RunConfig& config,
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

inline const oracle::Verdict& Find(const oracle::Judgement& j, oracle::VerdictCode code) {
  for (const oracle::Verdict& v : j.verdicts) {
    if (v.code == code) return v;
  }
  static oracle::Verdict none;
  ADD_FAILURE() << "no verdict " << oracle::VerdictCodeName(code);
  return none;
}

inline std::string Describe(const oracle::Judgement& j) {
  std::string s;
  for (const oracle::Verdict& v : j.verdicts) s += v.ToString() + "\n";
  return s;
}

/// Byte range [offset, offset + size) of message `i`.
inline std::vector<uint8_t> EraseMessage(const std::vector<uint8_t>& bytes,
                                         const oracle::Message& m) {
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(m.offset));
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(m.offset + m.size),
             bytes.end());
  return out;
}

/// Replaces message `m` by the encoding of `with` (or inserts `with` before m when insert).
inline std::vector<uint8_t> SpliceMessage(const std::vector<uint8_t>& bytes,
                                          const oracle::Message& m, const oracle::Message& with,
                                          bool insert) {
  std::vector<uint8_t> enc;
  oracle::MessageWriter().Append(with, &enc);
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(m.offset));
  out.insert(out.end(), enc.begin(), enc.end());
  const uint64_t resume = insert ? m.offset : m.offset + m.size;
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(resume), bytes.end());
  return out;
}

}  // namespace ctte::testing
