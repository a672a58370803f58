// Identity, manifest and register behaviour of the built encoder images.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/sha256.h"
#include "tests/rtl/image_harness.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

nlohmann::json ReadManifest(const std::string& name) {
  Result<std::string> text =
      ReadFileText(std::string(CTTE_BINARY_DIR) + "/images/" + name + ".manifest.json");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (!text.ok()) return {};
  return nlohmann::json::parse(*text);
}

class ImageTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ImageTest, ManifestHashMatchesTheImageFile) {
  const nlohmann::json m = ReadManifest(GetParam());
  Result<std::string> sha = Sha256File(ImagePath(GetParam()));
  ASSERT_TRUE(sha.ok()) << sha.status().ToString();
  EXPECT_EQ(m.at("sha256").get<std::string>(), *sha);
  EXPECT_EQ(m.at("name").get<std::string>(), GetParam());
  // Issue 16: the width the image was elaborated with.
  EXPECT_EQ(m.at("xlen").get<int>(), std::string(GetParam()) == "ntrace-rv32" ? 32 : 64);
  EXPECT_EQ(m.at("rtl_digest").get<std::string>().size(), 64u);
  EXPECT_NE(m.at("verilator_version").get<std::string>().find("Verilator"), std::string::npos);
}

TEST_P(ImageTest, IdentityRegistersMatchManifest) {
  const nlohmann::json m = ReadManifest(GetParam());
  auto h = LoadImage(GetParam());
  ASSERT_NE(h, nullptr);
  EXPECT_STREQ(h->table().name, GetParam());
  h->Reset();
  const uint64_t build_id =
      (uint64_t{h->ReadReg(reg::kBuildIdHi)} << 32) | h->ReadReg(reg::kBuildIdLo);
  const uint64_t manifest_id = std::stoull(m.at("build_id").get<std::string>(), nullptr, 16);
  EXPECT_EQ(build_id, manifest_id);
  EXPECT_NE(build_id, 0u);
  const uint32_t profile = h->ReadReg(reg::kProfile);
  EXPECT_EQ(profile & 0xffu, m.at("profile_id").get<uint32_t>());
  EXPECT_EQ((profile >> reg::kProfileXlenLsb) & 0xffu, m.at("xlen").get<uint32_t>());
  EXPECT_EQ((profile >> 16) & 0xffu, m.at("log2_qdepth").get<uint32_t>());
  EXPECT_EQ(profile >> 24, m.at("log2_fifo_depth").get<uint32_t>());
  EXPECT_EQ(h->ReadReg(reg::kCaps), m.at("caps").get<uint32_t>());
  EXPECT_EQ(h->ReadReg(reg::kMutant), m.at("mutant").get<uint32_t>());
  EXPECT_EQ(h->ReadReg(reg::kTeImpl), 0xC7010101u);
  // Section 11: the enables reset to 0; a compiled implicit return reads mode 3 and its caps.
  const uint32_t depth = m.at("return_stack_depth").get<uint32_t>();
  EXPECT_EQ(h->ReadReg(reg::kTeInstFeatures), depth > 0 ? 3u << reg::kFeatImplicitReturnModeLsb
                                                         : 0u);
  EXPECT_EQ(h->ReadReg(reg::kFeatureCaps), m.at("feature_caps").get<uint32_t>());
  EXPECT_EQ(h->ReadReg(0x3FC), 0u);
  EXPECT_FALSE(h->failed()) << h->failure();
}

TEST(ImageManifestTest, ImagesOfOneBuildHaveDistinctBuildIdsAndOneRtlDigest) {
  const nlohmann::json slim = ReadManifest("ntrace-slim");
  const nlohmann::json shallow = ReadManifest("ntrace-shallow");
  EXPECT_NE(slim.at("build_id"), shallow.at("build_id"));
  EXPECT_NE(slim.at("sha256"), shallow.at("sha256"));
  EXPECT_EQ(slim.at("rtl_digest"), shallow.at("rtl_digest"));
  EXPECT_GT(slim.at("fmax_mhz").get<double>(), shallow.at("fmax_mhz").get<double>());
}

INSTANTIATE_TEST_SUITE_P(Profiles, ImageTest,
                         ::testing::Values("ntrace-slim", "ntrace-shallow", "ntrace-full",
                                           "ntrace-rv32"));

TEST(ImageRegisterTest, ControlFieldsAreWarlAndResetAsDocumented) {
  auto h = LoadImage("ntrace-slim");
  ASSERT_NE(h, nullptr);
  h->Reset();
  // Reset: inactive, mode HTM, InhibitSrc 1, Format N-Trace, Empty 1.
  EXPECT_EQ(h->ReadReg(reg::kTeControl), (1u << 24) | (1u << 15) | (6u << 4) | (1u << 3));
  h->WriteReg(reg::kTeControl, 1u | (5u << 4) | (2u << 16) | (7u << 20));
  uint32_t c = h->ReadReg(reg::kTeControl);
  EXPECT_EQ((c >> 4) & 7u, 6u) << "mode 5 legalizes to HTM";
  EXPECT_EQ((c >> 16) & 3u, 0u) << "sync mode 2 (cycles) legalizes to 0";
  EXPECT_EQ((c >> 20) & 15u, 7u);
  h->WriteReg(reg::kTeControl, 1u | (3u << 4) | (3u << 16));
  c = h->ReadReg(reg::kTeControl);
  EXPECT_EQ((c >> 4) & 7u, 3u);
  EXPECT_EQ((c >> 16) & 3u, 3u);
  h->WriteReg(reg::kTeControl, 1u);
  EXPECT_EQ((h->ReadReg(reg::kTeControl) >> 4) & 7u, 0u);
}

TEST(ImageRegisterTest, NothingIsOfferedToTheSinkDuringOrRightAfterReset) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {  // X-initialization differs per seed
    ImageHarness::Options o;
    o.seed = seed;
    o.sink_period = 6;
    auto h = LoadImage("ntrace-slim", o);
    ASSERT_NE(h, nullptr);
    h->Reset();
    h->Idle(10);
    EXPECT_TRUE(h->bytes().empty()) << "seed " << seed << ": " << Hex(h->bytes());
  }
}

TEST(ImageRegisterTest, ModelsAreIndependentAndAssertionsStayQuiet) {
  auto a = LoadImage("ntrace-slim");
  auto b = LoadImage("ntrace-slim");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  a->Reset();
  b->Reset();
  a->WriteReg(reg::kTeControl, ControlWord(true, true, reg::kInstModeHtm));
  a->Beat(MakeBeat(0, 0x80000000, 2));
  a->WriteReg(reg::kTeControl, ControlWord(false, false, reg::kInstModeHtm));
  ASSERT_TRUE(a->Drain());
  EXPECT_EQ(a->ReadReg(reg::kMsgCount), 2u);
  EXPECT_EQ(b->ReadReg(reg::kMsgCount), 0u);
  EXPECT_TRUE(b->bytes().empty());
  EXPECT_FALSE(a->failed()) << a->failure();
  EXPECT_FALSE(b->failed()) << b->failure();
}

// The assert-probe image (rtl/test/ctte_assert_probe.sv) fires an assertion or a $fatal on a
// magic write to 0x3F0: the image must report it through failed()/failure_message(), print
// nothing on stdout (a board's protocol stream), and stay destroyable.
std::unique_ptr<ImageHarness> LoadProbe() {
  std::string error;
  auto h = ImageHarness::Load(std::string(CTTE_BINARY_DIR) + "/tests/images/assert-probe.so",
                              {}, &error);
  EXPECT_NE(h, nullptr) << error;
  return h;
}

TEST(ImageFailureTest, FailedAssertionIsReportedWithFileAndText) {
  auto h = LoadProbe();
  ASSERT_NE(h, nullptr);
  h->Reset();
  h->WriteReg(0x3F0, 0);
  EXPECT_FALSE(h->failed()) << h->failure();
  ::testing::internal::CaptureStdout();
  h->WriteReg(0x3F0, 0x0BAD0BAD);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "");
  ASSERT_TRUE(h->failed());
  EXPECT_NE(h->failure().find("ctte_assert_probe.sv"), std::string::npos) << h->failure();
  EXPECT_NE(h->failure().find("probe assertion fired"), std::string::npos) << h->failure();
}

TEST(ImageFailureTest, FatalIsReportedAndTheModelCanBeDestroyed) {
  auto h = LoadProbe();
  ASSERT_NE(h, nullptr);
  h->Reset();
  ::testing::internal::CaptureStdout();
  h->WriteReg(0x3F0, 0xFA7A1000);
  h->Idle(3);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  ASSERT_TRUE(h->failed());
  EXPECT_NE(h->failure().find("probe fatal"), std::string::npos) << h->failure();
  auto other = LoadImage("ntrace-slim");
  ASSERT_NE(other, nullptr);
  EXPECT_FALSE(other->failed()) << "a failure belongs to its model only";
}

// ctte_repeat's standing assertion (docs/encoder-behaviour.md section 11.5): a repeat counter
// never spans a sync. The probe's repeat stage lets a sync pass a held run (TestSpanSync): with
// repeated history on, 17 identical full HISTs and a periodic sync every 16 messages, the
// assertion fires; with the feature off the same beats are clean.
TEST(ImageFailureTest, RepeatStateSpanningASyncFiresTheAssertion) {
  for (const bool on : {false, true}) {
    SCOPED_TRACE(on ? "repeated history on" : "off");
    auto h = LoadProbe();
    ASSERT_NE(h, nullptr);
    h->Reset();
    h->WriteReg(reg::kTeInstFeatures, on ? reg::kFeatEnRepeatedHistory : 0u);
    h->WriteReg(reg::kTeControl, ControlWord(true, true, reg::kInstModeHtm, 1, 0));
    ::testing::internal::CaptureStdout();
    for (int i = 0; i < 31 * 17 + 4; ++i) {
      h->Beat(MakeBeat(5, 0x80000000u + 4u * static_cast<uint32_t>(i % 2), 2));
      h->Idle(4);
    }
    h->WriteReg(reg::kTeControl, ControlWord(false, false, reg::kInstModeHtm));
    h->Idle(400);
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
    if (on) {
      ASSERT_TRUE(h->failed());
      EXPECT_NE(h->failure().find("repeat state spans a sync"), std::string::npos)
          << h->failure();
    } else {
      EXPECT_FALSE(h->failed()) << h->failure();
    }
  }
}

TEST(ImageRegisterTest, FstWaveformIsWrittenOnRequest) {
  auto h = LoadImage("ntrace-slim");
  ASSERT_NE(h, nullptr);
  const std::string path = ::testing::TempDir() + "/ctte_rtl_waves.fst";
  std::remove(path.c_str());
  ASSERT_EQ(h->table().trace_open(h->model(), path.c_str()), 0);
  h->Reset();
  h->WriteReg(reg::kTeControl, ControlWord(true, true, reg::kInstModeHtm));
  h->Beat(MakeBeat(0, 0x80000000, 2));
  h->Idle(20);
  h->table().trace_close(h->model());
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_GT(bytes->size(), 100u);
  EXPECT_NE(h->table().trace_open(h->model(), "/nonexistent-dir/x.fst"), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ctte::rtl_test
