// The fixture of the ZynqBoard tests (zynq_board_test, and lab_test's real-map tests): a fake
// encoder image with a manifest carrying its register map, a fixture tree with the harness
// overlay installed (the lab's step), the fabric emulator serving it, and a ZynqBoard on it
// (emulated register file when the emulator serves the mailbox, else the real MmapWindow path).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/sha256.h"
#include "lab/image_manifest.h"
#include "lab/zynq/sysfs.h"
#include "lab/zynq/zynq_board.h"
#include "regmap/registers.h"
#include "tests/lab/zynq/fabric_emulator.h"

namespace ctte::lab::zynq {

namespace fs = std::filesystem;
inline const std::string kFakeImage = CTTE_BINARY_DIR "/tests/fake_images/lab_fake_image_good.so";
inline const std::string kImages = CTTE_BINARY_DIR "/images/";
inline const std::string kDtbo = CTTE_ZYNQ_DTBO;  // build/zynq/ctte-harness.dtbo ("" without dtc)

inline std::string TempDir(const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string d = ::testing::TempDir() + "ctte_zynq_" + tag + "_" + info->name();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The fake image's register map: identity, counters and the harness's (from its file).
inline std::map<std::string, uint32_t> FakeMap() {
  std::map<std::string, uint32_t> m = {{"trTeControl", reg::kTeControl},
                                       {"ctteBuildIdLo", reg::kBuildIdLo},
                                       {"ctteBuildIdHi", reg::kBuildIdHi},
                                       {"ctteProfile", reg::kProfile},
                                       {"ctteCaps", reg::kCaps},
                                       {"ctteMsgCount", reg::kMsgCount},
                                       {"ctteByteCount", reg::kByteCount},
                                       {"ctteOverflowEpisodes", reg::kOverflowEpisodes},
                                       {"ctteRecordsDropped", reg::kRecordsDropped},
                                       {"ctteHalfwordsRetired", reg::kHalfwordsRetired},
                                       {"ctteStatus", reg::kStatus}};
  Result<nlohmann::ordered_json> h = ParseJsonFile(CTTE_SOURCE_DIR "/lab/zynq/harness_regmap.json");
  EXPECT_TRUE(h.ok());
  for (const auto& r : (*h)["registers"]) {
    m[r["name"].get<std::string>()] =
        static_cast<uint32_t>(std::stoul(r["offset"].get<std::string>(), nullptr, 16));
  }
  return m;
}

class ZynqBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kFakeImage)) GTEST_SKIP() << "test image " << kFakeImage << " not built";
    root_ = TempDir("root");
    images_ = TempDir("images");
    fs::copy_file(kFakeImage, images_ + "/fake.so");
    sha_ = *Sha256File(images_ + "/fake.so");
    nlohmann::ordered_json m = {{"name", "fake"}, {"image", "fake.so"}, {"sha256", sha_},
                                {"build_id", "0xfeedc0de12345678"}, {"fmax_mhz", 100}};
    for (const auto& [n, off] : FakeMap()) m["registers"][n] = off;
    std::ofstream(images_ + "/fake.manifest.json") << m.dump(2);
  }
  // The lab's install step: the harness overlay in lib/firmware (docs/zynq-board.md).
  void InstallOverlay() {
    fs::create_directories(root_ + "/lib/firmware");
    fs::copy_file(kDtbo, root_ + "/lib/firmware/ctte-harness.dtbo",
                  fs::copy_options::overwrite_existing);
  }
  void Start(FabricEmulatorOptions o = {}, bool install_overlay = true) {
    if (kDtbo.empty() || !fs::exists(kDtbo)) GTEST_SKIP() << "overlay not built (dtc missing)";
    if (install_overlay) InstallOverlay();
    o.sysroot = root_;
    o.image_dir = images_;
    Result<std::unique_ptr<FabricEmulator>> e = FabricEmulator::Create(o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    emu_ = std::move(*e);
    emu_->Start();
    ZynqBoardOptions bo = board_options_;
    bo.sysroot = root_;
    bo.emulated_fabric = o.register_mailbox;
    bo.load_timeout_ms = bo.register_timeout_ms = 5000;
    Result<std::unique_ptr<ZynqBoard>> b = ZynqBoard::Create(bo);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    board_ = std::move(*b);
  }
  DeployRequest Request() {
    Result<ImageManifest> m = ImageManifest::Load(images_ + "/fake.manifest.json");
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m->ToDeployRequest();
  }
  std::string State() { return *ReadAttr(root_ + "/sys/class/fpga_manager/fpga0/state"); }
  std::string Overlay() { return root_ + "/sys/kernel/config/device-tree/overlays/ctte"; }
  // The UIO devices the tree shows once the emulator has seen everything done so far: a probe
  // overlay folder is given its attributes only on the emulator's next pass.
  std::vector<std::string> UioNamesAfterAPass() {
    const std::string probe = root_ + "/sys/kernel/config/device-tree/overlays/probe";
    fs::create_directories(probe);
    for (int i = 0; i < 5000 && !fs::exists(probe + "/status"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(fs::exists(probe + "/status")) << "the emulator made no pass";
    fs::remove_all(probe);
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root_ + "/sys/class/uio", ec)) {
      names.push_back(*ReadAttr(e.path().string() + "/name"));
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string root_, images_, sha_;
  ZynqBoardOptions board_options_;  ///< what Start() gives the board, besides the tree
  std::unique_ptr<FabricEmulator> emu_;
  std::unique_ptr<ZynqBoard> board_;
};

}  // namespace ctte::lab::zynq
