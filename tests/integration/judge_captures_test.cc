// The judge tests' golden captures (tests/judge/captures, docs/test-captures.md) are what the
// current images capture: each file's configuration is run again on fresh SimBoards, main and
// twin, and every byte and every capture fact but the host's wall time must equal the file's,
// as must the image parameters the judges read from the manifest and the workload's program.
// With CTTE_RECORD_CAPTURES=1 (scripts/record-captures) the files, pending requests included,
// are written from the fresh captures instead.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "tests/integration/board_fixture.h"

namespace ctte::testing {
namespace {

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kCaptureDir)) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool Recording() {
  const char* v = std::getenv("CTTE_RECORD_CAPTURES");
  return v != nullptr && std::string(v) == "1";
}

TEST(JudgeCapturesTest, EveryGoldenCaptureIsWhatTheImagesCaptureNow) {
  std::string why;
  if (!HaveImagesAndWorkloads(&why)) GTEST_SKIP() << why;
  const std::vector<std::string> files = GoldenFiles();
  ASSERT_GE(files.size(), 10u) << "the judge tests' captures are missing from " << kCaptureDir;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    Result<CaptureRequest> req = ReadCaptureRequest(path);
    ASSERT_TRUE(req.ok()) << req.status().ToString();
    Result<std::unique_ptr<CapturedRun>> fresh =
        CaptureFresh(req->config, TestOptions(req->max_instructions), /*twin=*/true);
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    if (Recording()) {
      ASSERT_TRUE(WriteCapturedRun(path, **fresh, req->max_instructions).ok());
      std::printf("recorded %s (%zu bytes)\n", path.c_str(), (*fresh)->capture.bytes.size());
      continue;
    }
    ASSERT_FALSE(req->pending) << "never recorded: run scripts/record-captures";
    Result<std::unique_ptr<CapturedRun>> golden =
        LoadCapturedRun(kCaptureDir, req->config, TestOptions(req->max_instructions), true);
    ASSERT_TRUE(golden.ok()) << golden.status().ToString();
    EXPECT_EQ(CaptureDifferences((*golden)->capture, (*fresh)->capture), "") << "main capture";
    EXPECT_EQ(CaptureDifferences((*golden)->twin_capture, (*fresh)->twin_capture), "")
        << "twin capture";
    const lab::ImageManifest& g = (*golden)->run.manifest;
    const lab::ImageManifest& f = (*fresh)->run.manifest;
    EXPECT_EQ(g.name, f.name);
    EXPECT_EQ(g.caps, f.caps);
    EXPECT_EQ(g.feature_caps, f.feature_caps);
    EXPECT_EQ(g.features, f.features);
    EXPECT_EQ(g.return_stack_depth, f.return_stack_depth);
    EXPECT_EQ(g.xlen, f.xlen);
    EXPECT_EQ(g.registers, f.registers);
    EXPECT_EQ(g.rtl_digest, f.rtl_digest) << "the RTL changed: record the captures again";
  }
}

}  // namespace
}  // namespace ctte::testing
