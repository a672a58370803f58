// The oracle tests' ISS run and reference encoding: a built workload, a program's beats and
// retired PCs from the ISS, the reference encoder's bytes for them, the encoder configurations
// the workload tests cross, and the check that a decode gives back the PCs it should.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"

namespace ctte::oracle::test_support {

/// The path of the cross-compiled workload `name` (built with the tests; CTTE_BUILD_WORKLOADS).
inline std::string WorkloadPath(const std::string& name) {
  return std::string(CTTE_BINARY_DIR) + "/workloads/" + name + ".elf";
}

/// The workload `name` loaded from WorkloadPath (an error when it is not built).
inline Result<ProgramImage> Workload(const std::string& name) {
  return ProgramImage::Load(WorkloadPath(name));
}

struct IssRun {
  std::vector<Retired> beats;
  std::vector<uint64_t> pcs;  // retired PCs
};

/// Runs `image` to its end; a fatal stop fails the calling test.
inline IssRun RunIss(const ProgramImage& image, IssOptions options) {
  IssRun r;
  Iss iss(image, options);
  Retired b;
  while (iss.Step(&b)) {
    r.beats.push_back(b);
    if (b.retires) r.pcs.push_back(b.pc);
  }
  EXPECT_NE(iss.stop_reason(), StopReason::kFatal) << iss.fatal_message();
  return r;
}

/// RunIss stopping after `max_instructions` beats, with an interrupt every `interrupt_every`
/// retirements (0: none).
inline IssRun RunIss(const ProgramImage& image, uint64_t max_instructions,
                     uint64_t interrupt_every = 0) {
  IssOptions options;
  options.max_instructions = max_instructions;
  options.interrupt_every = interrupt_every;
  return RunIss(image, options);
}

/// The reference encoder's stream for `run` under `config` (one window, opened and closed).
inline std::vector<uint8_t> Encode(const IssRun& run, const EncoderConfig& config) {
  ReferenceEncoder enc(config);
  enc.Open();
  for (const Retired& b : run.beats) enc.Beat(b);
  enc.Close();
  return enc.bytes();
}

/// HTM and BTM, each with every (sync_mode, sync_max) of `syncs`, all carrying `features`.
inline std::vector<EncoderConfig> Configs(
    const FeatureSet& features,
    std::initializer_list<std::pair<int, int>> syncs = {{0, 0}, {1, 0}, {3, 2}}) {
  std::vector<EncoderConfig> v;
  for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
    for (auto [sync_mode, sync_max] : syncs) {
      EncoderConfig c;
      c.mode = mode;
      c.sync_mode = static_cast<uint8_t>(sync_mode);
      c.sync_max = static_cast<uint8_t>(sync_max);
      c.features = features;
      v.push_back(c);
    }
  }
  return v;
}

/// "" when decoding `bytes` under `options` reports no decode error and gives exactly the PCs
/// `want`; else what differs: "decode error: ...", the two counts, or the first PC that differs.
/// With `sink`, the decode is left there (its markers) for further checks.
inline std::string DecodesTo(const ProgramImage& image, const std::vector<uint8_t>& bytes,
                             const DecodeOptions& options, const std::vector<uint64_t>& want,
                             CollectingSink* sink = nullptr) {
  CollectingSink local;
  CollectingSink& s = sink != nullptr ? *sink : local;
  DecodeStream(bytes, image, options, &s);
  for (const Marker& m : s.markers_) {
    if (m.kind == Marker::Kind::kDecodeError) return "decode error: " + m.reason;
  }
  if (s.pcs_.size() != want.size()) {
    return "decoded " + std::to_string(s.pcs_.size()) + " PCs, want " +
           std::to_string(want.size());
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (s.pcs_[i] != want[i]) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "PC %zu: decoded 0x%llx, want 0x%llx", i,
                    static_cast<unsigned long long>(s.pcs_[i]),
                    static_cast<unsigned long long>(want[i]));
      return buf;
    }
  }
  return "";
}

/// "htm sync 3/2 repeat-branch": how a test names a configuration in its failure messages.
inline std::string Name(const EncoderConfig& c) {
  return std::string(c.mode == TraceMode::kHtm ? "htm" : "btm") + " sync " +
         std::to_string(c.sync_mode) + "/" + std::to_string(c.sync_max) + " " +
         FormatFeatures(c.features);
}

}  // namespace ctte::oracle::test_support
