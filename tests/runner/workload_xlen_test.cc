// Images of two widths (runner/workload_xlen.h, issue 16): a workload whose ELF class is not the
// image's XLEN is refused before the run by PrepareRun (`ctte-lab run`) and by the preflight
// (`ctte-lab campaign check`), with the image, its XLEN and the ELF's class named; built-in
// workloads resolve to their build of the image's width. Host-only: fake manifests, no image.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "oracle/elf_writer.h"
#include "oracle/program_gen.h"
#include "runner/campaign_spec.h"
#include "runner/plan.h"
#include "runner/preflight.h"
#include "runner/workload_xlen.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;

class WorkloadXlenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("ctte_wl_xlen_" + std::to_string(getpid()));
    fs::create_directories(dir_ / "images");
    fs::create_directories(dir_ / "wl");
    WriteManifest("ntrace-slim", 64);
    WriteManifest("ntrace-rv32", 32);
    const oracle::GeneratedProgram p = oracle::GenerateProgram(5, {});
    elf64_ = (dir_ / "wl" / "loop.elf").string();
    ASSERT_TRUE(oracle::WriteElf(elf64_, p.entry, p.segments, p.symbols).ok());
    // ELFCLASS32 by its header (byte 4 = 1): what ElfXlen reads.
    elf32_ = (dir_ / "wl" / "loop-rv32.elf").string();
    fs::copy_file(elf64_, elf32_);
    std::fstream f(elf32_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4);
    f.put(1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void WriteManifest(const std::string& name, int xlen) {
    std::ofstream(dir_ / "images" / (name + ".manifest.json"))
        << "{\"name\": \"" << name << "\", \"sha256\": \"" << std::string(64, 'a')
        << "\", \"build_id\": \"0x0123456789abcdef\", \"caps\": 127, \"xlen\": " << xlen
        << ", \"fmax_mhz\": 200}";  // above the default 100 MHz clock
  }
  PlanOptions Options() const {
    PlanOptions o;
    o.image_dir = (dir_ / "images").string();
    o.workload_dir = (dir_ / "wl").string();
    return o;
  }
  CampaignSpec Spec(const std::string& images) const {
    SpecCheck c = ParseCampaignSpec(
        R"({"name": "x", "seed": 3, "runs": 40, "images": )" + images +
        R"(, "axes": {"workload": ["loop"]}})");
    EXPECT_TRUE(c.ok()) << FormatSpecErrors("spec", c.errors);
    return c.spec;
  }

  fs::path dir_;
  std::string elf64_, elf32_;
};

TEST_F(WorkloadXlenTest, ElfClassComesFromTheHeader) {
  EXPECT_EQ(*ElfXlen(elf64_), 64u);
  EXPECT_EQ(*ElfXlen(elf32_), 32u);
  const std::string text = (dir_ / "text.elf").string();
  std::ofstream(text) << "#!/bin/sh\n";
  Result<uint32_t> bad = ElfXlen(text);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not an ELF"), std::string::npos);
  EXPECT_EQ(BuiltinWorkloadPath("/w", "loop", 32), "/w/loop-rv32.elf");
  EXPECT_EQ(BuiltinWorkloadPath("/w", "loop", 64), "/w/loop.elf");
}

TEST_F(WorkloadXlenTest, PrepareRunRefusesA64BitElfOnA32BitImage_bad) {
  PlanOptions o = Options();
  o.workload_path = elf64_;
  RunConfig c;
  c.image = "ntrace-rv32";
  c.workload = "loop";
  Result<PreparedRun> r = PrepareRun(c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("image ntrace-rv32 is XLEN 32 but workload loop (" +
                                      elf64_ + ") is ELFCLASS64 (RV64): refused before the run"),
            std::string::npos)
      << r.status().ToString();
}

TEST_F(WorkloadXlenTest, PrepareRunRefusesA32BitElfOnA64BitImage_bad) {
  PlanOptions o = Options();
  o.workload_path = elf32_;
  RunConfig c;
  c.image = "ntrace-slim";
  c.workload = "loop";
  Result<PreparedRun> r = PrepareRun(c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("image ntrace-slim is XLEN 64 but workload loop (" +
                                      elf32_ + ") is ELFCLASS32 (RV32)"),
            std::string::npos)
      << r.status().ToString();
}

TEST_F(WorkloadXlenTest, PreflightPairsBuiltinsPerWidth) {
  // loop resolves to wl/loop.elf on the 64-bit image and wl/loop-rv32.elf on the 32-bit one:
  // no class problem (the rv32 file's body is not a loadable ELF32, which Load reports).
  PreflightReport rep = PreflightCampaign(Spec(R"(["ntrace-slim", "ntrace-rv32"])"), Options());
  for (const PreflightProblem& p : rep.problems) {
    EXPECT_EQ(p.reason.find("refused before the run"), std::string::npos) << p.reason;
  }
  // The same file for both widths: the 32-bit image is refused, naming image, XLEN and class.
  PlanOptions o = Options();
  fs::remove(elf32_);
  fs::copy_file(elf64_, elf32_);
  rep = PreflightCampaign(Spec(R"(["ntrace-slim", "ntrace-rv32"])"), o);
  ASSERT_EQ(rep.problems.size(), 1u);
  EXPECT_EQ(rep.problems[0].cause, InfraCause::kPrepare);
  EXPECT_NE(rep.problems[0].reason.find("image ntrace-rv32 is XLEN 32 but workload loop (" +
                                        elf32_ + ") is ELFCLASS64"),
            std::string::npos)
      << rep.problems[0].reason;
  EXPECT_GT(rep.problems[0].runs_hit, 0u);
  EXPECT_LT(rep.problems[0].runs_hit, rep.scanned);  // the 64-bit image's runs are fine
  // A 64-bit-only campaign has nothing to refuse.
  EXPECT_TRUE(PreflightCampaign(Spec(R"(["ntrace-slim"])"), o).ok());
}

TEST_F(WorkloadXlenTest, PreflightRefusesAUserWorkloadOfTheOtherWidth_bad) {
  PlanOptions o = Options();
  o.user_workloads["loop"] = elf64_;  // one file, one class: only the 64-bit image runs it
  PreflightReport rep = PreflightCampaign(Spec(R"(["ntrace-slim", "ntrace-rv32"])"), o);
  ASSERT_EQ(rep.problems.size(), 1u);
  EXPECT_NE(rep.problems[0].reason.find("image ntrace-rv32 is XLEN 32"), std::string::npos)
      << rep.problems[0].reason;
}

}  // namespace
}  // namespace ctte::runner
