// `ctte-lab run` end to end (child board processes): green on every workload in HTM and BTM; the
// shallow-queue image under backpressure announces loss, reports recovery distances and stays
// green; a RunConfig file runs; exit codes for red-free usage errors and infrastructure refusals.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <sys/wait.h>

#include "base/files.h"
#include "tests/integration/board_fixture.h"
#include "tests/integration/lab_cli.h"

namespace ctte::testing {
namespace {

class RunCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!HaveImagesAndWorkloads(&why)) GTEST_SKIP() << why;
    if (!std::filesystem::exists(CTTE_BINARY_DIR "/bin/ctte-board")) GTEST_SKIP() << "no ctte-board";
  }
};

TEST_F(RunCliTest, EveryWorkloadIsGreenInHtmAndBtm) {
  for (const char* wl : {"loop", "calls", "ptrchase", "sort", "switch", "traps"}) {
    for (const char* mode : {"htm", "btm"}) {
      SCOPED_TRACE(std::string(wl) + " " + mode);
      const CliResult r =
          RunCli("--image " + kImageDir + "/ntrace-slim.manifest.json --workload " + kWorkloadDir +
                 "/" + wl + ".elf --mode " + mode +
                 " --fabric-mhz 75 --sync-mode messages --sync-period 256 --pause 5000 --resume 9000");
      EXPECT_EQ(r.exit_code, 0) << r.out;
      EXPECT_NE(r.out.find("status: green"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("decode_integrity            pass"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("flush_completeness          pass"), std::string::npos) << r.out;
    }
  }
}

TEST_F(RunCliTest, ShallowImageUnderBackpressureAnnouncesLossAndIsGreen) {
  const CliResult r = RunCli("--image " + kImageDir + "/ntrace-shallow.manifest.json --workload " +
                             kWorkloadDir + "/calls.elf --fabric-mhz 75 --sink-mhz 30 "
                             "--backpressure bursty:4-64 --twin --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "green");
  for (const auto& v : j["verdicts"]) {
    EXPECT_EQ(v["outcome"], "pass") << v.dump();  // the twin makes determinism applicable
  }
  const nlohmann::json& m = j["metrics"];
  ASSERT_GT(m["loss_episodes"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["counters"]["overflow_episodes"], m["loss_episodes"]);
  EXPECT_GT(m["announced_lost_instructions"].get<uint64_t>(), 0u);
  EXPECT_EQ(m["silent_lost_instructions"], 0);
  for (const auto& ep : m["episodes"]) {
    EXPECT_GE(ep["recovery_messages"].get<uint64_t>(), 1u);
    EXPECT_GT(ep["recovery_bytes"].get<uint64_t>(), 0u);
  }
  EXPECT_EQ(j["stream"]["sha256"], j["twin_stream_sha256"]);
  EXPECT_EQ(j["verdicts"][2]["verdict"], "post_recovery_losslessness");
  EXPECT_GT(j["verdicts"][2]["metrics"]["recovery_bytes_max"].get<double>(), 0.0);
}

TEST_F(RunCliTest, ConfigFileRuns) {
  runner::RunConfig c = BaseConfig("ntrace-shallow", "traps");
  c.mode = "btm";
  c.window = "late_start";
  c.window_start = 2500;
  c.interrupts = "sparse";
  c.interrupt_at = {100, 4000};
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ctte-run-config-" + std::to_string(::getpid()) + ".json"))
          .string();
  ASSERT_TRUE(WriteFileAtomic(path, runner::RunConfigToJson(c, 2)).ok());
  const CliResult r = RunCli("--config " + path + " --image-dir " + kImageDir +
                             " --workload-dir " + kWorkloadDir + " --max-instructions 50000");
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("judge_test #0"), std::string::npos) << r.out;
}

TEST_F(RunCliTest, TheJsonConfigOfAFlagRunRunsAgainWithTheSameStream) {
  const CliResult first = RunCli("--image " + kImageDir + "/ntrace-shallow.manifest.json --workload " +
                                 kWorkloadDir + "/calls.elf --fabric-mhz 75 --sink-mhz 40 "
                                 "--backpressure uniform:50 --sync-mode messages --sync-period 64 "
                                 "--ipc 0.9 --interrupt-every 3000 --seed 7 --max-instructions 40000 "
                                 "--json");
  ASSERT_EQ(first.exit_code, 0) << first.out;
  const nlohmann::json j = nlohmann::json::parse(first.out);
  EXPECT_EQ(j["config"]["axes"]["backpressure"], "uniform:50");
  EXPECT_EQ(j["config"]["axes"]["overflow_regime"], "none");
  EXPECT_EQ(j["config"]["core_stall_percent"], 10);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ctte-run-json-" + std::to_string(::getpid()) + ".json"))
                               .string();
  ASSERT_TRUE(WriteFileAtomic(path, j["config"].dump(2)).ok());
  const CliResult again = RunCli("--config " + path + " --image-dir " + kImageDir +
                                 " --workload-dir " + kWorkloadDir +
                                 " --max-instructions 40000 --json");
  std::filesystem::remove(path);
  ASSERT_EQ(again.exit_code, 0) << again.out;
  const nlohmann::json k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k["config"], j["config"]);
  EXPECT_EQ(k["stream"]["sha256"], j["stream"]["sha256"]);
}

TEST_F(RunCliTest, TheLabGrammarIsRejectedWithTheCampaignGrammarNamed) {
  const CliResult r = RunCli("--image " + kImageDir + "/ntrace-slim.manifest.json --workload " +
                             kWorkloadDir + "/loop.elf --backpressure bursty:4-32:4-64");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("bursty:<min>-<max>"), std::string::npos) << r.out;
}

TEST_F(RunCliTest, ExitCodesForUsageAndInfrastructure) {
  EXPECT_EQ(RunCli("--workload " + kWorkloadDir + "/loop.elf").exit_code, 2);  // no --image
  const CliResult gate = RunCli("--image " + kImageDir + "/ntrace-shallow.manifest.json --workload " +
                                kWorkloadDir + "/loop.elf --fabric-mhz 150");
  EXPECT_EQ(gate.exit_code, 2) << gate.out;
  EXPECT_NE(gate.out.find("closure gate"), std::string::npos) << gate.out;
  const CliResult wrapped = RunCli("--image " + kImageDir + "/ntrace-slim.manifest.json --workload " +
                                   kWorkloadDir + "/calls.elf --fabric-mhz 75 --ring-bytes 256");
  EXPECT_EQ(wrapped.exit_code, 3) << wrapped.out;
  EXPECT_NE(wrapped.out.find("status: invalid"), std::string::npos) << wrapped.out;
}

// Issue 11: a clock the board's PLL cannot program is a usage error naming the flag, and
// nonsense clock values (nan, negative) never wrap into huge integers.
TEST_F(RunCliTest, ClockFlagsOutsideThePllRangeOrNotFiniteAreUsageErrors_bad) {
  const std::string base = "--image " + kImageDir + "/ntrace-slim.manifest.json --workload " +
                           kWorkloadDir + "/loop.elf";
  const CliResult slow = RunCli(base + " --fabric-mhz 0.1");
  EXPECT_EQ(slow.exit_code, 2) << slow.out;
  EXPECT_NE(slow.out.find("--fabric-mhz: clock request 100000 Hz outside"), std::string::npos)
      << slow.out;
  const CliResult sink = RunCli(base + " --sink-mhz 0.2");
  EXPECT_EQ(sink.exit_code, 2) << sink.out;
  EXPECT_NE(sink.out.find("--sink-mhz: clock request 200000 Hz"), std::string::npos) << sink.out;
  for (const char* v : {"nan", "-1", "inf", "1e9"}) {
    const CliResult r = RunCli(base + " --fabric-mhz " + v);
    EXPECT_EQ(r.exit_code, 2) << v << ": " << r.out;
    EXPECT_NE(r.out.find(std::string("--fabric-mhz: '") + v + "' is not a number"),
              std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("18446744073709"), std::string::npos) << r.out;
  }
}

// --features (docs/encoder-behaviour.md section 11): implicit return on ntrace-full is green
// with every verdict passing and a strictly smaller stream than features off; an image that
// does not compile the feature refuses it (exit 2), as does an unknown name.
TEST_F(RunCliTest, ImplicitReturnOnTheFullImageIsGreenAndSmaller) {
  if (!std::filesystem::exists(kImageDir + "/ntrace-full.manifest.json")) {
    GTEST_SKIP() << "ntrace-full not built";
  }
  const std::string base = "--image " + kImageDir + "/ntrace-full.manifest.json --workload " +
                           kWorkloadDir + "/calls.elf --fabric-mhz 75 --max-instructions 200000 "
                           "--sync-mode messages --sync-period 256 --pause 5000 --resume 9000 "
                           "--json";
  const CliResult off = RunCli(base);
  const CliResult on = RunCli(base + " --features implicit-return");
  ASSERT_EQ(off.exit_code, 0) << off.out;
  ASSERT_EQ(on.exit_code, 0) << on.out;
  const nlohmann::json joff = nlohmann::json::parse(off.out);
  const nlohmann::json jon = nlohmann::json::parse(on.out);
  EXPECT_EQ(jon["status"], "green");
  for (const auto& v : jon["verdicts"]) EXPECT_NE(v["outcome"], "fail") << v.dump();
  EXPECT_LT(jon["stream"]["size"].get<uint64_t>(), joff["stream"]["size"].get<uint64_t>());
  EXPECT_EQ(jon["metrics"]["decoded_instructions"], joff["metrics"]["decoded_instructions"]);
  EXPECT_EQ(jon["metrics"]["reference_bytes_identical"], true) << "RTL bytes == reference bytes";

  const CliResult slim = RunCli("--image " + kImageDir + "/ntrace-slim.manifest.json --workload " +
                                kWorkloadDir + "/calls.elf --features implicit-return");
  EXPECT_EQ(slim.exit_code, 2) << slim.out;
  EXPECT_NE(slim.out.find("does not compile implicit-return"), std::string::npos) << slim.out;
  const CliResult bogus = RunCli(base + " --features bogus");
  EXPECT_EQ(bogus.exit_code, 2) << bogus.out;
  EXPECT_NE(bogus.out.find("--features: 'bogus': unknown feature"), std::string::npos)
      << bogus.out;
}

// Repeated history (HTM) and RepeatBranch (BTM) on ntrace-full, the spin workload: green, every
// verdict passing, RTL bytes == reference bytes, strictly smaller than features off; slim
// refuses both (ctteFeatureCaps bits 4 and 5 clear).
TEST_F(RunCliTest, RepeatFeaturesOnTheFullImageAreGreenAndSmaller) {
  if (!std::filesystem::exists(kImageDir + "/ntrace-full.manifest.json")) {
    GTEST_SKIP() << "ntrace-full not built";
  }
  using Case = std::pair<std::string, std::string>;
  for (const auto& [feature, mode] :
       {Case{"repeated-history", "htm"}, Case{"repeat-branch", "btm"}}) {
    SCOPED_TRACE(feature);
    const std::string base = "--image " + kImageDir + "/ntrace-full.manifest.json --workload " +
                             kWorkloadDir + "/spin.elf --fabric-mhz 75 --max-instructions 100000 "
                             "--mode " + mode + " --sync-mode messages --sync-period 256 --json";
    const CliResult off = RunCli(base);
    const CliResult on = RunCli(base + " --features " + feature);
    ASSERT_EQ(off.exit_code, 0) << off.out;
    ASSERT_EQ(on.exit_code, 0) << on.out;
    const nlohmann::json joff = nlohmann::json::parse(off.out);
    const nlohmann::json jon = nlohmann::json::parse(on.out);
    EXPECT_EQ(jon["status"], "green");
    for (const auto& v : jon["verdicts"]) EXPECT_NE(v["outcome"], "fail") << v.dump();
    EXPECT_LT(jon["stream"]["size"].get<uint64_t>(), joff["stream"]["size"].get<uint64_t>());
    EXPECT_EQ(jon["metrics"]["decoded_instructions"], joff["metrics"]["decoded_instructions"]);
    EXPECT_EQ(jon["metrics"]["reference_bytes_identical"], true);
    const CliResult slim = RunCli("--image " + kImageDir + "/ntrace-slim.manifest.json "
                                  "--workload " + kWorkloadDir + "/spin.elf --features " + feature);
    EXPECT_EQ(slim.exit_code, 2) << slim.out;
    EXPECT_NE(slim.out.find("does not compile " + feature), std::string::npos) << slim.out;
  }
}

}  // namespace
}  // namespace ctte::testing
