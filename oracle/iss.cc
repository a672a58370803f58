// The reference core model: RV64IMAC or RV32IMAC (by the program's ELF class) + Zicsr, M-mode
// only.
//
// How: RAM as oracle/platform.h places it (the default window and the pages of every segment,
// each region one calloc'd array, so untouched pages cost nothing; loads/stores and fetches each
// keep the last region they hit) and a decode-on-the-fly interpreter. A compressed instruction is expanded through a 64 Ki-entry table
// (every 16-bit value, built once per process; so self-modifying code needs no invalidation) and
// executed by the same 32-bit switch (oracle/iss_execute.cc). Each Step() yields one beat: a
// retired instruction, or a non-retiring trap beat (exception: pc = the faulting instruction;
// interrupt: pc = the instruction that did not run yet). Memory behaviour follows QEMU 7.2's virt
// machine (docs/reference-model.md): ordinary misaligned loads/stores complete, LR/AMO misaligned
// trap, SC with no matching reservation fails without touching memory.
#include "oracle/iss.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "base/check.h"
#include "oracle/insn.h"
#include "oracle/iss_impl.h"

namespace ctte::oracle {

using namespace iss_internal;  // NOLINT(google-build-using-namespace): our private header

namespace {

// Every 16-bit value's 32-bit expansion on an XLEN `xlen` core, built once per width
// (thread-safe static initialisation).
std::vector<uint32_t> BuildExpansion(Xlen xlen) {
  std::vector<uint32_t> t(1 << 16);
  for (uint32_t c = 0; c < t.size(); ++c) {
    t[c] = (c & 3) == 3 ? 0 : ExpandCompressed(static_cast<uint16_t>(c), xlen);
  }
  return t;
}
const uint32_t* ExpansionTable(Xlen xlen) {
  if (xlen == Xlen::k32) {
    static const std::vector<uint32_t> table32 = BuildExpansion(Xlen::k32);
    return table32.data();
  }
  static const std::vector<uint32_t> table64 = BuildExpansion(Xlen::k64);
  return table64.data();
}

}  // namespace

Iss::Impl::Impl(const ProgramImage& image, IssOptions opts) : opts_(std::move(opts)) {
  rv32_ = image.xlen() == Xlen::k32;
  expand_ = ExpansionTable(image.xlen());
  // ProgramImage::Load refuses what the platform cannot map; FromSegments callers must too.
  Result<std::vector<platform::RamRegion>> ram = platform::RamRegions(image);
  CTTE_CHECK(ram.ok(), ("ISS: a program image the platform cannot map: " +
                        ram.status().message()).c_str());
  for (const platform::RamRegion& r : *ram) {
    ram_.emplace_back(static_cast<uint8_t*>(std::calloc(r.size, 1)));
    CTTE_CHECK(ram_.back() != nullptr, "cannot allocate ISS RAM");
    regions_.push_back(MemRegion{r.base, r.size, ram_.back().get()});
  }
  machine_ = platform::MachineOf(image);
  for (const Segment& s : image.segments()) {
    uint8_t* host = HostPtr(s.vaddr, s.bytes.size());
    CTTE_CHECK(host != nullptr || s.bytes.empty(), "segment outside ISS RAM");
    if (!s.bytes.empty()) std::memcpy(host, s.bytes.data(), s.bytes.size());
  }
  const MemRegion* at_entry = FindRegion(image.entry(), 2);
  data_hit_ = fetch_hit_ = at_entry != nullptr ? *at_entry : regions_[0];
  pc_ = image.entry();
  console_.reserve(4096);
  HtifInit(image);
  irq_at_ = opts_.interrupt_at;
  std::sort(irq_at_.begin(), irq_at_.end());
  every_ = opts_.interrupt_every;
  next_every_ = every_ != 0 ? every_ : kNever;
  next_irq_ = std::min(irq_at_.empty() ? kNever : irq_at_[0], next_every_);
}

void Iss::Impl::AdvanceSchedule() {
  while (irq_pos_ < irq_at_.size() && irq_at_[irq_pos_] <= retired_) ++irq_pos_;
  if (every_ != 0 && next_every_ <= retired_) next_every_ = (retired_ / every_ + 1) * every_;
  next_irq_ = std::min(irq_pos_ < irq_at_.size() ? irq_at_[irq_pos_] : kNever, next_every_);
}

void Iss::Impl::EnterTrap(uint64_t cause, uint64_t tval, uint64_t epc) {
  csr_.mepc = epc;
  csr_.mcause = cause;
  csr_.mtval = tval;
  const uint64_t mie = (csr_.mstatus >> 3) & 1;
  csr_.mstatus = (csr_.mstatus & ~(kMstatusMie | kMstatusMpie)) | (mie << 7) | kMstatusMpp;
  const uint64_t base = csr_.mtvec & ~3ULL;
  const bool interrupt = (cause >> (rv32_ ? 31 : 63)) != 0;  // mcause's XLEN-1 bit
  const bool vectored = (csr_.mtvec & 3) == 1 && interrupt;
  next_pc_ = vectored ? base + 4 * (cause & 0xff) : base;
  if (rv32_) next_pc_ &= 0xffffffffULL;
  res_valid_ = false;
}

const MemRegion* Iss::Impl::FindRegion(uint64_t addr, uint64_t n) const {
  for (const MemRegion& r : regions_) {
    if (addr - r.base < r.size && n <= r.size - (addr - r.base)) return &r;
  }
  return nullptr;
}

bool Iss::Impl::MmioLoad(uint64_t addr, uint64_t* value) {
  const bool virt = machine_ == platform::Machine::kVirt;
  if (virt && addr - kUart < kUartSize) {
    *value = (addr - kUart) == 5 ? 0x60 : 0;  // LSR: transmitter empty
    return true;
  }
  if (addr - kClint < kClintSize) {
    *value = (addr - kClint) == 0 ? ((csr_.mip & kMipMsip) != 0 ? 1 : 0) : 0;
    return true;
  }
  if (virt && addr - kTestDevice < kTestDeviceSize) {
    *value = 0;
    return true;
  }
  return false;
}

bool Iss::Impl::MmioStore(uint64_t addr, uint64_t value) {
  const bool virt = machine_ == platform::Machine::kVirt;
  if (virt && addr - kUart < kUartSize) {
    if (addr == kUart) console_.push_back(static_cast<char>(value & 0xff));
    return true;
  }
  if (addr - kClint < kClintSize) {
    if (addr == kClint) {
      if ((value & 1) != 0) {
        csr_.mip |= kMipMsip;
      } else {
        csr_.mip &= ~kMipMsip;
      }
    }
    return true;
  }
  if (virt && addr - kTestDevice < kTestDeviceSize) {
    if (addr != kTestDevice) return true;
    const uint32_t v = static_cast<uint32_t>(value);
    if ((v & 0xffff) == 0x5555) {
      stop_ = StopReason::kExited;
      exit_code_ = 0;
    } else if ((v & 0xffff) == 0x3333) {
      stop_ = StopReason::kExited;
      exit_code_ = static_cast<int>(v >> 16);
    } else if ((v & 0xffff) == 0x7777) {
      stop_ = StopReason::kFatal;
      fatal_ = "reset requested through the test device (not modelled)";
    }
    return true;
  }
  return false;
}

Iss::Iss(const ProgramImage& image, IssOptions options)
    : impl_(std::make_unique<Impl>(image, std::move(options))) {}
Iss::~Iss() = default;
StopReason Iss::stop_reason() const { return impl_->stop_; }
int Iss::exit_code() const { return impl_->exit_code_; }
const std::string& Iss::console() const { return impl_->console_; }
uint64_t Iss::retired() const { return impl_->retired_; }
uint64_t Iss::beats() const { return impl_->beats_; }
const std::string& Iss::fatal_message() const { return impl_->fatal_; }
std::string Iss::core_stop() const { return CoreStopText(impl_->stop_, impl_->fatal_); }
uint64_t Iss::TEST_Reg(int index) const { return impl_->x_[index & 31]; }

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kRunning: return "running";
    case StopReason::kExited: return "exited";
    case StopReason::kMaxInstructions: return "max_instructions";
    case StopReason::kFatal: return "fatal";
  }
  return "?";
}

std::string CoreStopText(StopReason reason, const std::string& fatal_message) {
  std::string text = StopReasonName(reason);
  if (reason == StopReason::kFatal) text += ": " + fatal_message;
  return text;
}

std::optional<StopReason> ParseCoreStop(std::string_view core_stop) {
  if (core_stop.starts_with("fatal: ")) return StopReason::kFatal;
  for (StopReason r : {StopReason::kRunning, StopReason::kExited, StopReason::kMaxInstructions}) {
    if (core_stop == StopReasonName(r)) return r;
  }
  return std::nullopt;
}

}  // namespace ctte::oracle
