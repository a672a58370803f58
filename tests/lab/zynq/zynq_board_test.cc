// ZynqBoard on the fabric emulator: deploy through the configfs overlay (and what a deploy
// without it, or a failed one, leaves), clocks programmed and measured by the harness's counter
// (as programmed, gated, left at 100 MHz, slow), the infrastructure errors (bitstream hash,
// FPGA manager state, missing UIO device, undeclared register), and (suite ZynqBoardImageTest,
// needs_images) runs on the real encoder images giving the same capture as SimBoard, console
// and exit code included, with and without a wrapped ring.
#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

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
#include "tests/lab/zynq/zynq_fixture.h"

namespace ctte::lab::zynq {
namespace {

// Within the runner's default clock tolerance (1000 ppm) of `hz`.
::testing::AssertionResult Near(uint64_t got, uint64_t hz) {
  const double ppm = std::abs(static_cast<double>(got) - static_cast<double>(hz)) / static_cast<double>(hz) * 1e6;
  if (ppm <= 1000) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "measured " << got << " Hz, " << ppm << " ppm from " << hz;
}

TEST_F(ZynqBoardTest, FreshBoardHoldsTheFirmwareSettingAndMeasuresNothingYet) {
  Start();
  EXPECT_EQ(board_->ReadClockSetting(ClockDomain::kFabric)->ToString(), "IOPLL/15/1");
  EXPECT_EQ(*board_->ReadClockSetting(ClockDomain::kSink)->Rate(*board_->ReadSourceRates()),
            100'000'000u);
  // No design, no counter: nothing is reported as a clock that was not measured.
  Result<uint64_t> c = board_->ReadClock(ClockDomain::kFabric);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("measured by the harness's cycle counter"), std::string::npos);
}

TEST_F(ZynqBoardTest, ClockIsProgrammedAndMeasuredByTheHarnessCounter) {
  Start();
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  Result<uint64_t> set = board_->SetClock(ClockDomain::kFabric, 71'110'000);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(*set, 68'181'818u);
  auto crl = MmapWindow::Open(root_ + "/dev/mem", kCrlApbBase, 0x1000);
  ASSERT_TRUE(crl.ok());
  EXPECT_EQ(*(*crl)->Read32(kPl0RefCtrl), 0x01011600u);  // IOPLL / 22 / 1
  EXPECT_EQ(*(*crl)->Read32(kPl1RefCtrl), kFirmwarePlRefCtrl);  // the sink clock untouched
  Result<uint64_t> fabric = board_->ReadClock(ClockDomain::kFabric);
  ASSERT_TRUE(fabric.ok()) << fabric.status().ToString();
  EXPECT_TRUE(Near(*fabric, 68'181'818));
  ASSERT_TRUE(board_->SetClock(ClockDomain::kSink, 200'000'000).ok());
  EXPECT_EQ(*(*crl)->Read32(kPl1RefCtrl), 0x01010502u);  // RPLL / 5 / 1
  EXPECT_TRUE(Near(*board_->ReadClock(ClockDomain::kSink), 200'000'000));
  // What runs is measured, not the request: change the register behind the board.
  ASSERT_TRUE((*crl)->Write32(kPl0RefCtrl, 0x01011400).ok());  // IOPLL / 20 / 1
  (void)board_->ReadClock(ClockDomain::kFabric);  // the emulator takes the new rate from here
  EXPECT_TRUE(Near(*board_->ReadClock(ClockDomain::kFabric), 75'000'000));
  EXPECT_FALSE(board_->SetClock(ClockDomain::kFabric, 2'000'000'000).ok());
}

// The clock the design really gets, three ways wrong: each must show in the read back. A
// stopped clock is an infrastructure error (ReadClock fails: the session's kClock); a clock
// that runs, but not at what was programmed, is read back as it runs, so the runner's
// tolerance rule makes the measurement invalid.
TEST_F(ZynqBoardTest, ClockGatedAtZeroHzIsAnError) {
  FabricEmulatorOptions o;
  o.clock = "gated";
  Start(o);
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  ASSERT_TRUE(board_->SetClock(ClockDomain::kFabric, 71'110'000).ok());
  Result<uint64_t> c = board_->ReadClock(ClockDomain::kFabric);
  ASSERT_FALSE(c.ok()) << "read back " << *c << " Hz from a gated clock";
  EXPECT_EQ(c.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(c.status().message().find("the fabric clock (PL0) is stopped"), std::string::npos)
      << c.status().ToString();
}

TEST_F(ZynqBoardTest, ClockLeftAtTheFirmwares100MHzReadsBack100MHz) {
  FabricEmulatorOptions o;
  o.clock = "firmware";
  Start(o);
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  Result<uint64_t> set = board_->SetClock(ClockDomain::kFabric, 71'110'000);
  ASSERT_TRUE(set.ok());
  const uint64_t got = *board_->ReadClock(ClockDomain::kFabric);
  EXPECT_TRUE(Near(got, 100'000'000));
  EXPECT_FALSE(Near(got, *set)) << "a write the firmware ignored passed as programmed";
}

TEST_F(ZynqBoardTest, ClockRunningSlowReadsBackSlow) {
  FabricEmulatorOptions o;
  o.clock = "slow";
  Start(o);
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  Result<uint64_t> set = board_->SetClock(ClockDomain::kSink, 100'000'000);
  ASSERT_TRUE(set.ok());
  const uint64_t got = *board_->ReadClock(ClockDomain::kSink);
  EXPECT_TRUE(Near(got, 50'000'000));
  EXPECT_FALSE(Near(got, *set));
}

TEST_F(ZynqBoardTest, DeployAppliesTheOverlayAndReadsTheIdentity) {
  Start();
  Result<DeployReceipt> r = board_->Deploy(Request());
  ASSERT_TRUE(r.ok()) << r.status().ToString() << " / " << emu_->last_error();
  EXPECT_EQ(r->sha256, sha_);
  EXPECT_EQ(r->build_id, 0xfeedc0de12345678ull);
  EXPECT_EQ(r->stored_path, root_ + "/lib/firmware/ctte-harness.bin");
  EXPECT_EQ(fs::status(r->stored_path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);  // 0600
  EXPECT_EQ(*ReadAttr(Overlay() + "/path"), "ctte-harness.dtbo");
  EXPECT_EQ(*ReadAttr(Overlay() + "/status"), "applied");
  EXPECT_EQ(State(), "operating");
  EXPECT_EQ(board_->Identify()->image_sha256, sha_);
  EXPECT_EQ(*board_->ReadReg(reg::kBuildIdHi), 0xfeedc0deu);
  const std::vector<std::string> design = {"ctte_guest", "ctte_harness", "ctte_plan"};
  EXPECT_EQ(UioNamesAfterAPass(), design);
  // A second deploy removes the overlay (and its devices) and applies it anew: one set.
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  EXPECT_EQ(UioNamesAfterAPass(), design);
  EXPECT_EQ(*board_->ReadReg(reg::kBuildIdLo), 0x12345678u);
}

// Linux loads a bitstream written to the FPGA manager's `firmware` and creates no device: only
// an applied overlay does. Without the overlay installed a deploy is refused, nothing is left.
TEST_F(ZynqBoardTest, DeployWithoutTheOverlayIsRefused) {
  Start({}, /*install_overlay=*/false);
  ASSERT_TRUE(WriteAttr(root_ + "/sys/class/fpga_manager/fpga0/firmware", "ctte-fake.bin").ok());
  EXPECT_TRUE(UioNamesAfterAPass().empty()) << "a firmware write made a UIO device";
  Result<DeployReceipt> r = board_->Deploy(Request());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_NE(r.status().message().find("the harness overlay is not installed"), std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(fs::exists(root_ + "/lib/firmware/ctte-harness.bin"));
  EXPECT_FALSE(fs::exists(Overlay()));
  EXPECT_TRUE(UioNamesAfterAPass().empty());
  EXPECT_FALSE(board_->ReadReg(reg::kBuildIdLo).ok());
}

// A failed deploy takes the overlay, the devices and the stored copy away with it.
TEST_F(ZynqBoardTest, FailedDeployLeavesNoOverlayDevicesOrCopy) {
  Start();
  ASSERT_TRUE(board_->Deploy(Request()).ok()) << emu_->last_error();
  DeployRequest d = Request();
  d.expected_build_id = 0x1111;
  Result<DeployReceipt> r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("build id read back"), std::string::npos);
  EXPECT_FALSE(fs::exists(Overlay()));
  EXPECT_TRUE(UioNamesAfterAPass().empty());
  EXPECT_FALSE(fs::exists(root_ + "/lib/firmware/ctte-harness.bin"));
}

TEST_F(ZynqBoardTest, WrongBitstreamHashIsRefusedBeforeLoading) {
  Start();
  DeployRequest d = Request();
  d.expected_sha256 = std::string(64, '0');
  // A file named by path (not sent by the client): its digest is never told back.
  Result<DeployReceipt> r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("SHA-256 of the stored copy"), std::string::npos);
  EXPECT_EQ(r.status().message().find(sha_), std::string::npos) << r.status().ToString();
  EXPECT_EQ(State(), "unknown");  // never handed to the kernel
  EXPECT_FALSE(fs::exists(root_ + "/lib/firmware/ctte-harness.bin"));
  EXPECT_FALSE(fs::exists(Overlay()));
  // Bytes the client sent: their digest is the client's own, and is told.
  d.bytes = *ReadFileBytes(d.path);
  d.path.clear();
  r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(sha_), std::string::npos) << r.status().ToString();
  EXPECT_FALSE(fs::exists(root_ + "/lib/firmware/ctte-harness.bin"));
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
  EXPECT_FALSE(fs::exists(root_ + "/lib/firmware/ctte-harness.bin"));
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
  Result<UioDevice> dev = FindUio(root_, "ctte_harness");
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  Result<std::unique_ptr<MailboxWindow>> w = MailboxWindow::Open(dev->device, 100);
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
    EXPECT_EQ(z->exit_code, s->exit_code);
    EXPECT_EQ(z->console, s->console);  // through the plan memory's console area
    EXPECT_EQ(z->drained, s->drained);
    EXPECT_TRUE(Near(z->fabric_hz, s->fabric_hz));  // measured on the board
    EXPECT_EQ(z->sim_time_ps, s->sim_time_ps);
  }
}

}  // namespace
}  // namespace ctte::lab::zynq
