// Round trips: ISS beats -> reference encoder -> bytes -> reader + reconstruction must give back
// the ISS's retired PC sequence exactly, on every workload, in HTM and BTM, with several sync
// settings and with a tiny I-CNT (ResourceFull RCODE 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/ntrace_reader.h"
#include "oracle/program_gen.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"
#include "tests/oracle/iss_run.h"

namespace ctte::oracle {
namespace {

using test_support::IssRun;
using test_support::RunIss;
using test_support::Workload;

struct Config {
  const char* name;
  EncoderConfig enc;
};

std::vector<Config> Configs() {
  std::vector<Config> v;
  for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
    const bool h = mode == TraceMode::kHtm;
    v.push_back({h ? "htm sync off" : "btm sync off", {mode, 0, 0, 22}});
    v.push_back({h ? "htm sync messages/16" : "btm sync messages/16", {mode, 1, 0, 22}});
    v.push_back({h ? "htm sync halfwords/16" : "btm sync halfwords/16", {mode, 3, 0, 22}});
    v.push_back({h ? "htm sync halfwords/64" : "btm sync halfwords/64", {mode, 3, 2, 22}});
    v.push_back({h ? "htm icnt 4 bits" : "btm icnt 4 bits", {mode, 0, 0, 4}});
    v.push_back({h ? "htm icnt 5 bits, sync messages/32" : "btm icnt 5 bits, sync messages/32",
                 {mode, 1, 1, 5}});
  }
  return v;
}

// Encodes and decodes; returns "" when the round trip is exact, else what differs.
std::string RoundTrip(const ProgramImage& image, const IssRun& run,
                      const EncoderConfig& config) {
  CollectingSink sink;
  const std::string differs =
      test_support::DecodesTo(image, test_support::Encode(run, config), {}, run.pcs, &sink);
  if (!differs.empty()) return differs;
  if (sink.markers_.empty() || sink.markers_.front().kind != Marker::Kind::kAnchor ||
      sink.markers_.back().kind != Marker::Kind::kCorrelation) {
    return "stream does not start with an anchor and end with a correlation";
  }
  return "";
}

class WorkloadRoundTripTest : public testing::TestWithParam<const char*> {};

TEST_P(WorkloadRoundTripTest, EncodeThenDecodeGivesTheIssPcSequence) {
  Result<ProgramImage> image = Workload(GetParam());
  if (!image.ok()) GTEST_SKIP() << GetParam() << " not built: " << image.status().ToString();
  for (const uint64_t interrupt_every : {uint64_t{0}, uint64_t{997}}) {
    const IssRun run = RunIss(*image, 2'000'000, interrupt_every);
    ASSERT_GT(run.pcs.size(), 1000u);
    for (const Config& c : Configs()) {
      EXPECT_EQ(RoundTrip(*image, run, c.enc), "")
          << GetParam() << ", " << c.name << ", interrupt every " << interrupt_every;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadRoundTripTest,
                         testing::Values("loop", "calls", "ptrchase", "sort", "switch",
                                         "traps"));

TEST(GeneratedRoundTripTest, SixtyGeneratedProgramsRoundTripInEveryConfiguration) {
  ProgramGenOptions gen;
  gen.size = 300;
  gen.max_dynamic = 20'000;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const GeneratedProgram prog = GenerateProgram(seed, gen);
    const ProgramImage image = prog.ToImage();
    const IssRun run = RunIss(image, 100'000, seed % 3 == 0 ? 101 + seed : 0);
    ASSERT_GT(run.pcs.size(), 100u) << "seed " << seed;
    for (const Config& c : Configs()) {
      EXPECT_EQ(RoundTrip(image, run, c.enc), "") << "seed " << seed << ", " << c.name;
    }
  }
}

// Every single-byte mutation and every truncation of a real (small) stream is decoded or
// reported by reader and reconstruction together: never a crash (this test also runs under
// AddressSanitizer), every decoded PC lies in the image or right after an anchor.
TEST(StreamMutationTest, EveryMutationAndTruncationOfARealStreamIsDecodedOrReported) {
  Result<ProgramImage> image = Workload("traps");
  if (!image.ok()) GTEST_SKIP() << "traps not built: " << image.status().ToString();
  const IssRun run = RunIss(*image, 800, 97);
  for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
    const std::vector<uint8_t> base = test_support::Encode(run, {mode, 1, 0, 6});
    ASSERT_EQ(RoundTrip(*image, run, {mode, 1, 0, 6}), "");
    ASSERT_LT(base.size(), 1200u);
    DecodeOptions dopt;
    dopt.reconstruct.max_walk_halfwords = 1u << 16;
    uint64_t errors = 0;
    std::vector<uint8_t> bytes;
    for (size_t pos = 0; pos < base.size(); ++pos) {
      for (int v = 0; v < 256; ++v) {
        bytes = base;
        bytes[pos] = static_cast<uint8_t>(v);
        CollectingSink sink;
        DecodeStream(bytes, *image, dopt, &sink);
        for (const Marker& m : sink.markers_) {
          ASSERT_LE(m.pc_index, sink.pcs_.size());
          if (m.kind == Marker::Kind::kDecodeError) {
            ++errors;
            ASSERT_FALSE(m.reason.empty());
            ASSERT_LT(m.offset, bytes.size());
          }
        }
      }
    }
    EXPECT_GT(errors, base.size());
    for (size_t len = 0; len < base.size(); ++len) {
      bytes.assign(base.begin(), base.begin() + static_cast<long>(len));
      CollectingSink sink;
      DecodeStream(bytes, *image, dopt, &sink);
      // A prefix decodes to a prefix of the PC sequence.
      ASSERT_LE(sink.pcs_.size(), run.pcs.size());
      ASSERT_TRUE(std::equal(sink.pcs_.begin(), sink.pcs_.end(), run.pcs.begin())) << len;
    }
  }
}

}  // namespace
}  // namespace ctte::oracle
