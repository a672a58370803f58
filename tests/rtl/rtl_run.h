// Runs ISS beats through an encoder image (test harness) and through the reference encoder,
// with a seeded core stall pattern (IPC below 1) and a seeded sink, and collects both streams.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/reference_encoder.h"
#include "oracle/retired.h"
#include "tests/rtl/image_harness.h"

namespace ctte::rtl_test {

struct IssRun {
  std::vector<oracle::Retired> beats;
  std::vector<uint64_t> pcs;  // retired PCs
  std::string error;          // non-empty when the ISS stopped on a fatal error
};

IssRun RunIss(const oracle::ProgramImage& image, const oracle::IssOptions& options);

struct RtlRunOptions {
  oracle::EncoderConfig encoder;
  uint32_t max_stall = 6;        ///< idle fabric cycles after each beat: uniform 0..max_stall
  double sink_accept = 1.0;      ///< probability that sink_ready is 1 at a sink edge
  uint32_t sink_period = 10;     ///< even; the fabric period is 10
  uint64_t seed = 1;
};

struct RtlRunResult {
  std::vector<uint8_t> rtl_bytes;
  std::vector<uint8_t> reference_bytes;
  uint32_t msg_count = 0;
  uint32_t byte_count = 0;
  uint32_t overflow_episodes = 0;
  uint32_t records_dropped = 0;
  uint32_t halfwords_retired = 0;
  uint32_t control = 0;          ///< trTeControl after the drain
  bool drained = false;
  uint64_t fabric_cycles = 0;
  std::string failure;           ///< RTL assertion message, "" when none fired
};

/// Loads image `name`, traces all of `beats` in one window, stops and drains.
RtlRunResult RunThroughImage(const std::string& name, const std::vector<oracle::Retired>& beats,
                             const RtlRunOptions& options);

ctte_ingress ToIngress(const oracle::Retired& r);

}  // namespace ctte::rtl_test
