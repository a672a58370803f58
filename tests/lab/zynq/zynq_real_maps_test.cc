// The code a board runs, run here: ZynqBoard without the register mailbox, so every register
// access is a volatile load/store on a real mmap() of the file standing in for /dev/uioN, guest
// and plan memory are copied through real maps of their UIO nodes, and the ring is read through
// a real map of /dev/udmabuf0 (the non-emulated branch; in lab_test, so scripts/test-asan runs
// it under ASan and UBSan). And the copies into device maps: aligned words only.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "lab/zynq/plan_block.h"
#include "lab/zynq/register_window.h"
#include "oracle/program_image.h"
#include "tests/lab/zynq/zynq_fixture.h"

namespace ctte::lab::zynq {
namespace {

struct Access {
  uint64_t offset;
  unsigned width;
  bool write;
};

// A memfd-backed map of 64 bytes holding 0xA0.. (a stand-in for a UIO map).
class MemfdWindow {
 public:
  explicit MemfdWindow(uint64_t window) {
    fd_ = ::memfd_create("ctte-uio", MFD_CLOEXEC);
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(::ftruncate(fd_, 4096), 0);
    for (uint8_t i = 0; i < 64; ++i) file_[i] = static_cast<uint8_t>(0xA0 + i);
    EXPECT_EQ(::pwrite(fd_, file_, 64, 0), 64);
    Result<std::unique_ptr<MmapWindow>> w =
        MmapWindow::Open("/proc/self/fd/" + std::to_string(fd_), 0, window);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    if (w.ok()) win = std::move(*w);
    if (win) {
      win->set_access_observer([this](uint64_t o, unsigned width, bool wr) { seen.push_back({o, width, wr}); });
    }
  }
  ~MemfdWindow() {
    win.reset();
    if (fd_ >= 0) ::close(fd_);
  }
  std::vector<uint8_t> File() {
    std::vector<uint8_t> b(64);
    EXPECT_EQ(::pread(fd_, b.data(), 64, 0), 64);
    return b;
  }
  std::unique_ptr<MmapWindow> win;
  std::vector<Access> seen;

 private:
  int fd_ = -1;
  uint8_t file_[64];
};

void ExpectAllAligned(const std::vector<Access>& seen) {
  ASSERT_FALSE(seen.empty());
  for (const Access& a : seen) {
    EXPECT_TRUE(a.width == 4 || a.width == 8) << "a " << a.width << "-byte access";
    EXPECT_EQ(a.offset % a.width, 0u) << "unaligned " << a.width << "-byte access at " << a.offset;
  }
}

// Device memory faults on unaligned accesses: a copy at odd offsets and lengths is made of
// aligned 32/64-bit words only, partial words merged, the neighbours kept.
TEST(MmapWindowTest, UnalignedUioCopyIsMadeOfAlignedWords) {
  MemfdWindow m(64);
  ASSERT_TRUE(m.win);
  const uint8_t data[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  ASSERT_TRUE(m.win->WriteBytes(3, data, sizeof data).ok());
  ExpectAllAligned(m.seen);
  std::vector<uint8_t> want(64);
  for (uint8_t i = 0; i < 64; ++i) want[i] = static_cast<uint8_t>(0xA0 + i);
  std::memcpy(want.data() + 3, data, sizeof data);
  EXPECT_EQ(m.File(), want);
  m.seen.clear();
  uint8_t back[21];
  ASSERT_TRUE(m.win->ReadBytes(5, back, sizeof back).ok());
  ExpectAllAligned(m.seen);
  EXPECT_EQ(0, std::memcmp(back, want.data() + 5, sizeof back));
  // An 8-aligned run goes as 64-bit words.
  m.seen.clear();
  uint8_t block[16] = {};
  ASSERT_TRUE(m.win->WriteBytes(16, block, sizeof block).ok());
  ASSERT_EQ(m.seen.size(), 2u);
  EXPECT_EQ(m.seen[0].width, 8u);
  // Registers: an unaligned 32-bit access is refused, never split.
  EXPECT_FALSE(m.win->Read32(2).ok());
  EXPECT_FALSE(m.win->Write32(6, 1).ok());
}

TEST(MmapWindowTest, CopyWhoseWordsLeaveTheWindowIsRefused) {
  MemfdWindow m(62);  // the last whole word [60, 64) is not in the window
  ASSERT_TRUE(m.win);
  const uint8_t two[2] = {1, 2};
  Status s = m.win->WriteBytes(60, two, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("whole words past the window"), std::string::npos) << s.ToString();
  EXPECT_TRUE(m.seen.empty());  // nothing touched
  uint8_t out[2];
  EXPECT_FALSE(m.win->ReadBytes(60, out, 2).ok());
  EXPECT_TRUE(m.win->WriteBytes(56, two, 2).ok());
}

// The harness as a test thread on the real register file: at RUN it checks the plan block and
// the guest memory the board wrote through its maps, writes a 1001-byte stream into the ring
// (wrapping a 256-byte ring at an unaligned head) and the results, then DONE.
class ZynqRealMapsTest : public ZynqBoardTest {};

TEST_F(ZynqRealMapsTest, DeployAndRunThroughRealMapsOfTheUioNodes) {
  const std::string elf = CTTE_BINARY_DIR "/workloads/calls.elf";
  if (!fs::exists(elf)) GTEST_SKIP() << "workloads not built";
  FabricEmulatorOptions o;
  o.register_mailbox = false;
  // The test thread's clock counters move in steps: measure to 5%, not to 400 ppm.
  board_options_.clock_measure.target_ppm = 50'000;
  Start(o);
  if (IsSkipped()) return;
  Result<DeployReceipt> r = board_->Deploy(Request());
  ASSERT_TRUE(r.ok()) << r.status().ToString() << " / " << emu_->last_error();
  EXPECT_EQ(r->build_id, 0xfeedc0de12345678ull);  // volatile loads from the mapped node
  ASSERT_TRUE(board_->WriteReg(reg::kTeControl, 0x5).ok());
  EXPECT_EQ(*board_->ReadReg(reg::kTeControl), 0x5u);

  const std::map<std::string, uint32_t> map = FakeMap();
  auto regs = MmapWindow::Open(FindUio(root_, "ctte_harness")->device, 0, 0x1000);
  auto guest = MmapWindow::Open(FindUio(root_, "ctte_guest")->device, 0, 64ull << 20);
  auto plan = MmapWindow::Open(FindUio(root_, "ctte_plan")->device, 0, 1ull << 20);
  auto ring = MmapWindow::Open(root_ + "/dev/udmabuf0", 0, 4096);
  ASSERT_TRUE(regs.ok() && guest.ok() && plan.ok() && ring.ok());
  const Result<oracle::ProgramImage> prog = oracle::ProgramImage::Load(elf);
  ASSERT_TRUE(prog.ok());
  std::vector<uint8_t> stream(1001);
  for (size_t i = 0; i < stream.size(); ++i) stream[i] = static_cast<uint8_t>(i * 7 + 1);
  std::atomic<bool> stop{false};
  std::string harness_error = "never released";
  std::thread harness([&] {
    while (!stop && (*(*regs)->Read32(map.at("cttehCoreControl")) & 1) == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (stop) return;
    const uint32_t n = *(*regs)->Read32(map.at("cttehPlanBytes"));
    std::vector<uint8_t> pb(n);
    Result<PlanBlock> block = (*plan)->ReadBytes(0, pb.data(), n).ok()
                                  ? DecodePlanBlock(pb) : Result<PlanBlock>(Status::IOError("read"));
    if (!block.ok()) return void(harness_error = block.status().ToString());
    if (block->entry != prog->entry() || block->segments.size() != prog->segments().size()) {
      return void(harness_error = "plan block entry or segments differ");
    }
    for (const oracle::Segment& s : prog->segments()) {
      std::vector<uint8_t> got(s.bytes.size());
      (void)(*guest)->ReadBytes(s.vaddr - kGuestBase, got.data(), got.size());
      if (got != s.bytes) return void(harness_error = "guest memory differs at " + std::to_string(s.vaddr));
    }
    const uint32_t size = *(*regs)->Read32(map.at("cttehRingSize"));
    for (size_t g = 0; g < stream.size(); ++g) (void)(*ring)->WriteBytes(g % size, &stream[g], 1);
    (void)(*regs)->Write32(map.at("cttehRingTotalLo"), static_cast<uint32_t>(stream.size()));
    (void)(*regs)->Write32(map.at("cttehExitCode"), 3);
    harness_error.clear();
    (void)(*regs)->Write32(map.at("cttehCoreStatus"), 1u | 1u << 8);  // DONE, exited
    // The clocks the board measures after the run: both counters at 100 MHz of wall time.
    const auto t0 = std::chrono::steady_clock::now();
    while (!stop) {
      const uint64_t c = static_cast<uint64_t>(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e8);
      for (const char* clk : {"cttehFabricClock", "cttehSinkClock"}) {
        (void)(*regs)->Write32(map.at(std::string(clk) + "Hi"), static_cast<uint32_t>(c >> 32));
        (void)(*regs)->Write32(map.at(std::string(clk) + "Lo"), static_cast<uint32_t>(c));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  RunPlan p;
  p.workload_elf = elf;
  p.ring_bytes = 256;
  Result<Capture> c = board_->Run(p);
  stop = true;
  harness.join();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(harness_error, "");
  EXPECT_EQ(c->bytes_received, 1001u);
  EXPECT_TRUE(c->ring_wrapped);
  EXPECT_EQ(c->bytes, std::vector<uint8_t>(stream.end() - 256, stream.end()));
  EXPECT_EQ(c->exit_code, 3);
  EXPECT_EQ(c->core_stop, "exited");
  // Measured through the real map; the test thread's counter moves in late steps (a real one
  // never lags), so only that it was read and ran is checked here (ZynqBoardTest.Clock* check
  // the measurement itself).
  EXPECT_GT(c->fabric_hz, 0u);
}

}  // namespace
}  // namespace ctte::lab::zynq
