// The judge tests' captures, from golden files (tests/judge/captured_run.h, docs/test-captures.md):
// CaptureRun(config, options, twin) loads tests/judge/captures/<image>.<workload>.<key>.json for
// (config, options.max_instructions) and computes the reference again with the ISS; no image and
// no board is involved, so these tests run in the unit tier and under ASan. integration_test's
// JudgeCapturesTest proves every golden file equals a fresh capture on the current images.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "oracle/judges.h"
#include "oracle/ntrace_writer.h"
#include "tests/judge/captured_run.h"

namespace ctte::testing {

/// The judge tests need the built workloads (the ISS runs them for the reference), not images.
inline bool HaveWorkloads(std::string* why) {
  for (const char* f : {"/calls.elf", "/sort.elf", "/farcalls.elf", "/spin.elf"}) {
    if (!std::filesystem::exists(kWorkloadDir + f)) {
      *why = "no workload " + kWorkloadDir + f + " (build ctte_workloads)";
      return false;
    }
  }
  return true;
}

inline Result<std::unique_ptr<CapturedRun>> CaptureRun(const runner::RunConfig& config,
                                                       const runner::ExecuteOptions& options,
                                                       bool twin) {
  return LoadCapturedRun(kCaptureDir, config, options, twin);
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

/// The bytes without message `m`.
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
