// Triage end to end on the four triage mutants (docs/mutants.md 11, 12, 14, 15, docs/triage.md):
// `ctte-lab soak` makes red runs, `ctte-lab bisect` / `triage` / `history --pairs` /
// `history --nights` / `show` / `report` read them, on simulated boards. Short workloads and
// small repeat counts.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "db/database.h"
#include "db/triage_store.h"
#include "tests/integration/lab_cli.h"

namespace ctte {
namespace {

namespace fs = std::filesystem;

// Only mode and sync matter to mutant-sync-icnt (BTM x half-word sync); backpressure and the
// workload are drawn too, so the red runs differ from the spec's first values in them as well.
std::string Spec(const std::string& name, const std::string& image, uint64_t runs,
                 const std::string& seed,
                 const std::string& backpressure = R"(["none", "uniform:50"])",
                 const std::string& sync = R"(["off", "halfwords:6", "messages:6"])") {
  return R"({"name": ")" + name + R"(", "seed": ")" + seed + R"(", "runs": )" +
         std::to_string(runs) + R"(, "images": [")" + image + R"("],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100}, "horizon_retirements": 4000,
  "axes": {"overflow_regime": ["none"], "backpressure": )" + backpressure + R"(,
           "mode": ["htm", "btm"], "sync": )" + sync + R"(,
           "workload": ["loop", "calls"], "window": ["full"], "interrupts": ["none"]}})";
}

using Cmd = testing::CliResult;
using testing::RunLab;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The single leg of `factor` in a bisection's JSON, checked to be a culprit that is green on
// every repeat while no other single leg is a culprit; null when there is no such leg.
nlohmann::json SoleCulpritLeg(const nlohmann::json& j, const std::string& factor) {
  nlohmann::json found;
  for (const auto& leg : j["legs"]) {
    if (leg["kind"] != "single") continue;
    if (leg["factors"][0] != factor) {
      EXPECT_NE(leg["verdict"], "culprit") << leg.dump();
      continue;
    }
    EXPECT_EQ(leg["verdict"], "culprit") << leg.dump();
    EXPECT_EQ(leg["red"].get<int>(), 0) << leg.dump();
    found = leg;
  }
  return found;
}

class TriageTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "ctte_triage_test_" + std::to_string(getpid()));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    db_ = new std::string(*dir_ + "/t.db");
    std::ofstream(*dir_ + "/xterm.json") << Spec("xterm", "mutant-sync-icnt", 30, "0x7a1");
    std::ofstream(*dir_ + "/flaky.json") << Spec("flaky", "mutant-flaky-start", 6, "0x7a2");
    // Only mode and the workload drawn: at most two single legs.
    std::ofstream(*dir_ + "/flakybtm.json")
        << Spec("flakybtm", "mutant-flaky-btm", 12, "0x7a4", R"(["none"])", R"(["off"])");
    // Only the features axis decides mutant-implicit-icnt; mode is drawn as a bystander.
    std::ofstream(*dir_ + "/feat.json") << R"({"name": "feat", "seed": "0x7a5", "runs": 8,
  "images": ["mutant-implicit-icnt"], "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 4000,
  "axes": {"overflow_regime": ["none"], "backpressure": ["none"], "mode": ["htm", "btm"],
           "sync": ["off"], "features": ["none", ["implicit-return"]], "workload": ["calls"],
           "window": ["full"], "interrupts": ["none"]}})";
    soak_xterm_ = new Cmd(Soak("xterm"));
    soak_flaky_ = new Cmd(Soak("flaky"));
    soak_flaky_btm_ = new Cmd(Soak("flakybtm"));
  }
  static void TearDownTestSuite() { fs::remove_all(*dir_); }

  // `ctte-lab soak` of the spec NAME.json (with `more` flags) into the suite's database.
  static Cmd Soak(const std::string& name, const std::string& more = "") {
    return RunLab("soak " + *dir_ + "/" + name + ".json" + more + " --boards 2 --db " + *db_ +
                  " --report-dir " + *dir_ + "/reports");
  }

  // `ctte-lab bisect RUN --baseline spec --repeats N --max-repeats N --max-pairs 0 --boards 2
  // --json` on the suite's database: one look of N repeats, singles only (so they get the
  // whole family-wise level: 4 legs at 7 repeats call 7 of 7 turned green a culprit, p = 2^-7
  // Holm 0.031, and 0 of 7 innocent, effect upper bound 0.47 < 0.5; docs/triage.md).
  static Cmd Bisect(int64_t run, int repeats, const std::string& more = "") {
    return RunLab("bisect " + std::to_string(run) + " --baseline spec --repeats " +
                  std::to_string(repeats) + " --max-repeats " + std::to_string(repeats) +
                  " --max-pairs 0 --boards 2 --json --db " + *db_ + " --out-dir " + *dir_ +
                  "/triage" + more);
  }

  // The first red draw of campaign `name` (0 when none).
  static int64_t FirstRed(const std::string& name) {
    auto d = db::Database::OpenReadOnly(*db_);
    if (!d.ok()) return 0;
    auto red = (*d)->RedRuns(name);
    if (!red.ok() || red->empty()) return 0;
    return red->front().id;
  }

  static std::string* dir_;
  static std::string* db_;
  static Cmd* soak_xterm_;
  static Cmd* soak_flaky_;
  static Cmd* soak_flaky_btm_;
};

std::string* TriageTest::dir_ = nullptr;
std::string* TriageTest::db_ = nullptr;
Cmd* TriageTest::soak_xterm_ = nullptr;
Cmd* TriageTest::soak_flaky_ = nullptr;
Cmd* TriageTest::soak_flaky_btm_ = nullptr;

TEST_F(TriageTest, CrossTermBisectionNamesExactlyModeAndSyncAndRecordsEveryLeg) {
  ASSERT_EQ(soak_xterm_->exit_code, 1) << soak_xterm_->out;  // red runs: exit 1
  const int64_t run = FirstRed("xterm");
  ASSERT_GT(run, 0) << soak_xterm_->out;
  Cmd c = Bisect(run, 7);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["verdict"], "needs_all");  // an AND: reverting either turns it green
  EXPECT_EQ(j["culprits"], nlohmann::json::array({"mode", "sync"})) << c.out;
  EXPECT_EQ(j["minimal_differs"], nlohmann::json::array({"mode", "sync"})) << c.out;
  for (const auto& leg : j["legs"]) {
    if (leg["kind"] != "single") continue;
    const std::string f = leg["factors"][0];
    EXPECT_EQ(leg["verdict"], f == "mode" || f == "sync" ? "culprit" : "innocent") << leg.dump();
  }
  // The minimal configuration is red when run alone.
  const std::string minimal = j["minimal_config"];
  Cmd m = RunLab("run --config " + minimal);
  EXPECT_EQ(m.exit_code, 1) << m.out;
  // Every leg, with each of its runs, is in the database; show lists the bisection.
  auto d = db::Database::OpenReadOnly(*db_);
  ASSERT_TRUE(d.ok());
  auto stored = db::TriageStore::BisectionsOfRun(**d, run);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ(stored->at(0).culprits, "mode,sync");
  ASSERT_EQ(stored->at(0).legs.size(), j["legs"].size());
  for (const db::BisectionLegRecord& l : stored->at(0).legs) EXPECT_EQ(l.runs.size(), 7u);
  Cmd s = RunLab("show " + std::to_string(run) + " --db " + *db_);
  EXPECT_NE(s.out.find("needs_all [mode,sync]"), std::string::npos) << s.out;
  // JUnit names the culprit; the HTML has the triage section with the legs and the command.
  Cmd r = RunLab("report xterm --db " + *db_ + " --junit " + *dir_ + "/x.junit.xml --html " +
                 *dir_ + "/x.html");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string jx = Slurp(*dir_ + "/x.junit.xml"), hx = Slurp(*dir_ + "/x.html");
  EXPECT_NE(jx.find("; culprit: mode,sync"), std::string::npos);
  EXPECT_NE(hx.find("id=\"triage-run-" + std::to_string(run) + "\""), std::string::npos);
  EXPECT_NE(hx.find("ctte-lab run --config " + minimal), std::string::npos);
}

TEST_F(TriageTest, CrossTermTriageIsDesign) {
  const int64_t run = FirstRed("xterm");
  ASSERT_GT(run, 0);
  Cmd c = RunLab("triage " + std::to_string(run) + " --repeats 2 --json --db " + *db_);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["classification"], "design") << c.out;
  EXPECT_EQ(j["legs"].size(), 2u);
  // Locally both legs are simulators labelled by --serial: which boards ran the legs is shown
  // on the lab, by the agents' logs (tests/net/net_lab_commands_test.sh).
}

TEST_F(TriageTest, PairsRankTheMutantsPairFirst) {
  Cmd c = RunLab("history --pairs --campaign xterm --json --db " + *db_);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j[0]["factor_a"], "mode");
  EXPECT_EQ(j[0]["value_a"], "btm");
  EXPECT_EQ(j[0]["factor_b"], "sync");
  EXPECT_EQ(j[0]["value_b"], "halfwords:6");
  EXPECT_EQ(j[0]["fail_rate"], 1.0);
  EXPECT_GT(j[0]["excess_lo"].get<double>(), j[1]["excess_lo"].get<double>());
  EXPECT_LT(j[0]["interval"][0].get<double>(), 1.0);  // Wilson: n runs never give lo = 1
}

TEST_F(TriageTest, FlakyBisectionReportsTheRateAndBlamesNoFactor) {
  ASSERT_NE(soak_flaky_->exit_code, 2) << soak_flaky_->out;
  const int64_t run = FirstRed("flaky");
  ASSERT_GT(run, 0) << soak_flaky_->out;
  Cmd c = Bisect(run, 7);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_TRUE(j["flaky"].get<bool>()) << c.out;
  EXPECT_FALSE(j["target_verdicts"].empty()) << c.out;  // the run's failing verdicts
  EXPECT_TRUE(j["culprits"].empty()) << c.out;
  const auto& original = j["legs"][0];
  EXPECT_GT(original["red"].get<int>(), 0);
  EXPECT_LT(original["red"].get<int>(), original["judged"].get<int>());
  EXPECT_LT(original["interval"][0].get<double>(), original["rate"].get<double>());
  EXPECT_GT(original["interval"][1].get<double>(), original["rate"].get<double>());
  for (const auto& leg : j["legs"]) EXPECT_NE(leg["verdict"], "culprit") << leg.dump();
  EXPECT_NE(j["summary"].get<std::string>().find("flaky"), std::string::npos);
}

// The flaky failure WITH a real culprit (mutant-flaky-btm: red on about half of the model seeds,
// and only in BTM): the original is labelled flaky with its rate, and `mode` alone is the
// culprit, with its sign-test p-value. With FlakyBisectionReportsTheRateAndBlamesNoFactor (the
// same fault whatever the mode) this fails a bisection that always or never blames. 20 repeats
// in one look: the mode leg is green on every repeat, so the discordant pairs are the original's
// red repeats (about 10); 6 of them give p = 2^-6, under Holm's 0.05/2 for two legs
// (docs/triage.md; 6 or more of 20 at rate 0.5: probability 0.98).
TEST_F(TriageTest, FlakyBisectionWithARealCulpritBlamesModeAndCallsTheOriginalFlaky) {
  ASSERT_NE(soak_flaky_btm_->exit_code, 2) << soak_flaky_btm_->out;
  const int64_t run = FirstRed("flakybtm");
  ASSERT_GT(run, 0) << soak_flaky_btm_->out;
  Cmd c = Bisect(run, 20);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_TRUE(j["flaky"].get<bool>()) << c.out;
  EXPECT_EQ(j["culprits"], nlohmann::json::array({"mode"})) << c.out;
  const auto& original = j["legs"][0];
  EXPECT_GT(original["red"].get<int>(), 0);
  EXPECT_LT(original["red"].get<int>(), original["judged"].get<int>());
  const nlohmann::json leg = SoleCulpritLeg(j, "mode");
  ASSERT_FALSE(leg.is_null()) << c.out;
  EXPECT_LE(leg["test"]["p_holm"].get<double>(), leg["test"]["level"].get<double>()) << leg.dump();
  EXPECT_LT(leg["test"]["p"].get<double>(), 0.05 / 2) << leg.dump();
}

// A run red only because of a compression feature (mutant-implicit-icnt: an implicit return
// restarts I-CNT, so only runs with implicit-return enabled are red) is bisected to `features`:
// the features leg runs with the baseline's features ("none") and is green on every repeat.
TEST_F(TriageTest, AFeatureRedRunIsBisectedToFeatures) {
  Cmd soak = Soak("feat");
  ASSERT_EQ(soak.exit_code, 1) << soak.out;
  const int64_t run = FirstRed("feat");
  ASSERT_GT(run, 0) << soak.out;
  Cmd c = Bisect(run, 7);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["verdict"], "culprit") << c.out;
  EXPECT_EQ(j["culprits"], nlohmann::json::array({"features"})) << c.out;
  EXPECT_EQ(j["minimal_differs"], nlohmann::json::array({"features"})) << c.out;
  EXPECT_FALSE(SoleCulpritLeg(j, "features").is_null()) << c.out;
}

// A bisection and a triage whose boards all die (the board executable is /bin/false: every
// spawn exits at once) stop on infrastructure and exit 2, as every command does for an
// infrastructure error (README "Exit codes"), not 0 and not 3 (an invalid measurement).
TEST_F(TriageTest, BisectAndTriageOnDeadBoardsExitTwoAsInfrastructure) {
  const int64_t run = FirstRed("xterm");
  ASSERT_GT(run, 0) << soak_xterm_->out;
  Cmd b = Bisect(run, 2, " --board /bin/false");
  EXPECT_EQ(b.exit_code, 2) << b.out;
  const nlohmann::json j = nlohmann::json::parse(b.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << b.out;
  EXPECT_EQ(j["verdict"], "infrastructure") << b.out;
  Cmd t = RunLab("triage " + std::to_string(run) + " --repeats 2 --json --board /bin/false --db " +
                 *db_);
  EXPECT_EQ(t.exit_code, 2) << t.out;
  const nlohmann::json k = nlohmann::json::parse(t.out, nullptr, false);
  ASSERT_FALSE(k.is_discarded()) << t.out;
  EXPECT_EQ(k["classification"], "infrastructure") << t.out;
}

// The stored-run loader (runner/stored_run.h): a red run on a user workload ($.workloads) is
// bisected with its ELF as pinned (its legs used to look for the name in workload_dir and all
// went infra) and replayed; a leg's image whose SHA-256 is not the run's is refused, naming both.
TEST_F(TriageTest, ARedRunOnAUserWorkloadBisectsAndReplaysAndAnotherImageIsRefused) {
  const std::string d = *dir_ + "/userwl";
  fs::create_directories(d + "/img");
  fs::copy_file(std::string(CTTE_BINARY_DIR) + "/workloads/loop.elf", d + "/mine.elf");
  std::ofstream(d + "/userwl.json") << R"({"name": "userwl", "seed": "0x7a6", "runs": 4,
  "images": ["mutant-sync-icnt"], "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 4000, "workloads": {"mine": "mine.elf"},
  "axes": {"overflow_regime": ["none"], "backpressure": ["none"], "mode": ["btm"],
           "sync": ["off", "halfwords:6"], "workload": ["mine"], "window": ["full"],
           "interrupts": ["none"]}})";
  Cmd s = RunLab("soak " + d + "/userwl.json --db " + d + "/u.db --report-dir ''");
  ASSERT_EQ(s.exit_code, 1) << s.out;  // red: the half-word sync runs
  auto db = db::Database::OpenReadOnly(d + "/u.db");
  ASSERT_TRUE(db.ok());
  auto red = (*db)->RedRuns("userwl");
  ASSERT_TRUE(red.ok() && !red->empty());
  const std::string run = std::to_string(red->front().id);
  Cmd b = RunLab("bisect " + run + " --baseline spec --repeats 7 --max-repeats 7 --max-pairs 0 "
                 "--json --db " + d + "/u.db --out-dir " + d + "/triage");
  ASSERT_EQ(b.exit_code, 0) << b.out;
  const nlohmann::json j = nlohmann::json::parse(b.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << b.out;
  EXPECT_EQ(j["culprits"], nlohmann::json::array({"sync"})) << b.out;
  Cmd r = RunLab("replay " + run + " --db " + d + "/u.db");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("stream: bit-identical"), std::string::npos) << r.out;
  // Another build of the image (its manifest names another digest), and no artifact store.
  const std::string img = std::string(CTTE_BINARY_DIR) + "/images/mutant-sync-icnt";
  fs::copy_file(img + ".so", d + "/img/mutant-sync-icnt.so");
  std::string manifest = Slurp(img + ".manifest.json");
  const auto at = manifest.find("\"sha256\": \"") + 11;
  const std::string run_sha = manifest.substr(at, 64);
  const std::string other_sha(64, 'e');
  manifest.replace(at, 64, other_sha);
  std::ofstream(d + "/img/mutant-sync-icnt.manifest.json") << manifest;
  for (const char* cmd : {"bisect", "triage"}) {
    Cmd x = RunLab(std::string(cmd) + " " + run + " --db " + d + "/u.db --image-dir " + d +
                   "/img --artifacts none --repeats 2");
    EXPECT_EQ(x.exit_code, 2) << cmd << ": " << x.out;
    EXPECT_NE(x.out.find(run_sha), std::string::npos) << cmd << ": " << x.out;
    EXPECT_NE(x.out.find(other_sha), std::string::npos) << cmd << ": " << x.out;
  }
}

TEST_F(TriageTest, NightsListCampaignsOfOneNameAcrossSeeds) {
  Cmd again = Soak("flaky", " --seed 0x7a3");
  ASSERT_NE(again.exit_code, 2) << again.out;
  Cmd c = RunLab("history --nights --campaign flaky --json --db " + *db_);
  ASSERT_EQ(c.exit_code, 0) << c.out;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_NE(j[0]["seed"], j[1]["seed"]);
  EXPECT_TRUE(j[1]["verdicts"].contains("decode_integrity"));
  Cmd r = RunLab("report flaky --db " + *db_ + " --html " + *dir_ + "/f.html");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string hx = Slurp(*dir_ + "/f.html");
  EXPECT_NE(hx.find("id=\"plot-trend\""), std::string::npos);
  EXPECT_NE(hx.find("class=\"trend-line\" data-verdict=\"decode_integrity\""), std::string::npos);
}

}  // namespace
}  // namespace ctte
