// Optional compression features on the software side (docs/encoder-behaviour.md section 11):
// the --features grammar, and implicit return through reference encoder -> bytes -> decoder:
// the decoded PC sequence equals the ISS's exactly, the stream is strictly smaller than with the
// feature off on its designated workload (deep calls), and a decoder told the wrong feature set
// reports decode errors instead of passing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/program_gen.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"
#include "tests/oracle/iss_run.h"

namespace ctte::oracle {
namespace {

using test_support::IssRun;
using test_support::RunIss;
using test_support::Encode;
using test_support::Name;
using test_support::Workload;

TEST(FeaturesTest, ParsesTheFeatureGrammar) {
  EXPECT_TRUE(ParseFeatures("", "--features")->empty());
  EXPECT_TRUE(ParseFeatures("none", "--features")->empty());
  EXPECT_EQ(ParseFeatures("implicit-return", "--features")->implicit_return_depth, 32u);
  EXPECT_EQ(ParseFeatures("implicit-return:7", "--features")->implicit_return_depth, 7u);
  EXPECT_EQ(ParseFeatures("implicit-return", "x", 16)->implicit_return_depth, 16u);
  EXPECT_EQ(FormatFeatures(*ParseFeatures("implicit-return:5", "f")), "implicit-return:5");
  EXPECT_EQ(FormatFeatures(FeatureSet{}), "none");
  const FeatureSet all = *ParseFeatures("repeat-branch,implicit-return:4,repeated-history", "f");
  EXPECT_TRUE(all.repeated_history && all.repeat_branch);
  EXPECT_EQ(FormatFeatures(all), "implicit-return:4,repeated-history,repeat-branch");
  EXPECT_EQ(*ParseFeatures(FormatFeatures(all), "f"), all);
  EXPECT_EQ(FormatFeatures(*ParseFeatures("repeat-branch", "f")), "repeat-branch");
  const FeatureSet six = *ParseFeatures(
      "config-message,full-address,sequential-jump,repeat-branch,implicit-return:4,"
      "repeated-history", "f");
  EXPECT_EQ(FormatFeatures(six), "implicit-return:4,repeated-history,repeat-branch,"
                                 "sequential-jump,full-address,config-message");
  EXPECT_EQ(*ParseFeatures(FormatFeatures(six), "f"), six);
  for (const char* bad : {"implicit-return:0", "implicit-return:33", "implicit-return:x",
                          "bogus", "sequential-jump:1", "repeated-history:2",
                          "config", "implicit-return,", "full-address:3"}) {
    Result<FeatureSet> r = ParseFeatures(bad, "--features");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--features"), std::string::npos) << bad;
  }
}

// "" when decoding `bytes` with a stack of `depth` gives the ISS's PCs exactly.
std::string Check(const ProgramImage& image, const IssRun& run, const std::vector<uint8_t>& bytes,
                  uint32_t depth) {
  DecodeOptions opt;
  opt.reconstruct.implicit_return_depth = depth;
  return test_support::DecodesTo(image, bytes, opt, run.pcs);
}

std::vector<EncoderConfig> Configs(uint32_t depth) {
  FeatureSet f;
  f.implicit_return_depth = depth;
  return test_support::Configs(f);
}


class ImplicitReturnWorkloadTest : public testing::TestWithParam<const char*> {};

TEST_P(ImplicitReturnWorkloadTest, DecodesExactlyAtEveryDepth) {
  Result<ProgramImage> image = Workload(GetParam());
  if (!image.ok()) GTEST_SKIP() << GetParam() << " not built: " << image.status().ToString();
  for (const uint64_t interrupt_every : {uint64_t{0}, uint64_t{997}}) {
    const IssRun run = RunIss(*image, 600'000, interrupt_every);
    for (const uint32_t depth : {1u, 4u, 16u, 32u}) {
      for (const EncoderConfig& c : Configs(depth)) {
        const std::vector<uint8_t> bytes = Encode(run, c);
        EXPECT_EQ(Check(*image, run, bytes, depth), "")
            << GetParam() << ", " << Name(c) << ", interrupt every " << interrupt_every;
        // A decoder with a deeper stack (NexRv assumes 32) decodes it too.
        EXPECT_EQ(Check(*image, run, bytes, 32), "") << GetParam() << ", " << Name(c);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, ImplicitReturnWorkloadTest,
                         testing::Values("loop", "calls", "ptrchase", "sort", "switch",
                                         "traps"));

// The designated workload: deep calls. Strictly smaller with the feature, in HTM and BTM, with
// and without periodic sync; and a decoder told the wrong features reports errors.
TEST(ImplicitReturnTest, DeepCallsStreamIsStrictlySmallerAndWrongFeaturesAreCaught) {
  Result<ProgramImage> image = Workload("calls");
  if (!image.ok()) GTEST_SKIP() << "calls not built: " << image.status().ToString();
  const IssRun run = RunIss(*image, 600'000);
  for (const EncoderConfig& on : Configs(16)) {
    EncoderConfig off = on;
    off.features = {};
    const std::vector<uint8_t> with = Encode(run, on);
    const std::vector<uint8_t> without = Encode(run, off);
    EXPECT_LT(with.size(), without.size()) << Name(on);
    EXPECT_EQ(Check(*image, run, without, 0), "") << Name(off);
    // Feature on in the stream, off in the decoder: a return inside an I-CNT.
    EXPECT_NE(Check(*image, run, with, 0).find("decode error"), std::string::npos) << Name(on);
    // A shallower decoder stack than the encoder's: it evicted an entry the encoder used.
    // (With a sync every 64 half-words the stack never grows past 4 between two syncs, so
    // there a depth-4 decoder is right; without sync or by messages it is not.)
    if (on.sync_mode != 3) {
      EXPECT_NE(Check(*image, run, with, 4), "") << Name(on);
    }
    // Feature off in the stream, on in the decoder: still exact (every return is reported).
    EXPECT_EQ(Check(*image, run, without, 16), "") << Name(off);
  }
}

TEST(ImplicitReturnTest, FeaturesOffIsTheDefaultStream) {
  Result<ProgramImage> image = Workload("calls");
  if (!image.ok()) GTEST_SKIP() << "calls not built: " << image.status().ToString();
  const IssRun run = RunIss(*image, 100'000);
  EncoderConfig plain;
  EncoderConfig parsed;
  parsed.features = *ParseFeatures("none", "--features");
  EXPECT_EQ(Encode(run, plain), Encode(run, parsed));
}

TEST(ImplicitReturnTest, GeneratedProgramsWithSwapsAndDeepCallsRoundTrip) {
  ProgramGenOptions gen;
  gen.size = 300;
  gen.call_depth = 6;
  gen.max_dynamic = 20'000;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const GeneratedProgram prog = GenerateProgram(seed, gen);
    const ProgramImage image = prog.ToImage();
    const IssRun run = RunIss(image, 100'000, seed % 3 == 0 ? 101 + seed : 0);
    for (const uint32_t depth : {2u, 32u}) {
      for (const EncoderConfig& c : Configs(depth)) {
        EXPECT_EQ(Check(image, run, Encode(run, c), depth), "") << "seed " << seed << ", "
                                                                 << Name(c);
      }
    }
  }
}

}  // namespace
}  // namespace ctte::oracle
