// The run status rules and the outcome's db edge (runner/outcome.h), without boards.
#include "runner/outcome.h"
#include "runner/replay.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace ctte::runner {
namespace {

oracle::Verdict Verdict(oracle::VerdictCode code, oracle::Outcome outcome) {
  oracle::Verdict v;
  v.code = code;
  v.outcome = outcome;
  v.evidence.message = "evidence";
  return v;
}

TEST(OutcomeTest, NoFailedVerdictIsGreenAndTheFirstFailureMakesItRed) {
  RunOutcome out;
  out.verdicts = {Verdict(oracle::VerdictCode::kDecodeIntegrity, oracle::Outcome::kPass),
                  Verdict(oracle::VerdictCode::kDeterminism, oracle::Outcome::kNotApplicable)};
  ClassifyJudged(false, 10, 100, &out);
  EXPECT_EQ(out.status, RunStatus::kGreen);
  EXPECT_EQ(out.status_reason, "");
  out.verdicts.push_back(Verdict(oracle::VerdictCode::kLiveness, oracle::Outcome::kFail));
  ClassifyJudged(false, 10, 100, &out);
  EXPECT_EQ(out.status, RunStatus::kRed);
  EXPECT_EQ(out.status_reason, out.verdicts.back().ToString());
}

TEST(OutcomeTest, AWrappedRingMakesEvenARedRunInvalid) {
  RunOutcome out;
  out.verdicts = {Verdict(oracle::VerdictCode::kLiveness, oracle::Outcome::kFail)};
  ClassifyJudged(true, 300, 256, &out);
  EXPECT_EQ(out.status, RunStatus::kInvalid);
  EXPECT_EQ(out.status_reason, "capture ring wrapped: 300 bytes received, ring holds 256");
}

TEST(OutcomeTest, ASessionEndClassifiesTheRun) {
  BoardSession s;
  s.end = BoardSession::End::kInfra;
  s.cause = InfraCause::kClosureGate;
  s.reason = "closure gate: too fast";
  RunOutcome out;
  ApplySession(s, "", &out);
  EXPECT_EQ(out.status, RunStatus::kInfra);
  EXPECT_EQ(out.cause, InfraCause::kClosureGate);
  EXPECT_FALSE(IsRetryable(out.cause));

  s.end = BoardSession::End::kRtlAssertion;
  s.cause = InfraCause::kNone;
  s.reason = "fifo overflow";
  RunOutcome twin;
  ApplySession(s, "twin: ", &twin);
  EXPECT_EQ(twin.status, RunStatus::kRed);
  EXPECT_EQ(twin.status_reason, "twin: fifo overflow");
  // Eight verdicts n/a with the reason (#29: every run carries eight), then rtl_assertion.
  ASSERT_EQ(twin.verdicts.size(), 9u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(twin.verdicts[i].code, oracle::AllVerdictCodes()[i]);
    EXPECT_EQ(twin.verdicts[i].outcome, oracle::Outcome::kNotApplicable);
    EXPECT_EQ(twin.verdicts[i].evidence.message,
              "not judged: the run stopped on an RTL assertion (twin: fifo overflow)");
  }
  EXPECT_EQ(twin.verdicts[8].code, oracle::VerdictCode::kRtlAssertion);
  EXPECT_EQ(twin.verdicts[8].outcome, oracle::Outcome::kFail);
  EXPECT_EQ(twin.verdicts[8].evidence.rule, "rtl_assertion");
  EXPECT_EQ(twin.verdicts[8].evidence.message, "twin: fifo overflow");
  EXPECT_EQ(twin.VerdictRecords().size(), 9u);
  // A main run judged before its twin stopped keeps its own eight.
  RunOutcome judged;
  for (size_t i = 0; i < 8; ++i) {
    oracle::Verdict v;
    v.code = oracle::AllVerdictCodes()[i];
    v.outcome = oracle::Outcome::kPass;
    judged.verdicts.push_back(v);
  }
  ApplySession(s, "twin: ", &judged);
  ASSERT_EQ(judged.verdicts.size(), 9u);
  EXPECT_EQ(judged.verdicts[0].outcome, oracle::Outcome::kPass);
  EXPECT_EQ(judged.verdicts[8].code, oracle::VerdictCode::kRtlAssertion);

  s.end = BoardSession::End::kInvalid;
  s.reason = "fabric clock read back 1 Hz";
  RunOutcome invalid;
  ApplySession(s, "", &invalid);
  EXPECT_EQ(invalid.status, RunStatus::kInvalid);
  EXPECT_EQ(invalid.cause, InfraCause::kNone);
}

TEST(OutcomeTest, OnlyBoardFailuresAreRetried) {
  EXPECT_FALSE(IsRetryable(InfraCause::kNone));
  EXPECT_FALSE(IsRetryable(InfraCause::kPrepare));
  EXPECT_FALSE(IsRetryable(InfraCause::kClosureGate));
  EXPECT_FALSE(IsRetryable(InfraCause::kManifestMismatch));
  EXPECT_STREQ(InfraCauseName(InfraCause::kManifestMismatch), "manifest_mismatch");
  for (InfraCause c : {InfraCause::kDeploy, InfraCause::kIdentity, InfraCause::kClock,
                       InfraCause::kBoardDied, InfraCause::kBoardTimeout,
                       InfraCause::kBoardError}) {
    EXPECT_TRUE(IsRetryable(c)) << InfraCauseName(c);
  }
}

TEST(OutcomeTest, StatusNamesRoundTripAndMapToTheDbText) {
  for (RunStatus s : {RunStatus::kGreen, RunStatus::kRed, RunStatus::kInvalid, RunStatus::kInfra}) {
    EXPECT_EQ(ParseRunStatus(RunStatusName(s)), s);
    EXPECT_STREQ(db::RunStatusName(ToDbStatus(s)), RunStatusName(s));
  }
  EXPECT_FALSE(ParseRunStatus("planned").has_value());
  // One conversion each way (#29).
  for (RunStatus s : {RunStatus::kGreen, RunStatus::kRed, RunStatus::kInvalid, RunStatus::kInfra}) {
    EXPECT_EQ(FromDbStatus(ToDbStatus(s)), s);
  }
  EXPECT_FALSE(FromDbStatus(db::RunStatus::kPlanned).has_value());
}

// #29 "one status vocabulary": a clock or ring-capacity failure was "clock" in the soak's log
// and `replay` but "other" in `show`, `history` and the reports. Every cause is now stored
// under the runner's own token, distinct from every other cause's, and parses back; the tokens
// of older rows still parse.
TEST(OutcomeTest, EveryRunnerCauseIsStoredUnderItsOwnToken) {
  std::set<std::string> stored;
  for (InfraCause c : {InfraCause::kPrepare, InfraCause::kDeploy, InfraCause::kIdentity,
                       InfraCause::kClock, InfraCause::kClosureGate, InfraCause::kBoardDied,
                       InfraCause::kBoardTimeout, InfraCause::kBoardError,
                       InfraCause::kManifestMismatch, InfraCause::kRingCapacity}) {
    const db::InfraCause d = ToDbInfraCause(c);
    EXPECT_STREQ(db::InfraCauseName(d), InfraCauseName(c));
    EXPECT_EQ(db::ParseInfraCause(InfraCauseName(c)), d) << InfraCauseName(c);
    EXPECT_TRUE(stored.insert(db::InfraCauseName(d)).second) << InfraCauseName(c);
  }
  for (const char* old : {"protocol", "database", "interrupted", "other"}) {
    EXPECT_TRUE(db::ParseInfraCause(old).has_value()) << old;
  }
}

// One reader of a stored run's reason, whatever metrics_json holds (`show` aborted with exit 134
// on {"status_reason": 5}).
TEST(OutcomeTest, TheStoredReasonIsReadWhateverMetricsJsonHolds) {
  EXPECT_EQ(db::StatusReasonOf("{\"status_reason\":\"prepare: no workload\"}"), "prepare: no workload");
  EXPECT_EQ(db::StatusReasonOf("{\"status_reason\":5}"), "");
  EXPECT_EQ(db::StatusReasonOf("{\"status_reason\":null}"), "");
  EXPECT_EQ(db::StatusReasonOf("[\"status_reason\"]"), "");
  EXPECT_EQ(db::StatusReasonOf("not json"), "");
  EXPECT_EQ(db::StatusReasonOf(""), "");
  RunConfig c;
  const db::RunRecord rec = StoredRunRecord(PrepareFailedOutcome(c, Status::NotFound("x.elf")));
  EXPECT_EQ(db::StatusReasonOf(rec.metrics_json), PrepareFailedOutcome(c, Status::NotFound("x.elf")).status_reason);
}

TEST(OutcomeTest, TheStoredRowCarriesTheReasonInMetricsJson) {
  RunConfig c;
  c.image = "ntrace-slim";
  RunOutcome out = PrepareFailedOutcome(c, Status::NotFound("no workload ELF x.elf"));
  EXPECT_EQ(out.cause, InfraCause::kPrepare);
  const db::RunRecord rec = StoredRunRecord(out);
  EXPECT_EQ(rec.status, db::RunStatus::kInfra);
  EXPECT_EQ(rec.image_name, "ntrace-slim");
  EXPECT_EQ(rec.counters_json, "");
  EXPECT_EQ(rec.metrics_json, "{\"status_reason\":\"" + out.status_reason + "\"}");

  out.capture = lab::Capture{};
  out.capture->core_stop = "exited";
  out.status_reason.clear();
  const db::RunRecord judged = StoredRunRecord(out);
  EXPECT_NE(judged.metrics_json.find("\"core_stop\":\"exited\""), std::string::npos);
  EXPECT_EQ(judged.metrics_json.find("status_reason"), std::string::npos);
  EXPECT_EQ(judged.metrics_json, out.ToRunRecord().metrics_json);
  EXPECT_NE(judged.counters_json.find("\"ring_wrapped\":false"), std::string::npos);
}

// The stored row keeps the first kStoredEpisodes episodes and totals over all of them, so its
// size does not grow with the loss; --json (and so a replay) lists every episode.
TEST(OutcomeTest, TheStoredRowKeepsABoundedEpisodeListAndTotalsOverAll) {
  RunOutcome out;
  out.capture = lab::Capture{};
  const size_t n = 1000;
  for (size_t k = 0; k < n; ++k) {
    oracle::LossEpisode e;
    e.error_offset = 100 * k;
    e.recovered = k % 10 != 9;  // 900 recovered
    e.recovery_bytes = k % 2 ? 11 : 40;  // bit lengths 4 and 6
    e.recovery_messages = 1;
    e.instructions_missing = 3;
    out.metrics.episodes.push_back(e);
  }
  const std::string stored = StoredRunRecord(out).metrics_json;
  const auto m = nlohmann::json::parse(stored);
  EXPECT_EQ(m["loss_episodes"], n);
  ASSERT_EQ(m["episodes"].size(), kStoredEpisodes);
  EXPECT_EQ(m["episodes"][3]["error_offset"], 300);
  EXPECT_EQ(m["episodes_omitted"], n - kStoredEpisodes);
  const auto& e = m["episode_summary"];
  EXPECT_EQ(e["recovered"], 900);
  EXPECT_EQ(e["unrecovered"], 100);
  EXPECT_EQ(e["instructions_missing"], 3 * n);
  EXPECT_EQ(e["recovery_bytes_max"], 40);
  // k % 10 == 9 is odd: the 100 unrecovered are 11-byte ones.
  EXPECT_EQ(e["recovery_bytes_total"], 400 * 11 + 500 * 40);
  EXPECT_EQ(e["recovery_bytes_log2"], nlohmann::json::parse("[0,0,0,0,400,0,500]"));
  EXPECT_LT(stored.size(), 5000u) << "the stored metrics grew with the episode count";
  // Ten times the episodes: the same stored size, give or take the digits of the counts.
  for (size_t k = 0; k < 9 * n; ++k) out.metrics.episodes.push_back(out.metrics.episodes[k]);
  EXPECT_LT(StoredRunRecord(out).metrics_json.size(), stored.size() + 40);
  const auto full = nlohmann::json::parse(out.ToJson());
  EXPECT_EQ(full["metrics"]["episodes"].size(), 10 * n);
  EXPECT_EQ(full["metrics"]["episodes_omitted"], 0);
}

// Replay outcomes (runner/replay.h): a replay whose bytes differ is decode-equivalent only when
// both runs decoded to the reference and announced the same losses.
TEST(ReplayOutcomeTest, DecodeEquivalenceNeedsTheSameDecodeAndTheSameLossEpisodes) {
  RunOutcome out;
  out.verdicts.push_back({});  // code kDecodeIntegrity
  out.verdicts[0].code = oracle::VerdictCode::kDecodeIntegrity;
  out.verdicts[0].outcome = oracle::Outcome::kPass;
  out.metrics.decoded_instructions = 1000;
  out.metrics.announced_lost_instructions = 40;
  oracle::LossEpisode e;
  e.error_offset = 77;  // offsets may differ
  e.recovered = true;
  e.instructions_missing = 40;
  out.metrics.episodes = {e};
  const std::string stored = R"({"decoded_instructions": 1000, "announced_lost_instructions": 40,
      "loss_episodes": 1, "episodes": [{"error_offset": 91, "recovered": true,
      "closed_window": false, "ambiguous": false, "instructions_missing": 40}]})";
  EXPECT_EQ(DecodeEquivalence(stored, true, out), "");
  EXPECT_EQ(DecodeEquivalence(stored, false, out), "decode_integrity did not pass on the stored run");
  RunOutcome red = out;
  red.verdicts[0].outcome = oracle::Outcome::kFail;
  EXPECT_EQ(DecodeEquivalence(stored, true, red), "decode_integrity did not pass on the replay");
  RunOutcome fewer = out;
  fewer.metrics.decoded_instructions = 999;
  EXPECT_EQ(DecodeEquivalence(stored, true, fewer),
            "decoded_instructions 1000 stored, 999 replayed");
  RunOutcome other_loss = out;
  other_loss.metrics.episodes[0].instructions_missing = 41;
  EXPECT_EQ(DecodeEquivalence(stored, true, other_loss), "loss episode 0 differs");
  RunOutcome two = out;
  two.metrics.episodes.push_back(e);
  EXPECT_EQ(DecodeEquivalence(stored, true, two), "loss_episodes 1 stored, 2 replayed");
  EXPECT_EQ(DecodeEquivalence("{}", true, out), "the stored run kept no decoded_instructions");
  EXPECT_TRUE(IsSimulatedBoardKind("remote:sim"));
  EXPECT_TRUE(IsSimulatedBoardKind("sim"));
  EXPECT_FALSE(IsSimulatedBoardKind("remote:zynq"));
  EXPECT_FALSE(IsSimulatedBoardKind("simulator-x"));
}

}  // namespace
}  // namespace ctte::runner
