// The "workloads" table of campaign specs (docs/campaign-spec.md, "Workloads"): a lab's ELF
// files as values of the workload axis, each checked when the spec is read, with errors naming
// the JSON path and the file; and the pinned spec text a campaign row stores.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/sha256.h"
#include "oracle/elf_writer.h"
#include "oracle/program_gen.h"
#include "runner/campaign_spec.h"

namespace ctte::runner {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class SpecWorkloadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("ctte_spec_wl_" + std::to_string(getpid()));
    fs::create_directories(dir_ / "elf");
    const oracle::GeneratedProgram p = oracle::GenerateProgram(5, {});
    good_ = (dir_ / "elf" / "mine.elf").string();
    ASSERT_TRUE(oracle::WriteElf(good_, p.entry, p.segments, p.symbols).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  SpecCheck Parse(const json& workloads, const json& axis = json::array({"mine", "loop"})) {
    json j = json::parse(R"({"name": "t", "seed": 7, "runs": 4, "images": ["ntrace-slim"]})");
    j["workloads"] = workloads;
    j["axes"] = {{"workload", axis}};
    return ParseCampaignSpec(j.dump(), dir_.string());
  }
  // A copy of the good ELF with byte `offset` set to `value`.
  std::string Patched(const std::string& name, size_t offset, unsigned char value) {
    const std::string out = (dir_ / name).string();
    fs::copy_file(good_, out, fs::copy_options::overwrite_existing);
    std::fstream f(out, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(static_cast<char>(value));
    return out;
  }
  static std::string Errors(const SpecCheck& c) {
    std::string s;
    for (const SpecError& e : c.errors) s += e.ToString() + "\n";
    return s;
  }

  fs::path dir_;
  std::string good_;
};

TEST_F(SpecWorkloadsTest, AUserWorkloadIsAnAxisValueWithItsFileAndDigest) {
  const SpecCheck c = Parse({{"mine", "elf/mine.elf"}});
  ASSERT_TRUE(c.ok()) << Errors(c);
  ASSERT_EQ(c.spec.workloads.size(), 1u);
  const UserWorkload& w = c.spec.workloads[0];
  EXPECT_EQ(w.name, "mine");
  EXPECT_EQ(w.elf, "elf/mine.elf");
  EXPECT_EQ(w.path, (dir_ / "elf" / "mine.elf").string());
  EXPECT_EQ(w.sha256, *Sha256File(good_));
  EXPECT_EQ(c.spec.axis("workload").values.size(), 2u);
  EXPECT_NE(c.spec.user_workload("mine"), nullptr);
  EXPECT_EQ(c.spec.user_workload("loop"), nullptr);
}

TEST_F(SpecWorkloadsTest, AnAxisValueNamingNoWorkloadListsTheUserNames_bad) {
  const SpecCheck c = Parse({{"mine", "elf/mine.elf"}}, json::array({"mine", "yours"}));
  ASSERT_EQ(c.errors.size(), 1u) << Errors(c);
  EXPECT_EQ(c.errors[0].path, "$.axes.workload[1]");
  EXPECT_THAT(c.errors[0].reason, ::testing::HasSubstr("a $.workloads name (mine)"));
  // Without the table the name is unknown too.
  json j = json::parse(R"({"name": "t", "seed": 7, "runs": 4, "images": ["ntrace-slim"],
                           "axes": {"workload": ["mine"]}})");
  EXPECT_FALSE(ParseCampaignSpec(j.dump(), dir_.string()).ok());
}

TEST_F(SpecWorkloadsTest, AMissingFileIsNamedWithItsPath_bad) {
  const SpecCheck c = Parse({{"mine", "elf/absent.elf"}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.errors[0].path, "$.workloads.mine");
  EXPECT_THAT(c.errors[0].reason, ::testing::HasSubstr((dir_ / "elf/absent.elf").string()));
  EXPECT_THAT(c.errors[0].reason, ::testing::HasSubstr("cannot read"));
}

TEST_F(SpecWorkloadsTest, ANonElfIsRefused_bad) {
  std::ofstream(dir_ / "notes.txt") << "not an ELF at all\n";
  const SpecCheck c = Parse({{"mine", "notes.txt"}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.errors[0].path, "$.workloads.mine");
  EXPECT_THAT(c.errors[0].reason, ::testing::HasSubstr("notes.txt: not an ELF file"));
}

TEST_F(SpecWorkloadsTest, WrongClassAndWrongMachineAreRefused_bad) {
  Patched("elf32.elf", 4, 1);     // EI_CLASS = ELFCLASS32
  Patched("x86.elf", 18, 62);     // e_machine = EM_X86_64
  const SpecCheck c = Parse({{"mine", "elf32.elf"}, {"other", "x86.elf"}},
                            json::array({"mine", "other"}));
  EXPECT_TRUE(std::any_of(c.errors.begin(), c.errors.end(), [](const SpecError& e) {
    return e.path == "$.workloads.mine" && e.reason.find("wrong ELF class 1") != std::string::npos;
  })) << Errors(c);
  EXPECT_TRUE(std::any_of(c.errors.begin(), c.errors.end(), [](const SpecError& e) {
    return e.path == "$.workloads.other" &&
           e.reason.find("wrong ELF machine 62") != std::string::npos;
  })) << Errors(c);
}

TEST_F(SpecWorkloadsTest, ASegmentOnAPlatformDeviceWindowIsRefused_bad) {
  oracle::Segment uart;
  uart.vaddr = 0x10000000;  // QEMU virt's UART (a program without HTIF runs on virt's map)
  uart.memsz = 16;
  uart.executable = true;
  uart.bytes.assign(16, 0x13);
  ASSERT_TRUE(oracle::WriteElf((dir_ / "uart.elf").string(), 0x10000000, {uart}, {}).ok());
  const SpecCheck c = Parse({{"mine", "uart.elf"}});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.errors[0].path, "$.workloads.mine");
  EXPECT_THAT(c.errors[0].reason,
              ::testing::HasSubstr("program header 0 (vaddr 0x10000000, memsz 0x10): segment "
                                   "[0x10000000, 0x10000010) overlaps the UART window "
                                   "[0x10000000, 0x10000100) (virt machine)"));
}

TEST_F(SpecWorkloadsTest, ASegmentLinkedWhereAnotherSdkPutsRamIsAccepted) {
  oracle::Segment low;
  low.vaddr = 0x20010000;
  low.memsz = 16;
  low.executable = true;
  low.bytes.assign(16, 0x13);
  ASSERT_TRUE(oracle::WriteElf((dir_ / "low.elf").string(), 0x20010000, {low}, {}).ok());
  const SpecCheck c = Parse({{"mine", "low.elf"}});
  EXPECT_TRUE(c.ok()) << (c.errors.empty() ? "" : c.errors[0].reason);
}

TEST_F(SpecWorkloadsTest, BuiltInNamesBadNamesAndWrongPinsAreRefused_bad) {
  const SpecCheck c = Parse({{"loop", "elf/mine.elf"},
                             {"Bad Name", "elf/mine.elf"},
                             {"mine", {{"elf", "elf/mine.elf"}, {"sha256", std::string(64, 'a')}}},
                             {"typed", 7}},
                            json::array({"loop"}));
  const std::string e = Errors(c);
  EXPECT_THAT(e, ::testing::HasSubstr("$.workloads.loop: \"loop\" is a built-in workload"));
  EXPECT_THAT(e, ::testing::HasSubstr("$.workloads.Bad Name: bad workload name"));
  EXPECT_THAT(e, ::testing::HasSubstr("$.workloads.mine.sha256: " + good_ + " has SHA-256 " +
                                      *Sha256File(good_) + ", the spec pins " +
                                      std::string(64, 'a')));
  EXPECT_THAT(e, ::testing::HasSubstr("$.workloads.typed: wrong type"));
}

TEST_F(SpecWorkloadsTest, APinThatMatchesIsAccepted) {
  const SpecCheck c = Parse({{"mine", {{"elf", "elf/mine.elf"}, {"sha256", *Sha256File(good_)}}}});
  EXPECT_TRUE(c.ok()) << Errors(c);
}

TEST_F(SpecWorkloadsTest, ControlsMayFixAUserWorkload) {
  json j = json::parse(R"({"name": "t", "seed": 7, "runs": 4, "images": ["ntrace-slim"],
    "workloads": {"mine": "elf/mine.elf"},
    "controls": [{"name": "c", "image": "ntrace-slim", "expect_red": [],
                  "axes": {"workload": "mine"}}]})");
  const SpecCheck c = ParseCampaignSpec(j.dump(), dir_.string());
  ASSERT_TRUE(c.ok()) << Errors(c);
  ASSERT_EQ(c.spec.controls.size(), 1u);
  EXPECT_EQ(c.spec.controls[0].axes[0].second, "mine");
}

TEST_F(SpecWorkloadsTest, PinnedSpecTextChangesWithTheElfsContent) {
  const std::string text = json{{"name", "t"}, {"seed", 7}, {"runs", 4},
                                {"images", {"ntrace-slim"}},
                                {"workloads", {{"mine", "elf/mine.elf"}}},
                                {"axes", {{"workload", {"mine"}}}}}
                               .dump();
  const SpecCheck a = ParseCampaignSpec(text, dir_.string());
  ASSERT_TRUE(a.ok()) << Errors(a);
  const std::string pinned_a = PinnedSpecText(text, a.spec);
  EXPECT_THAT(pinned_a, ::testing::HasSubstr(a.spec.workloads[0].sha256));
  // Rebuilt differently: same name, other bytes -> another pinned text (another campaign).
  const oracle::GeneratedProgram p = oracle::GenerateProgram(6, {});
  ASSERT_TRUE(oracle::WriteElf(good_, p.entry, p.segments, p.symbols).ok());
  const SpecCheck b = ParseCampaignSpec(text, dir_.string());
  ASSERT_TRUE(b.ok()) << Errors(b);
  EXPECT_NE(PinnedSpecText(text, b.spec), pinned_a);
  // The pinned text parses back (and checks the pin).
  EXPECT_TRUE(ParseCampaignSpec(PinnedSpecText(text, b.spec), dir_.string()).ok());
  EXPECT_FALSE(ParseCampaignSpec(pinned_a, dir_.string()).ok());
  // A spec without user workloads is stored as given.
  const std::string plain = R"({"name": "t", "seed": 7, "runs": 4, "images": ["x"]})";
  EXPECT_EQ(PinnedSpecText(plain, ParseCampaignSpec(plain).spec), plain);
}

}  // namespace
}  // namespace ctte::runner
