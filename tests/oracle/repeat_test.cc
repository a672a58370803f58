// Repeated history (ResourceFull RCODE 2 + HREPEAT) and RepeatBranch (TCODE 30 + B-CNT) on the
// software side (docs/encoder-behaviour.md sections 11.3-11.5): the repeat stage on synthetic
// record sequences (runs, different records, syncs, full counters), then reference encoder ->
// bytes -> decoder on every workload and on generated programs: the decoded PCs equal the
// ISS's exactly, the designated workload's stream is strictly smaller with the feature, and a
// decoder without the feature reports a decode error instead of passing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/ntrace_reader.h"
#include "oracle/ntrace_writer.h"
#include "oracle/program_gen.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"
#include "oracle/repeat_model.h"
#include "tests/oracle/iss_run.h"

namespace ctte::oracle {
namespace {

using test_support::IssRun;
using test_support::RunIss;
using test_support::Encode;
using test_support::Name;
using test_support::Workload;

constexpr uint64_t kFullHist = 0xFFFFFFFFu;  // 31 taken branches + the stop bit

std::vector<Message> Feed(RepeatStage* st, const std::vector<Message>& in) {
  std::vector<Message> out;
  for (const Message& m : in) st->Push(m, &out);
  return out;
}

std::string Str(const std::vector<Message>& v) {
  std::string s;
  for (const Message& m : v) s += m.ToString() + "; ";
  return s;
}

TEST(RepeatStageTest, HistRunsBecomeOneRcode2WithTheTotalCount) {
  RepeatStage st(true, false);
  const Message h = Message::ResourceFull(kRcodeHist, kFullHist);
  const Message end = Message::IndirectBranchHist(0, 5, 3, 1);
  const auto out = Feed(&st, {h, h, h, end});
  ASSERT_EQ(out.size(), 2u) << Str(out);
  EXPECT_EQ(out[0].get(Field::kRcode), kRcodeHistRepeat);
  EXPECT_EQ(out[0].get(Field::kRdata), kFullHist);
  EXPECT_EQ(out[0].get(Field::kHrepeat), 3u);  // HREPEAT is the total count
  EXPECT_EQ(out[1].tcode, end.tcode);
  EXPECT_FALSE(st.holding());
  // One alone stays RCODE 1; a different HIST ends the run; so does a sync.
  const Message g = Message::ResourceFull(kRcodeHist, 0x80000001u);
  const Message sync = Message::IndirectBranchHistSync(kSyncPeriodic, 0, 1, 0x400, 1);
  const auto out2 = Feed(&st, {h, g, g, sync});
  ASSERT_EQ(out2.size(), 3u) << Str(out2);
  EXPECT_EQ(out2[0].get(Field::kRcode), kRcodeHist);
  EXPECT_EQ(out2[1].get(Field::kHrepeat), 2u);
  EXPECT_TRUE(out2[2].is_sync());
  EXPECT_FALSE(st.holding());
  // Off: a wire.
  RepeatStage off(false, false);
  EXPECT_EQ(Feed(&off, {h, h, end}).size(), 3u);
}

TEST(RepeatStageTest, AFullHrepeatGoesOutAndANewRunStarts) {
  RepeatStage st(true, false);
  const Message h = Message::ResourceFull(kRcodeHist, kFullHist);
  std::vector<Message> out;
  for (uint64_t i = 0; i < kMaxRepeatCount + 2; ++i) st.Push(h, &out);
  st.Push(Message::ProgTraceCorrelation(kEvTraceDisabled, 1, 0, 1), &out);
  ASSERT_EQ(out.size(), 3u) << Str(out);
  EXPECT_EQ(out[0].get(Field::kHrepeat), kMaxRepeatCount);
  EXPECT_EQ(out[1].get(Field::kHrepeat), 2u);
  EXPECT_EQ(out[2].type(), Tcode::kProgTraceCorrelation);
}

TEST(RepeatStageTest, IdenticalBranchesBecomeRepeatBranchWithExtraRepetitions) {
  RepeatStage st(false, true);
  const Message db = Message::DirectBranch(7);
  const Message other = Message::DirectBranch(9);
  auto out = Feed(&st, {db, db, db, db, other});
  ASSERT_EQ(out.size(), 3u) << Str(out);
  EXPECT_EQ(out[0].tcode, db.tcode);
  EXPECT_EQ(out[1].type(), Tcode::kRepeatBranch);
  EXPECT_EQ(out[1].get(Field::kBcnt), 3u);  // B-CNT counts the extra repetitions
  EXPECT_EQ(out[2].get(Field::kIcnt), 9u);
  // An IndirectBranch repeats only with U-ADDR 0 (same target); a non-zero one never.
  const Message ib0 = Message::IndirectBranch(0, 4, 0);
  const Message ib1 = Message::IndirectBranch(0, 4, 6);
  out = Feed(&st, {ib1, ib1, ib0, ib0, ib0, Message::Error(0, kEcodeProgramTraceLost)});
  ASSERT_EQ(out.size(), 5u) << Str(out);
  EXPECT_EQ(out[3].get(Field::kBcnt), 2u);
  EXPECT_EQ(out[4].type(), Tcode::kError);
  // Any record between two identical branches breaks the run; a sync flushes and forgets.
  out = Feed(&st, {db, Message::ResourceFull(kRcodeIcnt, 5), db, db,
                  Message::ProgTraceSync(kSyncOverrunRestart, 0, 0x400), db});
  ASSERT_EQ(out.size(), 6u) << Str(out);
  EXPECT_EQ(out[3].type(), Tcode::kRepeatBranch);
  EXPECT_TRUE(out[4].is_sync());
  EXPECT_EQ(out[5].type(), Tcode::kDirectBranch);
}

TEST(RepeatStageTest, AFullBcntGoesOutAndCountingGoesOn) {
  RepeatStage st(false, true);
  const Message db = Message::DirectBranch(3);
  std::vector<Message> out;
  for (uint64_t i = 0; i < kMaxRepeatCount + 3; ++i) st.Push(db, &out);
  st.Push(Message::ProgTraceCorrelation(kEvTraceDisabled, 0, 0, 1), &out);
  ASSERT_EQ(out.size(), 4u) << Str(out);
  EXPECT_EQ(out[1].get(Field::kBcnt), kMaxRepeatCount);
  EXPECT_EQ(out[2].get(Field::kBcnt), 2u);  // the full count, then 2 more
}

// "" when decoding `bytes` with decoder features `f` gives the ISS's PCs exactly.
std::string Check(const ProgramImage& image, const IssRun& run, const std::vector<uint8_t>& bytes,
                  const FeatureSet& f) {
  DecodeOptions opt;
  opt.reconstruct.implicit_return_depth = f.implicit_return_depth;
  opt.reconstruct.repeated_history = f.repeated_history;
  opt.reconstruct.repeat_branch = f.repeat_branch;
  return test_support::DecodesTo(image, bytes, opt, run.pcs);
}

std::vector<EncoderConfig> Configs(const FeatureSet& f) {
  return test_support::Configs(f, {{0, 0}, {1, 0}, {3, 2}, {3, 8}});
}


std::vector<FeatureSet> FeatureSets() {
  std::vector<FeatureSet> v;
  for (const char* s : {"repeated-history", "repeat-branch", "repeated-history,repeat-branch",
                        "implicit-return:16,repeated-history,repeat-branch"}) {
    v.push_back(*ParseFeatures(s, "test"));
  }
  return v;
}

class RepeatWorkloadTest : public testing::TestWithParam<const char*> {};

TEST_P(RepeatWorkloadTest, DecodesExactlyWithEveryFeatureSet) {
  Result<ProgramImage> image = Workload(GetParam());
  if (!image.ok()) GTEST_SKIP() << GetParam() << " not built: " << image.status().ToString();
  for (const uint64_t interrupt_every : {uint64_t{0}, uint64_t{997}}) {
    const IssRun run = RunIss(*image, 300'000, interrupt_every);
    for (const FeatureSet& f : FeatureSets()) {
      for (const EncoderConfig& c : Configs(f)) {
        EXPECT_EQ(Check(*image, run, Encode(run, c), f), "")
            << GetParam() << ", " << Name(c) << ", interrupt every " << interrupt_every;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, RepeatWorkloadTest,
                         testing::Values("loop", "calls", "ptrchase", "sort", "switch",
                                         "traps", "spin"));

// The designated workload: spin (a tight loop whose branch repeats exactly; the `loop`
// workload's branch is data-dependent, so its history never repeats), repeated history in HTM
// and RepeatBranch in BTM.
// Strictly smaller than features off with and without periodic sync, exact, and a decoder
// without the feature reports a decode error.
TEST(RepeatTest, TightLoopIsStrictlySmallerAndWrongFeaturesAreCaught) {
  Result<ProgramImage> image = Workload("spin");
  if (!image.ok()) GTEST_SKIP() << "spin not built: " << image.status().ToString();
  const IssRun run = RunIss(*image, 300'000);
  const FeatureSet rh = *ParseFeatures("repeated-history", "t");
  const FeatureSet rb = *ParseFeatures("repeat-branch", "t");
  for (const auto& [f, mode] : {std::pair{rh, TraceMode::kHtm}, {rb, TraceMode::kBtm}}) {
    for (EncoderConfig on : Configs(f)) {
      if (on.mode != mode) continue;
      // A sync every 64 half-words comes before 31 branches fill HIST: no RCODE 1 to repeat.
      if (mode == TraceMode::kHtm && on.sync_mode == 3 && on.sync_max == 2) continue;
      EncoderConfig off = on;
      off.features = {};
      const std::vector<uint8_t> with = Encode(run, on);
      const std::vector<uint8_t> without = Encode(run, off);
      EXPECT_LT(with.size(), without.size()) << Name(on);
      EXPECT_EQ(Check(*image, run, with, f), "") << Name(on);
      EXPECT_NE(Check(*image, run, with, FeatureSet{}).find("decode error"), std::string::npos)
          << Name(on);
      // Feature off in the stream, on in the decoder: exact.
      EXPECT_EQ(Check(*image, run, without, f), "") << Name(off);
    }
  }
}

TEST(RepeatTest, GeneratedProgramsRoundTrip) {
  ProgramGenOptions gen;
  gen.size = 200;
  gen.max_dynamic = 20'000;
  const FeatureSet f = *ParseFeatures("implicit-return:8,repeated-history,repeat-branch", "t");
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const GeneratedProgram prog = GenerateProgram(seed, gen);
    const ProgramImage image = prog.ToImage();
    const IssRun run = RunIss(image, 100'000, seed % 3 == 0 ? 101 + seed : 0);
    for (const EncoderConfig& c : Configs(f)) {
      EXPECT_EQ(Check(image, run, Encode(run, c), f), "") << "seed " << seed << ", " << Name(c);
    }
  }
}

// Other encoders may split history differently (spec section 11: any split with the same
// concatenated bits is legal): short RDATA with a large HREPEAT, mixed with RCODE 1.
TEST(RepeatTest, DecoderAcceptsEveryLegalSplitOfHistory) {
  Result<ProgramImage> image = Workload("spin");
  if (!image.ok()) GTEST_SKIP() << "spin not built: " << image.status().ToString();
  const IssRun run = RunIss(*image, 50'000);
  EncoderConfig c;
  const std::vector<uint8_t> ref = Encode(run, c);
  // Re-split every RCODE 1 record of the plain stream: 31 history bits as 31 x "1" ones
  // (RDATA 0b11, HREPEAT 31) when they are all taken, else as RCODE 1 pieces of any width.
  std::vector<Message> msgs;
  {
    struct Keep : MessageReader::Reporter {
      void Corruption(uint64_t, uint64_t, const std::string&) override { ADD_FAILURE(); }
      void Skipped(const Message&, const std::string&) override {}
    } keep;
    MessageReader reader(ref, &keep);
    Message m;
    while (reader.Next(&m)) msgs.push_back(m);
  }
  std::vector<uint8_t> split;
  int resplit = 0;
  for (const Message& m : msgs) {
    if (m.type() == Tcode::kResourceFull && m.get(Field::kRcode) == kRcodeHist &&
        m.get(Field::kRdata) == kFullHist) {
      Message a = Message::ResourceFull(kRcodeHistRepeat, 0b11);
      a.set(Field::kHrepeat, 30);
      MessageWriter().Append(a, &split);
      MessageWriter().Append(Message::ResourceFull(kRcodeHist, 0b11), &split);
      ++resplit;
    } else {
      Message w = m;
      MessageWriter().Append(w, &split);
    }
  }
  ASSERT_GT(resplit, 0);
  EXPECT_EQ(Check(*image, run, split, *ParseFeatures("repeated-history", "t")), "");
}

}  // namespace
}  // namespace ctte::oracle
