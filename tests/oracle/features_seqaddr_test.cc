// Sequential jump, full addresses and the configuration message on the software side
// (docs/encoder-behaviour.md sections 11.7-11.9): reference encoder -> bytes -> decoder gives
// the ISS's PC sequence exactly, in HTM and BTM, with and without periodic sync, interrupts and
// pause/resume windows; sequential jump makes its designated workload (farcalls) strictly
// smaller, full addresses make every stream larger; a decoder with the wrong features reports an
// error or diverges; a stream with configuration messages configures its decoder.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/config_message.h"
#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"
#include "oracle/run_facts.h"
#include "oracle/seq_jump.h"
#include "tests/oracle/iss_run.h"

namespace ctte::oracle {
namespace {

using test_support::Configs;
using test_support::IssRun;
using test_support::Name;
using test_support::Workload;

TEST(SeqAddrFeaturesTest, ParsesTheNewNames) {
  Result<FeatureSet> f =
      ParseFeatures("sequential-jump,full-address,config-message,implicit-return:4", "x");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->sequential_jump && f->full_address && f->config_message);
  EXPECT_EQ(f->implicit_return_depth, 4u);
  EXPECT_EQ(FormatFeatures(*f), "implicit-return:4,sequential-jump,full-address,config-message");
  EXPECT_EQ(*ParseFeatures(FormatFeatures(*f), "x"), *f);
  for (const char* bad : {"sequential-jump:1", "full-address:3", "config-message:x"}) {
    EXPECT_FALSE(ParseFeatures(bad, "--features").ok()) << bad;
  }
}

TEST(SeqAddrFeaturesTest, InstructionForms) {
  const uint32_t lui_t1 = 0x12345337;    // lui t1, 0x12345
  const uint32_t auipc_ra = 0x00000097;  // auipc ra, 0
  const uint32_t lui_x0 = 0x12345037;    // lui x0 (a hint): not a setter
  const uint32_t c_lui_a0 = 0x7505;      // c.lui a0, 0x21 -> nzimm 0b100001 (negative)
  const uint32_t c_addi16sp = 0x7101;    // c.addi16sp (rd = x2): not a setter
  EXPECT_EQ(SequentialSetterRd(lui_t1), 6);
  EXPECT_EQ(SequentialSetterRd(auipc_ra), 1);
  EXPECT_EQ(SequentialSetterRd(lui_x0), 0);
  EXPECT_EQ(SequentialSetterRd(c_lui_a0), 10);
  EXPECT_EQ(SequentialSetterRd(c_addi16sp), 0);
  EXPECT_EQ(SequentialSetterRd(0x00000013), 0);  // nop
  const uint32_t jalr_ra_ra = 0x31e080e7;        // jalr ra, 798(ra)
  EXPECT_EQ(JalrRs1(jalr_ra_ra), 1);
  EXPECT_EQ(JalrRs1(0x8302), 6);   // c.jr t1
  EXPECT_EQ(JalrRs1(0x9502), 10);  // c.jalr a0
  EXPECT_EQ(JalrRs1(0x9002), 0);   // c.ebreak
  EXPECT_EQ(JalrRs1(0x00000013), 0);
  EXPECT_EQ(SequentialTarget(auipc_ra, 0x80000042, jalr_ra_ra), 0x80000360u);
  EXPECT_EQ(SequentialTarget(lui_t1, 0, 0x8302), 0x12345000u);
  EXPECT_EQ(SequentialTarget(c_lui_a0, 0, 0x9502), 0xFFFFFFFFFFFE1000ull);
  EXPECT_EQ(SequentialTarget(0x800002b7, 0, 0x00128067), 0xFFFFFFFF80000000ull);  // lui t0 ; jalr 1(t0)
}

IssRun RunIss(const ProgramImage& image, uint64_t interrupt_every) {
  return test_support::RunIss(image, 300'000, interrupt_every);
}

// Whole run, or with the window paused for beats [pause, resume): only the traced beats' PCs
// are expected then.
struct Encoded {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> pcs;  ///< what the decoder must give
};

Encoded EncodeTraced(const IssRun& run, const EncoderConfig& config, size_t pause = 0,
               size_t resume = 0) {
  ReferenceEncoder enc(config);
  Encoded e;
  enc.Open();
  for (size_t i = 0; i < run.beats.size(); ++i) {
    if (pause != resume && i == pause) enc.Close();
    if (pause != resume && i == resume) enc.Open();
    const bool traced = pause == resume || i < pause || i >= resume;
    enc.Beat(run.beats[i]);
    if (traced && run.beats[i].retires) e.pcs.push_back(run.beats[i].pc);
  }
  enc.Close();
  e.bytes = enc.bytes();
  return e;
}

// "" when decoding with `features` gives exactly `want`.
std::string Check(const ProgramImage& image, const std::vector<uint8_t>& bytes,
                  const std::vector<uint64_t>& want, const FeatureSet& features) {
  DecodeOptions opt;
  Reconstructor::ApplyFeatures(features, &opt.reconstruct);
  return test_support::DecodesTo(image, bytes, opt, want);
}

FeatureSet Only(const char* text) { return *ParseFeatures(text, "test"); }

class SeqAddrWorkloadTest : public testing::TestWithParam<const char*> {};

// Every feature set of this file (and with implicit return) decodes exactly on every workload.
TEST_P(SeqAddrWorkloadTest, EveryFeatureSetDecodesExactly) {
  Result<ProgramImage> image = Workload(GetParam());
  if (!image.ok()) GTEST_SKIP() << "workload not built: " << image.status().ToString();
  for (const uint64_t interrupt_every : {uint64_t{0}, uint64_t{997}}) {
    const IssRun run = RunIss(*image, interrupt_every);
    for (const char* set : {"sequential-jump", "full-address", "config-message",
                            "sequential-jump,implicit-return:16",
                            "implicit-return:4,sequential-jump,full-address,config-message",
                            "implicit-return:4,repeated-history,repeat-branch,sequential-jump,"
                            "full-address,config-message"}) {
      for (const EncoderConfig& c : Configs(Only(set))) {
        for (const size_t pause : {size_t{0}, run.beats.size() / 3}) {
          const Encoded e = EncodeTraced(run, c, pause, pause + pause / 2);
          EXPECT_EQ(Check(*image, e.bytes, e.pcs, c.features), "")
              << GetParam() << ", " << Name(c) << ", interrupt every " << interrupt_every
              << ", pause at " << pause;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, SeqAddrWorkloadTest,
                         testing::Values("loop", "calls", "ptrchase", "sort", "switch", "traps",
                                         "spin", "farcalls"));

// The designated workload of sequential jump: calls linked without relaxation.
TEST(SequentialJumpTest, FarCallsStreamIsStrictlySmallerAndWrongFeaturesAreCaught) {
  Result<ProgramImage> image = Workload("farcalls");
  if (!image.ok()) GTEST_SKIP() << "workload not built: " << image.status().ToString();
  for (const uint64_t interrupt_every : {uint64_t{0}, uint64_t{997}}) {
    const IssRun run = RunIss(*image, interrupt_every);
    for (const EncoderConfig& on : Configs(Only("sequential-jump"))) {
      EncoderConfig off = on;
      off.features = {};
      const Encoded with = EncodeTraced(run, on);
      const Encoded without = EncodeTraced(run, off);
      EXPECT_LT(with.bytes.size(), without.bytes.size()) << Name(on);
      EXPECT_EQ(Check(*image, with.bytes, with.pcs, on.features), "") << Name(on);
      // Feature on in the stream, off in the decoder: a jalr inside an I-CNT.
      EXPECT_NE(Check(*image, with.bytes, with.pcs, {}).find("decode error"), std::string::npos)
          << Name(on);
      // Off in the stream, on in the decoder: exact (section 11.7, a superset decoder).
      EXPECT_EQ(Check(*image, without.bytes, without.pcs, on.features), "") << Name(on);
    }
  }
}

// Full addresses: larger, different, exact; read with the wrong rule it diverges or errs.
TEST(FullAddressTest, StreamIsLargerAndDiffersAndWrongFeaturesAreCaught) {
  for (const char* w : {"calls", "switch", "ptrchase"}) {
    Result<ProgramImage> image = Workload(w);
    if (!image.ok()) GTEST_SKIP() << "workload not built: " << image.status().ToString();
    const IssRun run = RunIss(*image, 997);
    for (const EncoderConfig& on : Configs(Only("full-address"))) {
      EncoderConfig off = on;
      off.features = {};
      const Encoded with = EncodeTraced(run, on);
      const Encoded without = EncodeTraced(run, off);
      EXPECT_GT(with.bytes.size(), without.bytes.size()) << w << ", " << Name(on);
      EXPECT_NE(with.bytes, without.bytes) << w << ", " << Name(on);
      EXPECT_EQ(Check(*image, with.bytes, with.pcs, on.features), "") << w << ", " << Name(on);
      EXPECT_NE(Check(*image, with.bytes, with.pcs, {}), "") << w << ", " << Name(on);
      EXPECT_NE(Check(*image, without.bytes, without.pcs, on.features), "")
          << w << ", " << Name(on);
    }
  }
}

// The configuration message: before every SYNC=5 and nowhere else; the decoder configured from
// it decodes exactly; --features that disagree are named; the judges do not call it unknown.
TEST(ConfigMessageTest, StreamDescribesItselfAndConfiguresTheDecoder) {
  Result<ProgramImage> image = Workload("farcalls");
  if (!image.ok()) GTEST_SKIP() << "workload not built: " << image.status().ToString();
  const IssRun run = RunIss(*image, 997);
  for (const EncoderConfig& c :
       Configs(Only("implicit-return:16,sequential-jump,config-message"))) {
    const size_t pause = run.beats.size() / 3;
    const Encoded e = EncodeTraced(run, c, pause, 2 * pause);
    Result<std::vector<StreamConfig>> found = FindConfigMessages(e.bytes);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    ASSERT_EQ(found->size(), 2u) << Name(c);  // two windows
    for (const StreamConfig& s : *found) {
      EXPECT_EQ(s.version, 1u);
      EXPECT_EQ(s.compiled, kImplementedFeatureBits);
      EXPECT_EQ(s.depth, 16u);
      EXPECT_EQ(s.features, c.features);
      size_t end = s.offset;
      while ((e.bytes[end] & 3) != 3) ++end;
      ASSERT_LT(end + 2, e.bytes.size());
      EXPECT_EQ(e.bytes[end + 1] >> 2, 9) << "a ProgTraceSync follows";
      EXPECT_EQ((e.bytes[end + 2] >> 2) & 15, 5) << "with SYNC=5";
    }
    Result<FeatureChoice> choice = ChooseFeatures(e.bytes, nullptr);
    ASSERT_TRUE(choice.ok());
    EXPECT_EQ(choice->features, c.features);
    EXPECT_TRUE(choice->mismatch.empty());
    EXPECT_EQ(Check(*image, e.bytes, e.pcs, choice->features), "") << Name(c);
    const FeatureSet wrong = Only("sequential-jump");
    choice = ChooseFeatures(e.bytes, &wrong);
    ASSERT_TRUE(choice.ok());
    EXPECT_NE(choice->mismatch.find("says implicit-return:16,sequential-jump,config-message, "
                                    "--features says sequential-jump"),
              std::string::npos)
        << choice->mismatch;
    const DecodedStream d = DecodeForJudging(e.bytes, *image, c.mode, c.features);
    EXPECT_TRUE(d.problems.empty()) << d.problems.front().reason;
    EXPECT_EQ(d.pcs, e.pcs);
  }
  // Without the feature there is none, and the stream is the N-Trace 1.0 one.
  EncoderConfig plain;
  EXPECT_TRUE(FindConfigMessages(EncodeTraced(run, plain).bytes)->empty());
  // A malformed one (VERSION 2) is an error naming its offset.
  std::vector<uint8_t> bad;
  AppendConfigMessage(1, Only("implicit-return:3"), &bad);
  EXPECT_TRUE(FindConfigMessages(bad).ok());
  bad[1] = 2 << 2;
  Result<std::vector<StreamConfig>> r = FindConfigMessages(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("byte offset 0: VERSION 2"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace ctte::oracle
