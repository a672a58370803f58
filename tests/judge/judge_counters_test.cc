// The reference encoder replayed from each loss anchor (issue 32, oracle/loss_replay.h): on every
// golden capture (tests/judge/captures, docs/test-captures.md), main and twin, the records the
// dropped beats form equal ctteRecordsDropped and every segment between losses equals the replay
// byte for byte (docs/verdicts.md "counter_consistency", decode_integrity "segment_bytes");
// counting one record more per episode (test mutant 13, mutant-dropped-skew) turns
// counter_consistency red, and post-recovery bytes that decode to the same PCs (test mutant 16,
// mutant-recovery-sync) turn decode_integrity red.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "oracle/loss_replay.h"
#include "tests/judge/judge_fixture.h"

namespace ctte::testing {
namespace {

using oracle::Outcome;
using oracle::VerdictCode;

struct Golden {
  std::string file;
  std::unique_ptr<CapturedRun> run;
};

std::vector<Golden> LoadEveryGolden(std::string* error) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kCaptureDir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<Golden> out;
  for (const std::string& f : files) {
    Result<CaptureRequest> q = ReadCaptureRequest(f);
    if (!q.ok() || q->pending) continue;  // JudgeCapturesTest reports those
    // A test mutant's capture is red by design (DroppedSkewMutantCapture... below).
    if (q->config.image.starts_with("mutant-")) continue;
    auto r = CaptureRun(q->config, TestOptions(q->max_instructions), /*twin=*/true);
    if (!r.ok()) {
      *error = f + ": " + r.status().ToString();
      return {};
    }
    out.push_back({std::filesystem::path(f).filename().string(), std::move(*r)});
  }
  return out;
}

class JudgeCountersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!HaveWorkloads(&why)) {
      skip_ = why;
      return;
    }
    goldens_ = new std::vector<Golden>(LoadEveryGolden(&error_));
  }
  static void TearDownTestSuite() {
    delete goldens_;
    goldens_ = nullptr;
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    if (!error_.empty()) FAIL() << error_;
  }
  static inline std::vector<Golden>* goldens_ = nullptr;
  static inline std::string skip_;
  static inline std::string error_;
};

TEST_F(JudgeCountersTest, RecordsDroppedEqualTheDroppedBeatsOfEveryGoldenCapture) {
  uint64_t lossy = 0, episodes = 0, exact = 0;
  oracle::LossCoverage cover;
  for (const Golden& g : *goldens_) {
    for (const bool twin : {false, true}) {
      SCOPED_TRACE(g.file + (twin ? " (twin)" : " (main)"));
      oracle::Observed o = g.run->Observe();
      if (twin) {
        o.capture = *o.twin_capture;
        o.stream = *o.twin_stream();
      }
      const oracle::Judgement j = oracle::JudgeRun(g.run->run.expected, o);
      const oracle::Verdict& v = Find(j, VerdictCode::kCounterConsistency);
      EXPECT_EQ(v.outcome, Outcome::kPass) << v.ToString();
      const oracle::LossReplay lr =
          oracle::ReplayLosses(g.run->run.expected, o.stream, j.alignment);
      const oracle::DroppedRecords& dr = lr.dropped;
      const oracle::ReplayedSegments& sb = lr.segments;
      EXPECT_EQ(sb.differing, 0u) << sb.first_differing << " / " << sb.first_not_compared;
      EXPECT_EQ(Find(j, VerdictCode::kDecodeIntegrity).outcome, Outcome::kPass);
      EXPECT_EQ(dr.episodes, o.capture.overflow_episodes);
      EXPECT_LE(dr.min(), o.capture.records_dropped);
      EXPECT_GE(dr.max(), o.capture.records_dropped);
      if (dr.episodes == 0) continue;
      const oracle::LossCoverage& lc = lr.coverage;
      EXPECT_LE(lc.drops, dr.episodes);
      for (const uint64_t n : {lc.return_stack, lc.hist, lc.held_repeat, lc.seq_jump_setter}) {
        EXPECT_LE(n, lc.drops);
      }
      // The run metrics carry the same coverage (JudgeRun replays once for every reader).
      EXPECT_EQ(j.metrics.loss_coverage.drops, lc.drops);
      cover.drops += lc.drops;
      cover.return_stack += lc.return_stack;
      cover.hist += lc.hist;
      cover.held_repeat += lc.held_repeat;
      cover.seq_jump_setter += lc.seq_jump_setter;
      ++lossy;
      episodes += dr.episodes;
      exact += dr.exact_episodes;
      std::cout << g.file << (twin ? " twin" : " main") << ": " << dr.exact_episodes << " of "
                << dr.episodes << " episodes exact"
                << (dr.first_bounded.empty() ? "" : " (first bounded: " + dr.first_bounded + ")")
                << "; " << sb.equal << " of " << sb.segments << " segments byte for byte"
                << (sb.first_not_compared.empty() ? ""
                                                  : " (first not compared: " +
                                                        sb.first_not_compared + ")")
                << "\n";
    }
  }
  ASSERT_GT(lossy, 0u) << "no golden capture overflows";
  std::cout << "loss coverage: " << cover.drops << " drops found; with return-stack entries "
            << cover.return_stack << ", HIST bits " << cover.hist << ", a held repeat "
            << cover.held_repeat << ", a sequential-jump setter " << cover.seq_jump_setter
            << "\n";
  // The captures exercise the state the recovery checks guard: HIST (HTM), the return stack
  // and a held repeat (the full profile's implicit return and repeat stage).
  EXPECT_GT(cover.hist, 0u);
  EXPECT_GT(cover.return_stack, 0u);
  EXPECT_GT(cover.held_repeat, 0u);
  // Most episodes are exact: only ambiguous (loop) placements are left bounded.
  EXPECT_GT(exact * 2, episodes) << exact << " of " << episodes << " episodes exact";
}

TEST_F(JudgeCountersTest, OneMoreRecordPerEpisodeFailsCounterConsistency) {
  int skewed = 0;
  for (const Golden& g : *goldens_) {
    SCOPED_TRACE(g.file);
    oracle::Observed o = g.run->Observe();
    if (o.capture.overflow_episodes == 0) continue;
    const oracle::Alignment a = oracle::Align(g.run->run.expected, o.stream);
    const oracle::DroppedRecords dr = oracle::ReplayLosses(g.run->run.expected, o.stream, a).dropped;
    // As mutant-dropped-skew counts: one more record per overflow episode.
    o.capture.records_dropped += o.capture.overflow_episodes;
    const oracle::Judgement j = oracle::JudgeRun(g.run->run.expected, o);
    const oracle::Verdict& v = Find(j, VerdictCode::kCounterConsistency);
    if (dr.exact()) {
      EXPECT_EQ(v.outcome, Outcome::kFail) << v.ToString();
      EXPECT_EQ(v.evidence.rule, "dropped_exact") << v.ToString();
      ++skewed;
    } else if (o.capture.records_dropped > dr.max()) {
      EXPECT_EQ(v.outcome, Outcome::kFail) << v.ToString();
      EXPECT_EQ(v.evidence.rule, "dropped_bound") << v.ToString();
      ++skewed;
    }
    // One record fewer than the episodes is below every bound.
    o.capture.records_dropped = o.capture.overflow_episodes - 1;
    EXPECT_EQ(Find(oracle::JudgeRun(g.run->run.expected, o), VerdictCode::kCounterConsistency)
                  .outcome,
              Outcome::kFail);
  }
  EXPECT_GT(skewed, 0) << "no lossy golden capture could show the skew";
}

// The test mutant itself, captured (mutant-dropped-skew, docs/mutants.md 13): the lossy
// configuration of JudgeNegativeTest on the mutant image. Its stream is the clean image's byte for
// byte (only the counter differs, by one record per episode), and counter_consistency, alone, is
// red with dropped_exact; the clean capture of the same configuration passes all eight.
TEST_F(JudgeCountersTest, DroppedSkewMutantCaptureIsRedOnCounterConsistencyAlone) {
  runner::RunConfig b = LossyPauseResumeConfig("mutant-dropped-skew");
  auto mutant = CaptureRun(b, TestOptions(20'000), /*twin=*/true);
  ASSERT_TRUE(mutant.ok()) << mutant.status().ToString();
  b.image = "ntrace-shallow";
  auto clean = CaptureRun(b, TestOptions(20'000), /*twin=*/true);
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();

  const oracle::Observed mo = (*mutant)->Observe();
  const oracle::Observed co = (*clean)->Observe();
  ASSERT_GT(co.capture.overflow_episodes, 0u);
  EXPECT_EQ((*mutant)->capture.bytes, (*clean)->capture.bytes);
  EXPECT_EQ(mo.capture.overflow_episodes, co.capture.overflow_episodes);
  EXPECT_EQ(mo.capture.records_dropped, co.capture.records_dropped + co.capture.overflow_episodes);

  const oracle::Judgement red = oracle::JudgeRun((*mutant)->run.expected, mo);
  for (const oracle::Verdict& v : red.verdicts) {
    if (v.code == VerdictCode::kCounterConsistency) {
      EXPECT_EQ(v.outcome, Outcome::kFail) << v.ToString();
      EXPECT_EQ(v.evidence.rule, "dropped_exact") << v.ToString();
    } else {
      EXPECT_FALSE(v.failed()) << v.ToString();
    }
  }
  const oracle::Judgement green = oracle::JudgeRun((*clean)->run.expected, co);
  EXPECT_FALSE(green.red()) << Describe(green);
}

// Test mutant 16 keeps its periodic-sync count over a loss, so its next periodic sync after a
// recovery comes early: the same PCs decode (every PC check passes) but the bytes after the
// recovery are not the contract's. decode_integrity's segment_bytes is red on it, alone; the
// clean image of the same configuration is green with every segment compared.
TEST_F(JudgeCountersTest, RecoverySyncMutantIsRedOnSegmentBytesAlone) {
  runner::RunConfig b = LossyPauseResumeConfig("mutant-recovery-sync");
  b.sync = "messages:4";
  b.sync_params = {runner::SyncPolicy::Kind::kMessages, 4};
  auto mutant = CaptureRun(b, TestOptions(20'000), /*twin=*/false);
  ASSERT_TRUE(mutant.ok()) << mutant.status().ToString();
  b.image = "ntrace-shallow";
  auto clean = CaptureRun(b, TestOptions(20'000), /*twin=*/false);
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();

  const oracle::Observed mo = (*mutant)->Observe();
  const oracle::Observed co = (*clean)->Observe();
  ASSERT_GT(co.capture.overflow_episodes, 0u);
  ASSERT_GT(mo.capture.overflow_episodes, 0u);
  EXPECT_NE((*mutant)->capture.bytes, (*clean)->capture.bytes);

  const oracle::Judgement red = oracle::JudgeRun((*mutant)->run.expected, mo);
  for (const oracle::Verdict& v : red.verdicts) {
    if (v.code == VerdictCode::kDecodeIntegrity) {
      EXPECT_EQ(v.outcome, Outcome::kFail) << v.ToString();
      EXPECT_EQ(v.evidence.rule, "segment_bytes") << v.ToString();
    } else {
      EXPECT_FALSE(v.failed()) << v.ToString();
    }
  }
  const oracle::Judgement green = oracle::JudgeRun((*clean)->run.expected, co);
  EXPECT_FALSE(green.red()) << Describe(green);
  const oracle::LossReplay lr =
      oracle::ReplayLosses((*clean)->run.expected, co.stream, green.alignment);
  EXPECT_GT(lr.segments.equal, 0u);
  EXPECT_EQ(lr.segments.differing, 0u) << lr.segments.first_differing;
}

}  // namespace
}  // namespace ctte::testing
