// ZynqBoard on the fabric emulator: clocks programmed and read back through the CRL_APB
// window, the infrastructure errors (bitstream hash, FPGA manager state, missing UIO device,
// undeclared register), and (suite ZynqBoardImageTest, needs_images) runs on the real encoder
// images giving the same capture as SimBoard, including a wrapped ring.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/files.h"
#include "base/json.h"
#include "base/sha256.h"
#include "lab/image_manifest.h"
#include "lab/sim/sim_board.h"
#include "lab/zynq/plan_block.h"
#include "lab/zynq/register_window.h"
#include "lab/zynq/sysfs.h"
#include "lab/zynq/zynq_board.h"
#include "regmap/registers.h"
#include "tests/lab/zynq/fabric_emulator.h"

namespace ctte::lab::zynq {
namespace {

namespace fs = std::filesystem;
const std::string kFakeImage = CTTE_BINARY_DIR "/tests/fake_images/lab_fake_image_good.so";
const std::string kImages = CTTE_BINARY_DIR "/images/";

std::string TempDir(const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string d = ::testing::TempDir() + "ctte_zynq_" + tag + "_" + info->name();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The fake image's register map: the identity registers and the harness's (from its file).
std::map<std::string, uint32_t> FakeMap() {
  std::map<std::string, uint32_t> m = {{"trTeControl", reg::kTeControl},
                                       {"ctteBuildIdLo", reg::kBuildIdLo},
                                       {"ctteBuildIdHi", reg::kBuildIdHi},
                                       {"ctteProfile", reg::kProfile},
                                       {"ctteCaps", reg::kCaps}};
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
  void Start(FabricEmulatorOptions o = {}) {
    o.sysroot = root_;
    o.image_dir = images_;
    Result<std::unique_ptr<FabricEmulator>> e = FabricEmulator::Create(o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    emu_ = std::move(*e);
    emu_->Start();
    ZynqBoardOptions bo;
    bo.sysroot = root_;
    bo.emulated_fabric = true;
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

  std::string root_, images_, sha_;
  std::unique_ptr<FabricEmulator> emu_;
  std::unique_ptr<ZynqBoard> board_;
};

TEST_F(ZynqBoardTest, FreshBoardReportsTheFirmwareLeft100MHz) {
  Start();
  EXPECT_EQ(*board_->ReadClock(ClockDomain::kFabric), 100'000'000u);
  EXPECT_EQ(*board_->ReadClock(ClockDomain::kSink), 100'000'000u);
  EXPECT_EQ(board_->ReadClockSetting(ClockDomain::kFabric)->ToString(), "IOPLL/15/1");
}

TEST_F(ZynqBoardTest, ClockIsProgrammedAndReadBackFromTheRegister) {
  Start();
  Result<uint64_t> set = board_->SetClock(ClockDomain::kFabric, 71'110'000);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(*set, 68'181'818u);
  auto crl = MmapWindow::Open(root_ + "/dev/mem", kCrlApbBase, 0x1000);
  ASSERT_TRUE(crl.ok());
  EXPECT_EQ(*(*crl)->Read32(kPl0RefCtrl), 0x01011600u);  // IOPLL / 22 / 1
  EXPECT_EQ(*(*crl)->Read32(kPl1RefCtrl), kFirmwarePlRefCtrl);  // the sink clock untouched
  EXPECT_EQ(*board_->ReadClock(ClockDomain::kFabric), 68'181'818u);
  ASSERT_TRUE(board_->SetClock(ClockDomain::kSink, 200'000'000).ok());
  EXPECT_EQ(*(*crl)->Read32(kPl1RefCtrl), 0x01010502u);  // RPLL / 5 / 1
  // Read back is the hardware's, not the request's: change the register behind the board.
  ASSERT_TRUE((*crl)->Write32(kPl0RefCtrl, 0x01011400).ok());  // IOPLL / 20 / 1
  EXPECT_EQ(*board_->ReadClock(ClockDomain::kFabric), 75'000'000u);
  EXPECT_FALSE(board_->SetClock(ClockDomain::kFabric, 2'000'000'000).ok());
}

TEST_F(ZynqBoardTest, DeployLoadsThroughTheFpgaManagerAndReadsTheIdentity) {
  Start();
  Result<DeployReceipt> r = board_->Deploy(Request());
  ASSERT_TRUE(r.ok()) << r.status().ToString() << " / " << emu_->last_error();
  EXPECT_EQ(r->sha256, sha_);
  EXPECT_EQ(r->build_id, 0xfeedc0de12345678ull);
  EXPECT_EQ(r->stored_path, root_ + "/lib/firmware/ctte-fake.bin");
  EXPECT_EQ(State(), "operating");
  EXPECT_EQ(*ReadAttr(root_ + "/sys/class/fpga_manager/fpga0/flags"), "0");
  EXPECT_EQ(board_->Identify()->image_sha256, sha_);
  EXPECT_EQ(*board_->ReadReg(reg::kBuildIdHi), 0xfeedc0deu);
}

TEST_F(ZynqBoardTest, WrongBitstreamHashIsRefusedBeforeLoading) {
  Start();
  DeployRequest d = Request();
  d.expected_sha256 = std::string(64, '0');
  Result<DeployReceipt> r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("SHA-256 of the stored copy"), std::string::npos);
  EXPECT_NE(r.status().message().find(sha_), std::string::npos);
  EXPECT_EQ(State(), "unknown");  // never handed to the FPGA manager
  EXPECT_FALSE(fs::exists(root_ + "/lib/firmware/ctte-fake.bin"));
}

TEST_F(ZynqBoardTest, FpgaManagerErrorStateIsAnInfraError) {
  FabricEmulatorOptions o;
  o.load_state = "write error";
  Start(o);
  Result<DeployReceipt> r = board_->Deploy(Request());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIOError);
  EXPECT_NE(r.status().message().find("reports state 'write error'"), std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(board_->ReadReg(reg::kBuildIdLo).ok());  // no image held
}

TEST_F(ZynqBoardTest, MissingUioDeviceIsAnInfraError) {
  FabricEmulatorOptions o;
  o.create_uio = false;
  Start(o);
  Result<DeployReceipt> r = board_->Deploy(Request());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_NE(r.status().message().find("no UIO device named 'ctte_harness'"), std::string::npos)
      << r.status().ToString();
}

TEST_F(ZynqBoardTest, UndeclaredRegisterIsAbsentNotZero) {
  Start();
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  // The fake image's manifest declares no ctteMutant (0x128): absent, never a plausible 0.
  Result<uint32_t> v = board_->ReadReg(reg::kMutant);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Status::Code::kNotFound);
  EXPECT_NE(v.status().message().find("not declared by image fake"), std::string::npos);
  EXPECT_FALSE(board_->WriteReg(reg::kMutant, 1).ok());
  // A manifest without an identity register cannot be deployed at all.
  DeployRequest d = Request();
  d.registers.erase("ctteBuildIdLo");
  Result<DeployReceipt> r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ctteBuildIdLo is not declared"), std::string::npos)
      << r.status().ToString();
  d.registers.clear();
  EXPECT_NE(board_->Deploy(d).status().message().find("no register map"), std::string::npos);
}

TEST_F(ZynqBoardTest, NoEmulatorMeansNoAnswerNotAHang) {
  Start();
  ASSERT_TRUE(board_->Deploy(Request()).ok());
  emu_->Stop();
  Result<std::unique_ptr<MailboxWindow>> w = MailboxWindow::Open(root_ + "/dev/uio0.map0", 100);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  Result<uint32_t> v = (*w)->Read32(reg::kBuildIdLo);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("no answer"), std::string::npos) << v.status().ToString();
}

TEST(PlanBlockTest, RoundTripsAndRefusesCorruption) {
  PlanBlock b;
  b.plan.iss.interrupt_at = {5, 9};
  b.plan.window_edges = {{3, true}, {7, false}};
  b.plan.sink.kind = BackpressureKind::kBursty;
  b.plan.sink.stall_max = 4;
  b.entry = 0x80000000;
  b.segments = {{0x80000000, 64, true}};
  std::vector<uint8_t> bytes = EncodePlanBlock(b);
  Result<PlanBlock> back = DecodePlanBlock(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->plan.iss.interrupt_at, b.plan.iss.interrupt_at);
  EXPECT_EQ(back->plan.window_edges.size(), 2u);
  EXPECT_FALSE(back->plan.window_edges[1].open);
  EXPECT_EQ(back->plan.sink.kind, BackpressureKind::kBursty);
  EXPECT_EQ(back->plan.sink.stall_max, 4u);
  EXPECT_EQ(back->segments[0].memsz, 64u);
  bytes[0] ^= 1;
  EXPECT_FALSE(DecodePlanBlock(bytes).ok());
  bytes[0] ^= 1;
  bytes.resize(bytes.size() - 8);
  EXPECT_FALSE(DecodePlanBlock(bytes).ok());
}

// ---- on the real encoder images --------------------------------------------------------------

class ZynqBoardImageTest : public ZynqBoardTest {
 protected:
  void SetUp() override {
    for (const char* f : {"ntrace-slim.so", "ntrace-slim.manifest.json"}) {
      if (!fs::exists(kImages + f)) GTEST_SKIP() << "encoder image " << kImages << f << " not built";
    }
    if (!fs::exists(CTTE_BINARY_DIR "/workloads/calls.elf")) GTEST_SKIP() << "workloads not built";
    root_ = TempDir("root");
    images_ = kImages;
  }
};

// Same plan, same image: ZynqBoard through the emulated fabric and SimBoard give the same
// capture, byte for byte, with and without a ring wrap.
TEST_F(ZynqBoardImageTest, SameCaptureAsTheSimulatedBoard) {
  Start();
  Result<ImageManifest> m = ImageManifest::Load(kImages + "ntrace-slim.manifest.json");
  ASSERT_TRUE(m.ok());
  ASSERT_FALSE(m->registers.empty()) << "the manifest carries no register map";
  Result<DeployReceipt> r = board_->Deploy(m->ToDeployRequest());
  ASSERT_TRUE(r.ok()) << r.status().ToString() << " / " << emu_->last_error();
  EXPECT_EQ(r->build_id, m->build_id);
  auto sim = SimBoard::Create({});
  ASSERT_TRUE(sim.ok());
  ASSERT_TRUE((*sim)->Deploy(m->ToDeployRequest()).ok());
  for (uint64_t ring : {uint64_t{1} << 20, uint64_t{256}}) {
    SCOPED_TRACE(ring);
    RunPlan plan;
    plan.workload_elf = CTTE_BINARY_DIR "/workloads/calls.elf";
    plan.ring_bytes = ring;
    plan.sink.kind = BackpressureKind::kUniform;
    plan.sink.accept_num = 3;
    plan.sink.accept_den = 4;
    plan.stall.ipc_num = 1;
    plan.stall.ipc_den = 2;
    plan.window_edges = {{0, true}, {500, false}, {900, true}};
    for (Board* b : {static_cast<Board*>(board_.get()), static_cast<Board*>(sim->get())}) {
      ASSERT_TRUE(b->SetClock(ClockDomain::kFabric, 71'110'000).ok());
      ASSERT_TRUE(b->SetClock(ClockDomain::kSink, 100'000'000).ok());
    }
    Result<Capture> z = board_->Run(plan);
    ASSERT_TRUE(z.ok()) << z.status().ToString() << " / " << emu_->last_error();
    Result<Capture> s = (*sim)->Run(plan);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(z->bytes, s->bytes);
    EXPECT_EQ(z->bytes_received, s->bytes_received);
    EXPECT_EQ(z->ring_wrapped, s->ring_wrapped);
    EXPECT_EQ(z->ring_wrapped, ring == 256);
    EXPECT_EQ(z->counters.messages, s->counters.messages);
    EXPECT_EQ(z->counters.bytes, s->counters.bytes);
    EXPECT_EQ(z->counters.control, s->counters.control);
    EXPECT_EQ(z->fabric_cycles, s->fabric_cycles);
    EXPECT_EQ(z->sink_cycles, s->sink_cycles);
    EXPECT_EQ(z->retired, s->retired);
    EXPECT_EQ(z->core_stop, s->core_stop);
    EXPECT_EQ(z->drained, s->drained);
    EXPECT_EQ(z->fabric_hz, s->fabric_hz);
    EXPECT_EQ(z->sim_time_ps, s->sim_time_ps);
  }
}

}  // namespace
}  // namespace ctte::lab::zynq
