// The fabric emulator (see fabric_emulator.h).
#include "tests/lab/zynq/fabric_emulator.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "base/files.h"
#include "base/sha256.h"
#include "lab/failure.h"
#include "lab/image_manifest.h"
#include "lab/sim/sim_board.h"
#include "lab/zynq/plan_block.h"
#include "lab/zynq/register_window.h"
#include "lab/zynq/sysfs.h"
#include "oracle/program_image.h"

namespace ctte::lab::zynq {

namespace fs = std::filesystem;

struct FabricEmulator::Impl {
  FabricEmulatorOptions o;
  std::unique_ptr<SimBoard> board;
  std::unique_ptr<MailboxServer> mailbox;
  std::unique_ptr<MmapWindow> guest, plan, ring, crl;
  std::map<uint32_t, std::string> names;  ///< the loaded design's map, by offset
  std::map<std::string, uint32_t> harness; ///< harness register values, by name
  std::thread loop, worker;
  std::atomic<bool> stop{false}, running{false};
  mutable std::mutex mu;   ///< error
  std::mutex hmu;          ///< harness
  std::string error;

  std::string P(const std::string& rel) const { return UnderRoot(o.sysroot, rel); }
  void Fail(const std::string& e) {
    std::lock_guard<std::mutex> l(mu);
    error = e;
  }
  Status Layout();
  Status CreateUio();
  void Load(const std::string& name);
  bool Handle(uint32_t op, uint32_t offset, uint32_t* value);
  void RunCore();
  Status RunCoreOr();
  void Loop();
  void SetH(const std::string& n, uint32_t v) { harness[n] = v; }
  void SetH64(const std::string& lo, const std::string& hi, uint64_t v) {
    harness[lo] = static_cast<uint32_t>(v);
    harness[hi] = static_cast<uint32_t>(v >> 32);
  }
  void SetResultText(const std::string& text);
};

namespace {

Status WriteText(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  return WriteFileAtomic(path, std::vector<uint8_t>(text.begin(), text.end()));
}

Status SparseFile(const std::string& path, uint64_t size) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(path, errno);
  const int rc = ::ftruncate(fd, static_cast<off_t>(size));
  ::close(fd);
  return rc == 0 ? Status::Ok() : ErrnoStatus(path, errno);
}

std::string HexAttr(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Status FabricEmulator::Impl::Layout() {
  const std::string mgr = "sys/class/fpga_manager/fpga0/";
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "name"), "Xilinx ZynqMP FPGA Manager\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "flags"), "0\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "firmware"), ""));
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "state"), "unknown\n"));
  std::error_code ec;
  fs::create_directories(P("lib/firmware"), ec);
  const auto rate = [&](const char* clk, uint64_t hz) -> Status {
    if (hz == 0) return Status::Ok();
    return WriteText(P(std::string("sys/kernel/debug/clk/") + clk + "/clk_rate"),
                     std::to_string(hz) + "\n");
  };
  CTTE_RETURN_IF_ERROR(rate("iopll", o.rates.iopll_hz));
  CTTE_RETURN_IF_ERROR(rate("rpll", o.rates.rpll_hz));
  CTTE_RETURN_IF_ERROR(rate("dpll_to_lpd", o.rates.dpll_hz));
  // /dev/mem: sparse up to the CRL_APB page; the firmware left PL0/PL1 at IOPLL/15/1.
  CTTE_RETURN_IF_ERROR(SparseFile(P("dev/mem"), kCrlApbBase + 0x1000));
  CTTE_ASSIGN_OR_RETURN(crl, MmapWindow::Open(P("dev/mem"), kCrlApbBase, 0x1000));
  CTTE_RETURN_IF_ERROR(crl->Write32(kPl0RefCtrl, kFirmwarePlRefCtrl));
  CTTE_RETURN_IF_ERROR(crl->Write32(kPl1RefCtrl, kFirmwarePlRefCtrl));
  const std::string dma = "sys/class/u-dma-buf/udmabuf0/";
  CTTE_RETURN_IF_ERROR(WriteText(P(dma + "size"), std::to_string(o.ring_bytes) + "\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(dma + "phys_addr"), HexAttr(o.ring_phys) + "\n"));
  CTTE_RETURN_IF_ERROR(SparseFile(P("dev/udmabuf0"), o.ring_bytes));
  CTTE_ASSIGN_OR_RETURN(ring, MmapWindow::Open(P("dev/udmabuf0"), 0, o.ring_bytes));
  return Status::Ok();
}

Status FabricEmulator::Impl::CreateUio() {
  if (mailbox) return Status::Ok();
  const std::string u = "sys/class/uio/uio0/";
  CTTE_RETURN_IF_ERROR(WriteText(P(u + "name"), o.uio_name + "\n"));
  const std::pair<const char*, uint64_t> maps[] = {
      {"registers", 0x1000}, {"guest", o.guest_bytes}, {"plan", o.plan_bytes}};
  for (int i = 0; i < 3; ++i) {
    const std::string m = u + "maps/map" + std::to_string(i) + "/";
    CTTE_RETURN_IF_ERROR(WriteText(P(m + "name"), std::string(maps[i].first) + "\n"));
    CTTE_RETURN_IF_ERROR(WriteText(P(m + "size"), HexAttr(maps[i].second) + "\n"));
  }
  CTTE_RETURN_IF_ERROR(WriteText(P("dev/uio0"), ""));  // stands for the device node
  CTTE_ASSIGN_OR_RETURN(mailbox, MailboxServer::Create(P("dev/uio0.map0"), 0x1000));
  CTTE_RETURN_IF_ERROR(SparseFile(P("dev/uio0.map1"), o.guest_bytes));
  CTTE_RETURN_IF_ERROR(SparseFile(P("dev/uio0.map2"), o.plan_bytes));
  CTTE_ASSIGN_OR_RETURN(guest, MmapWindow::Open(P("dev/uio0.map1"), 0, o.guest_bytes));
  CTTE_ASSIGN_OR_RETURN(plan, MmapWindow::Open(P("dev/uio0.map2"), 0, o.plan_bytes));
  return Status::Ok();
}

void FabricEmulator::Impl::Load(const std::string& name) {
  const std::string mgr = P("sys/class/fpga_manager/fpga0/");
  const auto done = [&](const std::string& state, const std::string& err) {
    if (!err.empty()) Fail(err);
    (void)WriteText(mgr + "state", state + "\n");
    (void)WriteText(mgr + "firmware", "");  // taken
  };
  const std::string file = P("lib/firmware/" + name);
  Result<std::string> sha = Sha256File(file);
  if (!sha.ok()) return done("firmware request error", sha.status().ToString());
  std::optional<ImageManifest> manifest;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(o.image_dir, ec)) {
    const std::string p = e.path().string();
    if (p.size() < 14 || p.substr(p.size() - 14) != ".manifest.json") continue;
    Result<ImageManifest> m = ImageManifest::Load(p);
    if (m.ok() && m->sha256 == *sha) manifest = *m;
  }
  if (!manifest || manifest->registers.empty()) {
    return done("write error", name + ": no manifest with a register map for sha256 " + *sha);
  }
  DeployRequest d;
  d.name = manifest->name;
  d.path = file;
  Result<DeployReceipt> r = board->Deploy(d);
  if (!r.ok()) return done("write error", r.status().ToString());
  names.clear();
  for (const auto& [n, off] : manifest->registers) names[off] = n;
  harness.clear();
  if (o.create_uio) {
    if (Status s = CreateUio(); !s.ok()) return done("write error", s.ToString());
  }
  done(o.load_state, "");
}

bool FabricEmulator::Impl::Handle(uint32_t op, uint32_t offset, uint32_t* value) {
  auto it = names.find(offset);
  if (it == names.end()) return false;  // bus error: nothing decodes this address
  const std::string& n = it->second;
  if (n.rfind("ctteh", 0) == 0) {
    std::lock_guard<std::mutex> l(hmu);
    if (op == kMailboxOpRead) {
      *value = harness.count(n) ? harness[n] : 0;
      return true;
    }
    if (n == "cttehCoreControl") {
      const bool run = (*value & 1) != 0, was = (harness[n] & 1) != 0;
      if (!run) {  // reset: status and results clear
        const uint32_t keep_plan = harness["cttehPlanBytes"];
        for (auto& [k, v] : harness) {
          if (k.rfind("cttehRing", 0) != 0) v = 0;
        }
        harness["cttehPlanBytes"] = keep_plan;
      } else if (!was && !running) {
        if (worker.joinable()) worker.join();
        running = true;
        worker = std::thread([this] { RunCore(); });
      }
    }
    harness[n] = *value;
    return true;
  }
  if (op == kMailboxOpRead) {
    Result<uint32_t> v = board->ReadReg(offset);
    if (!v.ok()) return false;
    *value = *v;
    return true;
  }
  return board->WriteReg(offset, *value).ok();
}

void FabricEmulator::Impl::SetResultText(const std::string& text) {
  const uint64_t at = plan->size() - kResultBytes;
  const uint64_t len = std::min<uint64_t>(text.size(), kResultBytes - 8);
  (void)plan->WriteBytes(at, &len, 8);
  (void)plan->WriteBytes(at + 8, text.data(), len);
}

void FabricEmulator::Impl::RunCore() {
  Status s = RunCoreOr();
  if (!s.ok()) {
    SetResultText(s.message());
    Fail(s.ToString());
    const bool assertion = ClassifyFailure(s) == FailureKind::kRtlAssertion;
    std::lock_guard<std::mutex> l(hmu);
    harness["cttehCoreStatus"] = 1u | (assertion ? 4u : 2u);
  }
  running = false;
}

Status FabricEmulator::Impl::RunCoreOr() {
  uint32_t plan_bytes = 0, ring_size = 0;
  uint64_t ring_base = 0;
  {
    std::lock_guard<std::mutex> l(hmu);
    plan_bytes = harness["cttehPlanBytes"];
    ring_size = harness["cttehRingSize"];
    ring_base = static_cast<uint64_t>(harness["cttehRingBaseHi"]) << 32 | harness["cttehRingBaseLo"];
  }
  if (plan_bytes == 0 || plan_bytes > plan->size() - kResultBytes) {
    return Status::InvalidArgument("cttehPlanBytes " + std::to_string(plan_bytes) +
                                   ": no plan block in plan memory");
  }
  if (ring_base != o.ring_phys || ring_size == 0 || ring_size > o.ring_bytes) {
    return Status::InvalidArgument("ring base/size do not name the reserved DMA buffer");
  }
  std::vector<uint8_t> bytes(plan_bytes);
  CTTE_RETURN_IF_ERROR(plan->ReadBytes(0, bytes.data(), bytes.size()));
  CTTE_ASSIGN_OR_RETURN(PlanBlock block, DecodePlanBlock(bytes));
  std::vector<oracle::Segment> segs;
  for (const SegmentInfo& si : block.segments) {
    if (si.vaddr < kGuestBase || si.vaddr - kGuestBase + si.memsz > guest->size()) {
      return Status::InvalidArgument("plan block: a segment lies outside guest memory");
    }
    oracle::Segment seg;
    seg.vaddr = si.vaddr;
    seg.memsz = si.memsz;
    seg.executable = si.executable;
    seg.bytes.resize(si.memsz);
    CTTE_RETURN_IF_ERROR(guest->ReadBytes(si.vaddr - kGuestBase, seg.bytes.data(), si.memsz));
    segs.push_back(std::move(seg));
  }
  const oracle::ProgramImage program = oracle::ProgramImage::FromSegments(block.entry, segs);
  // The clocks the PL sees: PL0 (fabric) and PL1 (sink) as programmed now. The simulated
  // board's time base is a 1500 MHz VCO: a divider product N on a 1500 MHz source is
  // reproduced exactly (ceil(1500 MHz / N) makes its PLL pick N); other sources approximately.
  for (auto [off, dom] : {std::pair{kPl0RefCtrl, ClockDomain::kFabric},
                          std::pair{kPl1RefCtrl, ClockDomain::kSink}}) {
    CTTE_ASSIGN_OR_RETURN(const uint32_t v, crl->Read32(off));
    CTTE_ASSIGN_OR_RETURN(const PlClockSetting cs, PlClockSetting::Decode(v));
    const uint64_t src = o.rates.Of(cs.source);
    const uint64_t n = static_cast<uint64_t>(cs.divisor0) * cs.divisor1;
    if (src == 0 || !cs.active) return Status::InvalidArgument("a PL clock is stopped or unsourced");
    const uint64_t hz = src == 1'500'000'000 ? (src + n - 1) / n : src / n;
    CTTE_RETURN_IF_ERROR(board->SetClock(dom, hz).status());
  }
  block.plan.ring_bytes = ring_size;
  CTTE_ASSIGN_OR_RETURN(const Capture c, board->RunProgram(program, block.plan));
  // The sink's DMA: stream byte g lands at g mod ring size.
  const uint64_t first = c.bytes_received - c.bytes.size();
  for (uint64_t i = 0; i < c.bytes.size();) {
    const uint64_t pos = (first + i) % ring_size;
    const uint64_t n = std::min<uint64_t>(c.bytes.size() - i, ring_size - pos);
    CTTE_RETURN_IF_ERROR(ring->WriteBytes(pos, c.bytes.data() + i, n));
    i += n;
  }
  uint32_t stop_code = 4;
  if (c.core_stop == "exited") stop_code = 1;
  else if (c.core_stop == "max_instructions") stop_code = 2;
  else if (c.core_stop.rfind("fatal: ", 0) == 0) {
    stop_code = 3;
    SetResultText(c.core_stop.substr(7));
  }
  std::lock_guard<std::mutex> l(hmu);
  SetH64("cttehRingTotalLo", "cttehRingTotalHi", c.bytes_received);
  SetH64("cttehFabricCyclesLo", "cttehFabricCyclesHi", c.fabric_cycles);
  SetH64("cttehSinkCyclesLo", "cttehSinkCyclesHi", c.sink_cycles);
  SetH64("cttehDrainCyclesLo", "cttehDrainCyclesHi", c.drain_sink_cycles);
  SetH64("cttehBeatsLo", "cttehBeatsHi", c.beats);
  SetH64("cttehRetiredLo", "cttehRetiredHi", c.retired);
  SetH64("cttehTimePsLo", "cttehTimePsHi", c.sim_time_ps);
  SetH64("cttehReadyStallLo", "cttehReadyStallHi", c.max_ready_stall_sink_cycles);
  SetH("cttehDrainFlags", (c.drained ? 1u : 0u) | (c.ready_stall_measured ? 2u : 0u));
  SetH("cttehExitCode", static_cast<uint32_t>(c.exit_code));
  SetH("cttehCoreStatus", 1u | stop_code << 8);
  return Status::Ok();
}

void FabricEmulator::Impl::Loop() {
  const std::string fw = P("sys/class/fpga_manager/fpga0/firmware");
  int idle = 0;
  while (!stop) {
    bool busy = false;
    Result<std::string> name = ReadAttr(fw);
    if (name.ok() && !name->empty() && !running) {
      Load(*name);
      busy = true;
    }
    uint32_t op = 0, offset = 0;
    if (mailbox && mailbox->Peek(&op, &offset)) {
      auto it = names.find(offset);
      const bool harness_reg = it != names.end() && it->second.rfind("ctteh", 0) == 0;
      if (!running || harness_reg || it == names.end()) {
        mailbox->Poll([this](uint32_t o2, uint32_t off, uint32_t* v) { return Handle(o2, off, v); });
        busy = true;
      }
    }
    idle = busy ? 0 : idle + 1;
    if (idle > 1000) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (worker.joinable()) worker.join();
}

Result<std::unique_ptr<FabricEmulator>> FabricEmulator::Create(const FabricEmulatorOptions& o) {
  auto impl = std::make_unique<Impl>();
  impl->o = o;
  std::error_code ec;
  fs::create_directories(o.sysroot, ec);
  if (ec) return Status::IOError(o.sysroot + ": " + ec.message());
  CTTE_RETURN_IF_ERROR(impl->Layout());
  SimBoardOptions so;
  so.serial = "fabric-emulator";
  CTTE_ASSIGN_OR_RETURN(impl->board, SimBoard::Create(so));
  return std::unique_ptr<FabricEmulator>(new FabricEmulator(std::move(impl)));
}

FabricEmulator::FabricEmulator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FabricEmulator::~FabricEmulator() { Stop(); }

void FabricEmulator::Start() {
  if (impl_->loop.joinable()) return;
  impl_->stop = false;
  impl_->loop = std::thread([this] { impl_->Loop(); });
}

void FabricEmulator::Stop() {
  impl_->stop = true;
  if (impl_->loop.joinable()) impl_->loop.join();
}

std::string FabricEmulator::last_error() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->error;
}

}  // namespace ctte::lab::zynq
