// ZynqBoard::Run: workload into guest memory, plan block, ring, core release, readback
// (see zynq_board.h and docs/zynq-board.md, "A run").
#include <algorithm>
#include <chrono>
#include <thread>

#include "base/text.h"
#include "lab/failure.h"
#include "lab/zynq/plan_block.h"
#include "lab/zynq/sysfs.h"
#include "lab/zynq/zynq_board.h"
#include "oracle/program_image.h"
#include "regmap/registers.h"

namespace ctte::lab::zynq {

namespace {
using Clock = std::chrono::steady_clock;
constexpr uint32_t kCoreRun = 1u << 0;
constexpr uint32_t kStatusDone = 1u << 0;
constexpr uint32_t kStatusFault = 1u << 1;
constexpr uint32_t kStatusAssertion = 1u << 2;
}  // namespace

Status ZynqBoard::ReadRing(uint64_t capacity, Capture* c) {
  const std::string sys = Path("sys/class/u-dma-buf/" + o_.udmabuf);
  CTTE_ASSIGN_OR_RETURN(const uint64_t size, ReadAttrU64(sys + "/size"));
  if (capacity > size) {
    return Status::InvalidArgument("plan.ring_bytes " + std::to_string(capacity) +
                                   " exceeds the DMA buffer " + o_.udmabuf + " (" +
                                   std::to_string(size) + " bytes)");
  }
  // Whole words: the copies out of the buffer are aligned word accesses.
  CTTE_ASSIGN_OR_RETURN(auto ring, MmapWindow::Open(Path("dev/" + o_.udmabuf), 0,
                                                    std::min<uint64_t>(size, (capacity + 7) & ~uint64_t{7})));
  CTTE_ASSIGN_OR_RETURN(const uint64_t total, Named64("cttehRingTotalLo", "cttehRingTotalHi"));
  c->bytes_received = total;
  c->ring_wrapped = total > capacity;
  // The sink's DMA writes byte g of the stream at g mod capacity: after a wrap the oldest
  // retained byte is at total mod capacity.
  if (!c->ring_wrapped) {
    c->bytes.resize(total);
    return ring->ReadBytes(0, c->bytes.data(), total);
  }
  const uint64_t head = total % capacity;
  c->bytes.resize(capacity);
  CTTE_RETURN_IF_ERROR(ring->ReadBytes(head, c->bytes.data(), capacity - head));
  return ring->ReadBytes(0, c->bytes.data() + (capacity - head), head);
}

// The console area of the plan memory (plan_block.h): T, then the first bytes, raw.
Status ZynqBoard::ReadConsole(Capture* c) {
  const uint64_t at = ConsoleAreaOffset(plan_->size());
  uint64_t total = 0;
  CTTE_RETURN_IF_ERROR(plan_->ReadBytes(at, &total, 8));
  std::string raw(std::min<uint64_t>(total, kMaxConsoleBytes), '\0');
  CTTE_RETURN_IF_ERROR(plan_->ReadBytes(at + 8, raw.data(), raw.size()));
  c->console = ConsoleText(raw);
  if (total > raw.size()) c->console += "...[" + std::to_string(total - raw.size()) + " more bytes]";
  return Status::Ok();
}

Result<Capture> ZynqBoard::Run(const RunPlan& plan) {
  if (!regs_) return Status::Unavailable("no image deployed");
  if (!plan.fst_path.empty()) {
    return Status::InvalidArgument("plan.fst_path: a Zynq board records no waveform");
  }
  if (plan.ring_bytes == 0 || plan.ring_bytes > 0xffffffffu) {
    return Status::InvalidArgument("plan.ring_bytes must be in 1..2^32-1 on a Zynq board");
  }
  const auto wall0 = Clock::now();
  CTTE_ASSIGN_OR_RETURN(const oracle::ProgramImage prog,
                        oracle::ProgramImage::Load(plan.workload_elf));
  // Hold the core in reset; the harness clears its status.
  CTTE_RETURN_IF_ERROR(SetNamed("cttehCoreControl", 0));
  CTTE_ASSIGN_OR_RETURN(const uint32_t st0, Named("cttehCoreStatus"));
  if (st0 & kStatusDone) {
    return Status::IOError("cttehCoreStatus " + HexShort(st0) +
                           ": still done with the core held in reset (harness not responding)");
  }
  PlanBlock block;
  block.plan = plan;
  block.entry = prog.entry();
  for (const oracle::Segment& s : prog.segments()) {
    if (s.vaddr < kGuestBase || s.vaddr - kGuestBase + s.memsz > guest_->size()) {
      return Status::InvalidArgument(plan.workload_elf + ": segment at " + Hex64(s.vaddr) + " (" +
                                     std::to_string(s.memsz) + " bytes) outside the " +
                                     std::to_string(guest_->size()) + "-byte guest window at " +
                                     Hex64(kGuestBase));
    }
    CTTE_RETURN_IF_ERROR(guest_->WriteBytes(s.vaddr - kGuestBase, s.bytes.data(), s.bytes.size()));
    block.segments.push_back(SegmentInfo{s.vaddr, s.memsz, s.executable});
  }
  const std::vector<uint8_t> pb = EncodePlanBlock(block);
  if (pb.size() + kResultBytes + kConsoleAreaBytes > plan_->size()) {
    return Status::InvalidArgument("plan block of " + std::to_string(pb.size()) +
                                   " bytes does not fit the plan memory (" +
                                   std::to_string(plan_->size()) + " bytes)");
  }
  CTTE_RETURN_IF_ERROR(plan_->WriteBytes(0, pb.data(), pb.size()));
  const uint64_t no_console = 0;  // the harness counts what the core writes from here
  CTTE_RETURN_IF_ERROR(plan_->WriteBytes(ConsoleAreaOffset(plan_->size()), &no_console, 8));
  CTTE_RETURN_IF_ERROR(SetNamed("cttehPlanBytes", static_cast<uint32_t>(pb.size())));
  const std::string sys = Path("sys/class/u-dma-buf/" + o_.udmabuf);
  CTTE_ASSIGN_OR_RETURN(const uint64_t phys, ReadAttrU64(sys + "/phys_addr"));
  CTTE_ASSIGN_OR_RETURN(const uint64_t dma_size, ReadAttrU64(sys + "/size"));
  if (plan.ring_bytes > dma_size) {
    return Status::InvalidArgument("plan.ring_bytes " + std::to_string(plan.ring_bytes) +
                                   " exceeds the DMA buffer " + o_.udmabuf + " (" +
                                   std::to_string(dma_size) + " bytes)");
  }
  CTTE_RETURN_IF_ERROR(SetNamed("cttehRingBaseLo", static_cast<uint32_t>(phys)));
  CTTE_RETURN_IF_ERROR(SetNamed("cttehRingBaseHi", static_cast<uint32_t>(phys >> 32)));
  CTTE_RETURN_IF_ERROR(SetNamed("cttehRingSize", static_cast<uint32_t>(plan.ring_bytes)));
  CTTE_RETURN_IF_ERROR(SetNamed("cttehCoreControl", kCoreRun));  // release the core

  const auto deadline = Clock::now() + std::chrono::milliseconds(o_.run_timeout_ms);
  uint32_t st = 0;
  for (;;) {
    CTTE_ASSIGN_OR_RETURN(st, Named("cttehCoreStatus"));
    if (st & kStatusDone) break;
    if (Clock::now() > deadline) {
      return BoardTimeoutError(std::to_string(o_.run_timeout_ms / 1000) +
                               " s (core released, cttehCoreStatus never done)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string text;
  if (st & (kStatusFault | kStatusAssertion)) {
    uint64_t len = 0;
    const uint64_t at = plan_->size() - kResultBytes;
    if (plan_->ReadBytes(at, &len, 8).ok() && len <= kResultBytes - 8) {
      text.resize(len);
      (void)plan_->ReadBytes(at + 8, text.data(), len);
    }
  }
  if (st & kStatusAssertion) return RtlAssertionError(text);
  if (st & kStatusFault) return Status::IOError("harness fault: " + text);

  Capture c;
  Counters& k = c.counters;
  CTTE_ASSIGN_OR_RETURN(k.messages, Named("ctteMsgCount"));
  CTTE_ASSIGN_OR_RETURN(k.bytes, Named("ctteByteCount"));
  CTTE_ASSIGN_OR_RETURN(k.overflow_episodes, Named("ctteOverflowEpisodes"));
  CTTE_ASSIGN_OR_RETURN(k.records_dropped, Named("ctteRecordsDropped"));
  CTTE_ASSIGN_OR_RETURN(k.halfwords_retired, Named("ctteHalfwordsRetired"));
  CTTE_ASSIGN_OR_RETURN(k.status, Named("ctteStatus"));
  CTTE_ASSIGN_OR_RETURN(k.control, Named("trTeControl"));
  c.te_empty = (k.control & reg::kEmpty) != 0;
  CTTE_RETURN_IF_ERROR(ReadRing(plan.ring_bytes, &c));
  CTTE_ASSIGN_OR_RETURN(c.fabric_cycles, Named64("cttehFabricCyclesLo", "cttehFabricCyclesHi"));
  CTTE_ASSIGN_OR_RETURN(c.sink_cycles, Named64("cttehSinkCyclesLo", "cttehSinkCyclesHi"));
  CTTE_ASSIGN_OR_RETURN(c.drain_sink_cycles, Named64("cttehDrainCyclesLo", "cttehDrainCyclesHi"));
  CTTE_ASSIGN_OR_RETURN(c.beats, Named64("cttehBeatsLo", "cttehBeatsHi"));
  CTTE_ASSIGN_OR_RETURN(c.retired, Named64("cttehRetiredLo", "cttehRetiredHi"));
  CTTE_ASSIGN_OR_RETURN(c.sim_time_ps, Named64("cttehTimePsLo", "cttehTimePsHi"));
  CTTE_ASSIGN_OR_RETURN(c.max_ready_stall_sink_cycles,
                        Named64("cttehReadyStallLo", "cttehReadyStallHi"));
  CTTE_ASSIGN_OR_RETURN(const uint32_t flags, Named("cttehDrainFlags"));
  c.drained = (flags & 1) != 0;
  c.ready_stall_measured = (flags & 2) != 0;
  CTTE_ASSIGN_OR_RETURN(const uint32_t exit_code, Named("cttehExitCode"));
  c.exit_code = static_cast<int32_t>(exit_code);
  switch ((st >> 8) & 0xff) {
    case 1: c.core_stop = "exited"; break;
    case 2: c.core_stop = "max_instructions"; break;
    case 3: {
      uint64_t len = 0;
      const uint64_t at = plan_->size() - kResultBytes;
      std::string msg;
      if (plan_->ReadBytes(at, &len, 8).ok() && len <= kResultBytes - 8) {
        msg.resize(len);
        (void)plan_->ReadBytes(at + 8, msg.data(), len);
      }
      c.core_stop = "fatal: " + msg;
      break;
    }
    default: c.core_stop = "running"; break;
  }
  CTTE_RETURN_IF_ERROR(ReadConsole(&c));
  CTTE_ASSIGN_OR_RETURN(c.fabric_hz, ReadClock(ClockDomain::kFabric));
  CTTE_ASSIGN_OR_RETURN(c.sink_hz, ReadClock(ClockDomain::kSink));
  c.wall_seconds = std::chrono::duration<double>(Clock::now() - wall0).count();
  return c;
}

}  // namespace ctte::lab::zynq
