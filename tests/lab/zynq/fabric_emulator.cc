// The fabric emulator (see fabric_emulator.h).
#include "tests/lab/zynq/fabric_emulator.h"

#include <cstdlib>

#include "lab/failure.h"
#include "lab/zynq/plan_block.h"
#include "oracle/program_image.h"
#include "tests/lab/zynq/fabric_emulator_impl.h"

namespace ctte::lab::zynq {

Status FabricEmulator::Impl::Layout() {
  const std::string mgr = "sys/class/fpga_manager/fpga0/";
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "name"), "Xilinx ZynqMP FPGA Manager\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "flags"), "0\n"));
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "firmware"), ""));
  CTTE_RETURN_IF_ERROR(WriteText(P(mgr + "state"), "unknown\n"));
  std::error_code ec;
  fs::create_directories(P("lib/firmware"), ec);
  fs::create_directories(P(kOverlays), ec);
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

// The rate PL0/PL1 runs at: what the register selects, unless the emulator is told the clock
// runs slow (half), is gated (0 Hz) or stays at the firmware's 100 MHz whatever is written.
uint64_t FabricEmulator::Impl::ClockRate(int pl) {
  if (o.clock == "gated") return 0;
  if (o.clock == "firmware") return 100'000'000;
  Result<uint32_t> v = crl->Read32(pl == 0 ? kPl0RefCtrl : kPl1RefCtrl);
  Result<PlClockSetting> cs = v.ok() ? PlClockSetting::Decode(*v) : Result<PlClockSetting>(v.status());
  if (!cs.ok()) return 0;
  Result<uint64_t> hz = cs->Rate(o.rates);
  if (!hz.ok()) return 0;
  return o.clock == "slow" ? *hz / 2 : *hz;
}

// Counts at the rate in force since the previous read (a change shows from the next read on).
uint64_t FabricEmulator::Impl::ClockCount(int pl) {
  ClockCounter& c = clocks[pl];
  const auto now = std::chrono::steady_clock::now();
  if (c.started) {
    c.count += static_cast<uint64_t>(std::chrono::duration<double>(now - c.t).count() *
                                     static_cast<double>(c.rate));
  }
  c.started = true;
  c.t = now;
  c.rate = ClockRate(pl);
  return c.count;
}

bool FabricEmulator::Impl::Handle(uint32_t op, uint32_t offset, uint32_t* value) {
  auto it = names.find(offset);
  if (it == names.end()) return false;  // bus error: nothing decodes this address
  const std::string& n = it->second;
  if (n.rfind("ctteh", 0) == 0) {
    std::lock_guard<std::mutex> l(hmu);
    if (op == kMailboxOpRead && n.rfind("cttehFabricClock", 0) == 0) {
      const uint64_t c = ClockCount(0);
      *value = static_cast<uint32_t>(n.back() == 'i' ? c >> 32 : c);
      return true;
    }
    if (op == kMailboxOpRead && n.rfind("cttehSinkClock", 0) == 0) {
      const uint64_t c = ClockCount(1);
      *value = static_cast<uint32_t>(n.back() == 'i' ? c >> 32 : c);
      return true;
    }
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
  if (!plan) return;
  const uint64_t at = plan->size() - kResultBytes;
  const uint64_t len = std::min<uint64_t>(text.size(), kResultBytes - 8);
  (void)plan->WriteBytes(at, &len, 8);
  (void)plan->WriteBytes(at + 8, text.data(), len);
}

// The harness's console area gets the raw bytes the core wrote. SimBoard gives them escaped
// (Capture::console): undone here, "\xNN" to the byte and the "...[N more bytes]" tail to
// the count.
Status FabricEmulator::Impl::WriteConsole(const std::string& text) {
  std::string raw;
  uint64_t total = 0;
  for (size_t i = 0; i < text.size();) {
    if (raw.size() == kMaxConsoleBytes && text.compare(i, 4, "...[") == 0) {
      total = kMaxConsoleBytes + std::strtoull(text.c_str() + i + 4, nullptr, 10);
      break;
    }
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x') {
      raw.push_back(static_cast<char>(std::strtoul(text.substr(i + 2, 2).c_str(), nullptr, 16)));
      i += 4;
    } else {
      raw.push_back(text[i++]);
    }
  }
  if (total == 0) total = raw.size();
  const uint64_t at = ConsoleAreaOffset(plan->size());
  CTTE_RETURN_IF_ERROR(plan->WriteBytes(at, &total, 8));
  return plan->WriteBytes(at + 8, raw.data(), raw.size());
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
  if (!guest || !plan) return Status::Unavailable("the overlay declared no guest or plan memory");
  if (plan_bytes == 0 || plan_bytes > ConsoleAreaOffset(plan->size())) {
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
  CTTE_RETURN_IF_ERROR(WriteConsole(c.console));
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
  int idle = 0;
  auto next_watch = std::chrono::steady_clock::now();
  while (!stop) {
    bool busy = false;
    if (!running && std::chrono::steady_clock::now() >= next_watch) {
      WatchOverlays();
      next_watch = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
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
