// The oracle tests' ISS run and reference encoding: a program's beats and retired PCs from the
// ISS, and the reference encoder's bytes for them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "oracle/iss.h"
#include "oracle/reference_encoder.h"

namespace ctte::oracle::test_support {

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

/// The reference encoder's stream for `run` under `config` (one window, opened and closed).
inline std::vector<uint8_t> Encode(const IssRun& run, const EncoderConfig& config) {
  ReferenceEncoder enc(config);
  enc.Open();
  for (const Retired& b : run.beats) enc.Beat(b);
  enc.Close();
  return enc.bytes();
}

}  // namespace ctte::oracle::test_support
