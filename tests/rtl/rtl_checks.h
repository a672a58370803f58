// The checks the rtl workload tests share: a run through an image that must be drop-free and
// give the reference encoder's messages, a run that must drop under backpressure, and the decode
// of a lossy stream whose every segment must be a run of the ISS's PCs. The Run* helpers fail
// the calling test fatally where the test cannot go on: call them in ASSERT_NO_FATAL_FAILURE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/features.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/retired.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {

/// Runs `beats` through image `name`: drained, drop-free, no assertion fired, and the same
/// messages as the reference encoder.
inline void RunDropFree(const std::string& name, const std::vector<oracle::Retired>& beats,
                        const RtlRunOptions& options, RtlRunResult* r) {
  *r = RunThroughImage(name, beats, options);
  ASSERT_TRUE(r->drained);
  EXPECT_EQ(r->failure, "");
  ASSERT_EQ(r->overflow_episodes, 0u) << "the run dropped: not a drop-free run";
  EXPECT_EQ(FirstMessageDifference(r->rtl_bytes, r->reference_bytes), "");
}

/// Runs `beats` through image `name` under backpressure: drained, no assertion fired, and the
/// queue overflowed at least once.
inline void RunWithLoss(const std::string& name, const std::vector<oracle::Retired>& beats,
                        const RtlRunOptions& options, RtlRunResult* r) {
  *r = RunThroughImage(name, beats, options);
  ASSERT_TRUE(r->drained);
  EXPECT_EQ(r->failure, "");
  ASSERT_GT(r->overflow_episodes, 0u) << "backpressure was not heavy enough to drop";
}

/// Decodes the lossy stream `bytes` of `image` with `features`: no decode error, more than 100
/// PCs, and every segment between losses a run of the ISS's `pcs`. Returns how many PCs it decoded.
inline size_t ExpectSegmentsAreIssRuns(const std::vector<uint8_t>& bytes,
                                     const oracle::ProgramImage& image,
                                     const oracle::FeatureSet& features,
                                     const std::vector<uint64_t>& pcs) {
  oracle::DecodeOptions dopt;
  oracle::Reconstructor::ApplyFeatures(features, &dopt.reconstruct);
  oracle::CollectingSink sink;
  oracle::DecodeStream(bytes, image, dopt, &sink);
  for (const oracle::Marker& m : sink.markers_) {
    EXPECT_NE(m.kind, oracle::Marker::Kind::kDecodeError) << m.reason;
  }
  EXPECT_GT(sink.pcs_.size(), 100u);
  EXPECT_EQ(CheckSegmentsAreContiguousRuns(pcs, sink.pcs_, sink.markers_), "");
  return sink.pcs_.size();
}

/// `image` (`max_instructions` on the ISS, an interrupt every 499) with `features` on ntrace-full
/// in `mode`, a sync every 16 half-words, under a sink that takes 5% of its edges: the run drops
/// (RunWithLoss) and every decoded segment is a run of the ISS's PCs (ExpectSegmentsAreIssRuns).
inline void ExpectFeaturesSurviveLoss(const oracle::ProgramImage& image, oracle::TraceMode mode,
                                      const oracle::FeatureSet& features,
                                      uint64_t max_instructions) {
  oracle::IssOptions iss;
  iss.max_instructions = max_instructions;
  iss.interrupt_every = 499;
  const IssRun run = RunIss(image, iss);
  RtlRunOptions opt;
  opt.encoder.mode = mode;
  opt.encoder.sync_mode = 3;  // a sync every 16 half-words: enough messages to drop
  opt.encoder.sync_max = 0;
  opt.encoder.features = features;
  opt.max_stall = 0;
  opt.sink_accept = 0.05;
  opt.seed = 3;
  RtlRunResult r;
  ASSERT_NO_FATAL_FAILURE(RunWithLoss("ntrace-full", run.beats, opt, &r));
  ExpectSegmentsAreIssRuns(r.rtl_bytes, image, features, run.pcs);
}

}  // namespace ctte::rtl_test
