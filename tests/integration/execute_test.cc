// runner/execute: RunConfig -> RunOutcome on in-process simulated boards, the run status rules
// (green, red, invalid, infra) and the self-policing check that every VerdictCode is documented
// and produced by a test.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "tests/integration/board_fixture.h"
#include "tests/integration/sim_board_wrapper.h"

namespace ctte::testing {
namespace {

using oracle::Outcome;
using oracle::VerdictCode;

// A SimBoard with injectable faults (house style 4: a fault-injecting decorator).
class FaultyBoard : public SimBoardWrapper {
 public:
  Result<uint64_t> ReadClock(lab::ClockDomain d) override {
    Result<uint64_t> hz = SimBoardWrapper::ReadClock(d);
    if (hz.ok()) return *hz + read_back_skew_hz;
    return hz;
  }
  Result<lab::Capture> Run(const lab::RunPlan& plan) override {
    if (!run_error.ok()) return run_error;
    return SimBoardWrapper::Run(plan);
  }

  Status run_error;
  uint64_t read_back_skew_hz = 0;
};

class ExecuteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!HaveImagesAndWorkloads(&why)) GTEST_SKIP() << why;
  }
  static runner::PreparedRun Prepare(const runner::RunConfig& c,
                                     const runner::ExecuteOptions& o = TestOptions(20'000)) {
    Result<runner::PreparedRun> p = runner::PrepareRun(c, o);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return std::move(*p);
  }
  static void ExpectFails(const runner::RunOutcome& out, VerdictCode code) {
    bool found = false;
    for (const oracle::Verdict& v : out.verdicts) {
      if (v.code == code) {
        found = true;
        EXPECT_EQ(v.outcome, Outcome::kFail) << v.ToString();
      }
    }
    EXPECT_TRUE(found) << "no verdict " << oracle::VerdictCodeName(code);
  }
};

TEST_F(ExecuteTest, TwinRunIsGreenAndTheOutcomeIsComplete) {
  runner::RunConfig c = BaseConfig("ntrace-slim", "ptrchase");
  c.mode = "btm";
  const runner::PreparedRun run = Prepare(c);
  FaultyBoard board, twin;
  const runner::RunOutcome out = runner::ExecuteRun(run, board, &twin, TestOptions(20'000));
  ASSERT_EQ(out.status, runner::RunStatus::kGreen) << runner::FormatOutcome(out);
  ASSERT_EQ(out.verdicts.size(), 8u);
  for (const oracle::Verdict& v : out.verdicts) {
    if (v.code != VerdictCode::kPostRecoveryLosslessness) {
      EXPECT_EQ(v.outcome, Outcome::kPass) << v.ToString();
    }
  }
  EXPECT_EQ(out.image_sha256, run.manifest.sha256);
  EXPECT_EQ(out.build_id.size(), 18u);
  EXPECT_EQ(out.fabric.requested_hz, 75'000'000u);
  EXPECT_EQ(out.fabric.programmed_hz, out.fabric.read_back_hz);
  EXPECT_EQ(out.stream_size, out.stream.size());
  EXPECT_EQ(out.stream_sha256, out.twin_stream_sha256);
  EXPECT_EQ(out.stream_sha256.size(), 64u);
  const auto counters = nlohmann::json::parse(out.ToRunRecord().counters_json);
  EXPECT_EQ(counters["bytes"].get<uint64_t>(), out.stream_size);
  EXPECT_TRUE(counters.contains("max_ready_stall_sink_cycles"));
  const auto metrics = nlohmann::json::parse(out.ToRunRecord().metrics_json);
  EXPECT_GT(metrics["wire_bits_per_instruction"].get<double>(), 0.0);
  // Section IX figures (issue 32): a drop-free capture is the reference encoder's stream, so its
  // bits and message rate equal the reference encoder's on the same beats, and the offered
  // output rate's peak is at least its mean.
  ASSERT_TRUE(metrics["reference_bytes_identical"].get<bool>());
  EXPECT_DOUBLE_EQ(metrics["reference_encoder"]["wire_bits_per_instruction"].get<double>(),
                   metrics["wire_bits_per_instruction"].get<double>());
  EXPECT_DOUBLE_EQ(metrics["reference_encoder"]["messages_per_kilo_instruction"].get<double>(),
                   metrics["messages_per_kilo_instruction"].get<double>());
  EXPECT_GT(metrics["messages_per_kilo_instruction"].get<double>(), 0.0);
  EXPECT_GE(metrics["output_rate"]["peak_bits_per_instruction"].get<double>(),
            metrics["output_rate"]["mean_bits_per_instruction"].get<double>());
  const std::vector<db::VerdictRecord> rows = out.VerdictRecords();
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].verdict, "decode_integrity");
  EXPECT_EQ(nlohmann::json::parse(rows[0].metrics_json)["rule"], "pass");
  const db::RunRecord rec = out.ToRunRecord();
  EXPECT_EQ(rec.status, db::RunStatus::kGreen);
  EXPECT_EQ(rec.stream_sha256, out.stream_sha256);
  Result<runner::RunConfig> back = runner::RunConfigFromJson(rec.config_json);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, c);
}

TEST_F(ExecuteTest, AnEarlierStreamOfTheSameKeyIsJudgedAsTheTwin) {
  const runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "sort"));
  FaultyBoard first, second;
  const runner::RunOutcome a = runner::ExecuteRun(run, first, nullptr, TestOptions(20'000));
  runner::ExecuteOptions o = TestOptions(20'000);
  o.twin_stream = a.stream;
  const runner::RunOutcome b = runner::ExecuteRun(run, second, nullptr, o);
  EXPECT_EQ(b.status, runner::RunStatus::kGreen) << runner::FormatOutcome(b);
  EXPECT_EQ(b.verdicts[5].code, VerdictCode::kDeterminism);
  EXPECT_EQ(b.verdicts[5].outcome, Outcome::kPass);
  o.twin_stream->back() ^= 0x04;  // a different earlier stream
  const runner::RunOutcome c = runner::ExecuteRun(run, second, nullptr, o);
  EXPECT_EQ(c.status, runner::RunStatus::kRed);
  ExpectFails(c, VerdictCode::kDeterminism);
}

TEST_F(ExecuteTest, RtlAssertionMakesTheRunRedWithTheAssertionAsEvidence) {
  const runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "loop"));
  FaultyBoard board;
  board.run_error = lab::RtlAssertionError("ordinary message while paused");
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
  EXPECT_EQ(out.status, runner::RunStatus::kRed);
  // Eight verdicts n/a (no capture to judge), then the assertion (#29).
  ASSERT_EQ(out.verdicts.size(), 9u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(out.verdicts[i].outcome, Outcome::kNotApplicable);
  ExpectFails(out, VerdictCode::kRtlAssertion);
  EXPECT_NE(out.verdicts[8].evidence.message.find("ordinary message while paused"),
            std::string::npos);
}

TEST_F(ExecuteTest, BoardDeathIsInfra) {
  const runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "loop"));
  FaultyBoard board;
  board.run_error = lab::BoardDiedError("signal 9 (SIGKILL)");
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
  EXPECT_EQ(out.status, runner::RunStatus::kInfra);
  EXPECT_EQ(out.cause, runner::InfraCause::kBoardDied);
  EXPECT_NE(out.status_reason.find("SIGKILL"), std::string::npos) << out.status_reason;
  EXPECT_TRUE(out.verdicts.empty());
}

TEST_F(ExecuteTest, DeployHashMismatchIsInfraAndNotJudged) {
  runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "loop"));
  run.manifest.sha256 = std::string(64, '0');
  FaultyBoard board;
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
  EXPECT_EQ(out.status, runner::RunStatus::kInfra);
  EXPECT_EQ(out.cause, runner::InfraCause::kDeploy);
  EXPECT_NE(out.status_reason.find("SHA-256"), std::string::npos) << out.status_reason;
  EXPECT_TRUE(out.verdicts.empty());
}

// Issue 11: an edited manifest (caps, xlen) no longer matches what the design reports: refused
// as infra naming both values, never run.
TEST_F(ExecuteTest, ManifestThatDisagreesWithTheDesignIsRefused_bad) {
  for (int field = 0; field < 2; ++field) {
    runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "loop"));
    if (field == 0) run.manifest.caps ^= 1;
    else run.manifest.xlen = 32;
    FaultyBoard board;
    const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
    EXPECT_EQ(out.status, runner::RunStatus::kInfra);
    EXPECT_EQ(out.cause, runner::InfraCause::kManifestMismatch) << out.status_reason;
    EXPECT_NE(out.status_reason.find(field == 0 ? "ctteCaps 127, manifest caps 126"
                                                : "xlen 64 (ctteProfile), manifest xlen 32"),
              std::string::npos)
        << out.status_reason;
    EXPECT_TRUE(out.verdicts.empty());
  }
}

TEST_F(ExecuteTest, ClosureGateRefusesAFabricClockAboveFmax) {
  runner::PreparedRun run = Prepare(BaseConfig("ntrace-shallow", "loop"));
  run.fabric_hz = static_cast<uint64_t>(run.manifest.fmax_mhz * 1e6) + 50'000'000;
  FaultyBoard board;
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
  EXPECT_EQ(out.status, runner::RunStatus::kInfra);
  EXPECT_EQ(out.cause, runner::InfraCause::kClosureGate);
  EXPECT_NE(out.status_reason.find("closure gate"), std::string::npos) << out.status_reason;
  ASSERT_TRUE(out.fabric.read_back_hz.has_value());  // requested/programmed/read back recorded
}

TEST_F(ExecuteTest, ClockReadBackOutsideToleranceIsInvalid) {
  const runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "loop"));
  FaultyBoard board;
  board.read_back_skew_hz = 2'000'000;  // 2 % off what the PLL was programmed to
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
  EXPECT_EQ(out.status, runner::RunStatus::kInvalid);
  EXPECT_NE(out.status_reason.find("ppm"), std::string::npos) << out.status_reason;
}

TEST_F(ExecuteTest, WrappedCaptureRingIsInvalidNotRed) {
  runner::ExecuteOptions o = TestOptions(20'000);
  o.ring_bytes = 64;
  const runner::PreparedRun run = Prepare(BaseConfig("ntrace-slim", "calls"), o);
  FaultyBoard board;
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, o);
  EXPECT_EQ(out.status, runner::RunStatus::kInvalid);
  EXPECT_NE(out.status_reason.find("wrapped"), std::string::npos);
}

TEST_F(ExecuteTest, WindowEdgesAreConvertedFromRetirementsToBeats) {
  runner::RunConfig c = BaseConfig("ntrace-slim", "traps");
  c.window = "pause_resume";
  c.window_pause = 3000;
  c.window_resume = 5000;
  c.window_stop = 9000;
  c.interrupt_every = 100;
  const runner::PreparedRun run = Prepare(c);
  ASSERT_EQ(run.plan.window_edges.size(), 3u);
  const oracle::Expected& e = run.expected;
  ASSERT_EQ(e.windows.size(), 2u);
  EXPECT_EQ(e.windows[0].begin, 0u);
  EXPECT_EQ(e.windows[0].end, 3000u);
  EXPECT_EQ(e.windows[1].begin, 5000u);
  EXPECT_EQ(e.windows[1].end, 9000u);
  EXPECT_EQ(e.retired, 9000u);  // the stop ends the core there; stop-at-end flushes
  // Trap beats do not retire, so the beat index of an edge is past its retirement index.
  EXPECT_GT(run.plan.window_edges[1].before_beat, 3000u);
  EXPECT_EQ(run.plan.window_edges[1].before_beat, e.windows[0].end_beat);
  EXPECT_FALSE(run.plan.window_edges[1].open);
  FaultyBoard board;
  const runner::RunOutcome out = runner::ExecuteRun(run, board, nullptr, TestOptions(20'000));
  EXPECT_EQ(out.status, runner::RunStatus::kGreen) << runner::FormatOutcome(out);
}

TEST_F(ExecuteTest, ShallowImageUnderBackpressureAnnouncesLossAndStaysGreen) {
  runner::RunConfig c = BaseConfig("ntrace-shallow", "switch");
  c.backpressure = "bursty:4-64";
  c.backpressure_params = {runner::Backpressure::Kind::kBursty, 100, 4, 64};
  c.sink_hz = 25'000'000;
  c.core_stall_percent = 0;
  c.fabric_hz = 75'000'000;
  const runner::PreparedRun run = Prepare(c, TestOptions(60'000));
  FaultyBoard board, twin;
  const runner::RunOutcome out = runner::ExecuteRun(run, board, &twin, TestOptions(60'000));
  EXPECT_EQ(out.status, runner::RunStatus::kGreen) << runner::FormatOutcome(out);
  ASSERT_GT(out.metrics.episodes.size(), 0u) << "no loss: the configuration is not stressful";
  for (const oracle::Verdict& v : out.verdicts) {
    EXPECT_EQ(v.outcome, Outcome::kPass) << v.ToString();
  }
  const auto metrics = nlohmann::json::parse(out.ToRunRecord().metrics_json);
  EXPECT_EQ(metrics["loss_episodes"], out.metrics.episodes.size());
  EXPECT_EQ(metrics["episodes"].size(),
            std::min(out.metrics.episodes.size(), runner::kStoredEpisodes));
  EXPECT_EQ(metrics["episodes"].size() + metrics["episodes_omitted"].get<size_t>(),
            out.metrics.episodes.size());
  EXPECT_EQ(metrics["episodes"][0]["recovery_messages"], 1);
  EXPECT_GT(metrics["episodes"][0]["recovery_bytes"].get<uint64_t>(), 0u);
}

// Self-policing (house style 24): each VerdictCode has a docs/verdicts.md entry and a test that
// makes it fail.
TEST(VerdictCodeTest, EveryCodeIsDocumentedAndProducedByATest) {
  struct Row {
    VerdictCode code;
    const char* enumerator;
  };
  const Row rows[] = {
      {VerdictCode::kDecodeIntegrity, "kDecodeIntegrity"},
      {VerdictCode::kLossAccounting, "kLossAccounting"},
      {VerdictCode::kPostRecoveryLosslessness, "kPostRecoveryLosslessness"},
      {VerdictCode::kCounterConsistency, "kCounterConsistency"},
      {VerdictCode::kLiveness, "kLiveness"},
      {VerdictCode::kDeterminism, "kDeterminism"},
      {VerdictCode::kWindowSemantics, "kWindowSemantics"},
      {VerdictCode::kFlushCompleteness, "kFlushCompleteness"},
      {VerdictCode::kRtlAssertion, "kRtlAssertion"},
  };
  ASSERT_EQ(std::size(rows), oracle::AllVerdictCodes().size()) << "a code is missing here";
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string docs = read(CTTE_SOURCE_DIR "/docs/verdicts.md");
  ASSERT_FALSE(docs.empty());
  std::string tests;
  for (const char* f : {"/tests/judge/judge_negative_test.cc",
                        "/tests/integration/execute_test.cc"}) {
    tests += read(std::string(CTTE_SOURCE_DIR) + f);
  }
  for (const Row& r : rows) {
    const std::string name = oracle::VerdictCodeName(r.code);
    EXPECT_EQ(oracle::ParseVerdictCode(name), r.code);
    EXPECT_NE(docs.find("\n## " + name + "\n"), std::string::npos)
        << "docs/verdicts.md has no section '## " << name << "' (anchor #" << name << ")";
    const std::regex produced("ExpectFails\\([^;]*VerdictCode::" + std::string(r.enumerator) +
                              "[,)]");
    EXPECT_TRUE(std::regex_search(tests, produced))
        << "no test calls ExpectFails(..., VerdictCode::" << r.enumerator << ")";
  }
}

}  // namespace
}  // namespace ctte::testing
