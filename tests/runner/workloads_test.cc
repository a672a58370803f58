// Issue 16 end to end on simulated boards: a campaign with a user workload table runs green and
// its runs store their content pins (ELF SHA-256, generator version, tool version); an HTIF
// program's run records exit code 3 and its console; replay works from the artifact store after
// the image directory is deleted, and a replay after the ELF was rebuilt differently is refused
// naming the file and both digests when the store cannot supply the original.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/sha256.h"
#include "base/version.h"
#include "db/database.h"
#include "tests/integration/lab_cli.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;

using Cmd = testing::CliResult;
using testing::RunLab;

constexpr const char* kSpec = R"({
  "name": "user-workloads",
  "seed": "0x00000000000016aa",
  "runs": 8,
  "images": ["ntrace-slim"],
  "clocks": {"fabric_mhz": 90, "sink_mhz": 100},
  "horizon_retirements": 2000,
  "workloads": {"hello": "elf/hello.elf"},
  "axes": {"mode": ["htm", "btm"], "workload": ["hello", "loop", "random"]}
})";

TEST(UserWorkloadsTest, PinnedRunsReplayFromTheStoreAndAChangedElfIsRefused) {
  const std::string example = std::string(CTTE_BINARY_DIR) + "/workloads/examples/";
  const fs::path dir = fs::path(::testing::TempDir()) / ("ctte_wl_e2e_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "elf");
  fs::create_directories(dir / "images");
  fs::copy_file(example + "htif_hello.elf", dir / "elf/hello.elf");
  for (const char* f : {"ntrace-slim.so", "ntrace-slim.manifest.json"}) {
    fs::copy_file(std::string(CTTE_BINARY_DIR) + "/images/" + f, dir / "images" / f);
  }
  std::ofstream(dir / "spec.json") << kSpec;
  const std::string db_path = (dir / "lab.db").string();
  Cmd soak = RunLab("soak " + (dir / "spec.json").string() + " --db " + db_path +
                    " --image-dir " + (dir / "images").string() + " --report-dir ''");
  ASSERT_EQ(soak.exit_code, 0) << soak.out;

  const std::string hello_sha = *Sha256File((dir / "elf/hello.elf").string());
  int64_t hello_run = 0, random_run = 0;
  {
    auto db = db::Database::OpenReadOnly(db_path);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto campaigns = (*db)->Campaigns("user-workloads");
    ASSERT_EQ(campaigns->size(), 1u);
    auto runs = (*db)->RunsOfCampaign(campaigns->front().id);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 8u);
    for (const db::RunRow& row : *runs) {
      EXPECT_EQ(row.run.status, db::RunStatus::kGreen) << row.run.metrics_json;
      auto pins = (*db)->PinsOfRun(row.id);
      ASSERT_TRUE(pins.ok() && pins->has_value()) << "run " << row.id << " has no pins";
      const db::RunPins& p = **pins;
      EXPECT_EQ(p.tool_version, ToolVersion());
      EXPECT_EQ(*Sha256File(p.workload_path), p.workload_sha256) << p.workload_path;
      const auto metrics = nlohmann::json::parse(row.run.metrics_json);
      if (p.workload == "hello") {
        hello_run = row.id;
        EXPECT_EQ(p.workload_sha256, hello_sha);
        EXPECT_EQ(metrics.value("exit_code", -1), 3) << row.run.metrics_json;
        EXPECT_EQ(metrics.value("console", "").rfind("hello from htif, sum=0x", 0), 0u)
            << row.run.metrics_json;
      } else if (p.workload == "random") {
        random_run = row.id;
        EXPECT_EQ(p.generator_version, "progen-1");
      } else {
        EXPECT_EQ(p.generator_version, "");
      }
    }
  }
  ASSERT_NE(hello_run, 0) << "no run drew the user workload";
  ASSERT_NE(random_run, 0) << "no run drew a generated program";

  Cmd show = RunLab("show " + std::to_string(hello_run) + " --db " + db_path);
  EXPECT_NE(show.out.find("elf:     hello " + (dir / "elf/hello.elf").string() + " sha256 " +
                          hello_sha),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find(std::string("tool:    ") + ToolVersion()), std::string::npos) << show.out;

  // The image directory is gone (a cleaned build tree): replays come from the artifact store.
  fs::remove_all(dir / "images");
  for (int64_t id : {hello_run, random_run}) {
    Cmd r = RunLab("replay " + std::to_string(id) + " --db " + db_path + " --image-dir " +
                   (dir / "images").string());
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("stream: bit-identical"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("image from the artifact store"), std::string::npos) << r.out;
  }

  // The ELF rebuilt differently (same name, other bytes).
  fs::copy_file(example + "htif_hello_wait.elf", dir / "elf/hello.elf",
                fs::copy_options::overwrite_existing);
  const std::string new_sha = *Sha256File((dir / "elf/hello.elf").string());
  ASSERT_NE(new_sha, hello_sha);
  Cmd refused = RunLab("replay " + std::to_string(hello_run) + " --db " + db_path +
                       " --artifacts none");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find((dir / "elf/hello.elf").string() + " has SHA-256 " + new_sha),
            std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("with ELF SHA-256 " + hello_sha), std::string::npos) << refused.out;
  Cmd from_store = RunLab("replay " + std::to_string(hello_run) + " --db " + db_path +
                          " --image-dir " + (dir / "images").string());
  EXPECT_EQ(from_store.exit_code, 0) << from_store.out;
  EXPECT_NE(from_store.out.find("ELF sha256 " + hello_sha + " from the artifact store"),
            std::string::npos)
      << from_store.out;

  // gc keeps every referenced artifact and removes one no run refers to.
  const std::string junk = std::string(64, 'f');
  fs::create_directories(db_path + ".artifacts/sha256/ff");
  std::ofstream(db_path + ".artifacts/sha256/ff/" + junk) << "junk";
  Cmd gc = RunLab("db gc --db " + db_path + " --json");
  ASSERT_EQ(gc.exit_code, 0) << gc.out;
  const auto g = nlohmann::json::parse(gc.out);
  EXPECT_EQ(g["removed_digests"], nlohmann::json::array({junk})) << gc.out;
  EXPECT_GE(g["kept"].get<int>(), 4) << gc.out;  // image, hello, loop, a generated program
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ctte::runner
