// ImageManifest::Load: the keys rtl/cmake/write_manifest.cmake writes, and errors naming the file
// and the key for what would otherwise silently weaken a check (an fmax of 0 switches the closure
// gate off).
#include "lab/image_manifest.h"
#include "rtl/ctte_image_abi.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace ctte::lab {
namespace {

// As write_manifest.cmake writes it, with `fmax` and `xlen` spliced in.
std::string Manifest(const std::string& fmax, const std::string& xlen = "64") {
  std::string m = "{\"name\": \"ntrace-slim\", \"image\": \"ntrace-slim.so\", \"sha256\": \"" +
                  std::string(64, 'a') +
                  "\", \"build_id\": \"0x0123456789abcdef\", \"profile\": \"slim\", "
                  "\"profile_id\": 1, \"caps\": 127, \"xlen\": " + xlen;
  if (!fmax.empty()) m += ", \"fmax_mhz\": " + fmax;
  return m + ", \"log2_qdepth\": 4, \"log2_fifo_depth\": 4, \"mutant\": 0, \"abi_version\": " +
             std::to_string(CTTE_IMAGE_ABI_VERSION) + ", "
             "\"rtl_digest\": \"" + std::string(64, 'b') +
             "\", \"verilator_version\": \"Verilator 5.006\"}";
}

std::string Write(const std::string& text) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path =
      ::testing::TempDir() + "ctte_manifest_" + info->name() + ".manifest.json";
  std::ofstream(path) << text;
  return path;
}

TEST(ImageManifestTest, LoadsWhatTheBuildWrites) {
  const std::string path = Write(Manifest("94.4"));
  Result<ImageManifest> m = ImageManifest::Load(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->name, "ntrace-slim");
  EXPECT_EQ(m->build_id, 0x0123456789abcdefu);
  EXPECT_EQ(m->caps, 127u);
  EXPECT_EQ(m->xlen, 64u);
  EXPECT_DOUBLE_EQ(m->fmax_mhz, 94.4);
  EXPECT_EQ(m->rtl_digest, std::string(64, 'b'));
  EXPECT_EQ(m->verilator_version, "Verilator 5.006");
  EXPECT_EQ(m->image_path, path.substr(0, path.rfind('/')) + "/ntrace-slim.so");
}

void ExpectRejected(const std::string& text, const std::string& key) {
  const std::string path = Write(text);
  Result<ImageManifest> m = ImageManifest::Load(path);
  ASSERT_FALSE(m.ok()) << text;
  EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(m.status().message().find(path + ": " + key + ": "), std::string::npos)
      << m.status().ToString();
}

TEST(ImageManifestTest, AnotherImageAbiIsAnError_bad) {
  std::string m = Manifest("94.4");
  const std::string ours = "\"abi_version\": " + std::to_string(CTTE_IMAGE_ABI_VERSION);
  ASSERT_NE(m.find(ours), std::string::npos);
  m.replace(m.find(ours), ours.size(), "\"abi_version\": 1");
  ExpectRejected(m, "abi_version");
}

TEST(ImageManifestTest, MissingZeroNegativeOrNonNumericFmaxIsAnError_bad) {
  ExpectRejected(Manifest(""), "fmax_mhz");
  ExpectRejected(Manifest("0"), "fmax_mhz");
  ExpectRejected(Manifest("-90"), "fmax_mhz");
  ExpectRejected(Manifest("\"94.4\""), "fmax_mhz");
  ExpectRejected(Manifest("null"), "fmax_mhz");
}

TEST(ImageManifestTest, WronglyTypedXlenIsAnError_bad) {
  ExpectRejected(Manifest("94.4", "\"64\""), "xlen");
  ExpectRejected(Manifest("94.4", "-64"), "xlen");
  ExpectRejected(Manifest("94.4", "64.5"), "xlen");
}

// Issue 16: the width is 32 or 64; any other value names the key and the value.
TEST(ImageManifestTest, XlenIs32Or64_bad) {
  Result<ImageManifest> m = ImageManifest::Load(Write(Manifest("94.4", "32")));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->xlen, 32u);
  ExpectRejected(Manifest("94.4", "48"), "xlen");
  ExpectRejected(Manifest("94.4", "0"), "xlen");
  Result<ImageManifest> bad = ImageManifest::Load(Write(Manifest("94.4", "48")));
  EXPECT_NE(bad.status().message().find("xlen: expected 32 or 64, got 48"), std::string::npos)
      << bad.status().ToString();
}

// The register map (docs/zynq-board.md): name -> offset, carried into the deploy request.
TEST(ImageManifestTest, ReadsTheRegisterMap) {
  std::string text = Manifest("94.4");
  text.insert(text.size() - 1, ", \"registers\": {\"trTeControl\": \"0x000\", \"ctteCaps\": 268}");
  Result<ImageManifest> m = ImageManifest::Load(Write(text));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->registers.size(), 2u);
  EXPECT_EQ(m->registers.at("ctteCaps"), 0x10Cu);
  EXPECT_EQ(m->ToDeployRequest().registers, m->registers);
  EXPECT_TRUE(ImageManifest::Load(Write(Manifest("94.4")))->registers.empty());
}

TEST(ImageManifestTest, MalformedRegisterMapIsAnError_bad) {
  for (const char* bad : {"[]", "{\"x\": \"0x3\"}", "{\"x\": \"zz\"}", "{\"x\": -4}",
                          "{\"x\": \"0x100000000\"}"}) {
    std::string text = Manifest("94.4");
    text.insert(text.size() - 1, std::string(", \"registers\": ") + bad);
    const std::string path = Write(text);
    Result<ImageManifest> m = ImageManifest::Load(path);
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_NE(m.status().message().find("registers"), std::string::npos) << m.status().ToString();
  }
}

// The compiled optional features (the campaign features axis is clamped to them).
TEST(ImageManifestTest, ReadsTheCompiledFeatures) {
  EXPECT_TRUE(ImageManifest::Load(Write(Manifest("94.4")))->features.empty());
  std::string text = Manifest("94.4");
  text.insert(text.size() - 1, ", \"features\": [\"implicit-return\", \"repeated-history\"]");
  Result<ImageManifest> m = ImageManifest::Load(Write(text));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->features, (std::vector<std::string>{"implicit-return", "repeated-history"}));
}

TEST(ImageManifestTest, MalformedFeaturesAreAnError_bad) {
  for (const char* bad : {"\"implicit-return\"", "[3]", "{}"}) {
    std::string text = Manifest("94.4");
    text.insert(text.size() - 1, std::string(", \"features\": ") + bad);
    ExpectRejected(text, bad[0] == '[' ? "features[0]" : "features");
  }
}

// The aliases of earlier drafts ("fmax", "file", "capabilities", ...) are not read.
TEST(ImageManifestTest, OnlyTheWrittenKeysAreRead) {
  std::string text = Manifest("");
  text.insert(text.size() - 1, ", \"fmax\": 94.4, \"capabilities\": 3, \"file\": \"x.so\"");
  ExpectRejected(text, "fmax_mhz");
  text = Manifest("94.4");
  text.insert(text.size() - 1, ", \"capabilities\": 3, \"file\": \"x.so\"");
  Result<ImageManifest> m = ImageManifest::Load(Write(text));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->caps, 127u);
  EXPECT_NE(m->image_path.find("/ntrace-slim.so"), std::string::npos);
}

}  // namespace
}  // namespace ctte::lab
