// Private to the ISS (oracle/iss.cc, oracle/iss_execute.cc): machine state, CSR file and the
// inline memory path. Not part of the oracle's interface.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/platform.h"

namespace ctte::oracle::iss_internal {

constexpr uint64_t kTestDevice = platform::kSifiveTest.base;
constexpr uint64_t kTestDeviceSize = platform::kSifiveTest.size;
constexpr uint64_t kUart = platform::kUart.base, kUartSize = platform::kUart.size;
constexpr uint64_t kClint = platform::kClint.base, kClintSize = platform::kClint.size;
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

constexpr uint64_t kMstatusMie = 1ULL << 3;
constexpr uint64_t kMstatusMpie = 1ULL << 7;
constexpr uint64_t kMstatusMpp = 3ULL << 11;  ///< hardwired to M (no U/S modes)
constexpr uint64_t kMipMsip = 1ULL << 3;
constexpr uint64_t kMieMask = (1ULL << 3) | (1ULL << 7) | (1ULL << 11);  ///< MSIE MTIE MEIE
/// misa: MXL 2 (RV64) or 1 (RV32), with A, C, I, M.
constexpr uint64_t kMisaExtensions = (1 << 0) | (1 << 2) | (1 << 8) | (1 << 12);
constexpr uint64_t kMisa64 = (2ULL << 62) | kMisaExtensions;
constexpr uint64_t kMisa32 = (1ULL << 30) | kMisaExtensions;

struct CsrFile {
  uint64_t mstatus = kMstatusMpp;
  uint64_t mie = 0, mip = 0, mtvec = 0, mepc = 0, mcause = 0, mtval = 0, mscratch = 0;
  uint64_t mcounteren = 0, mcountinhibit = 0;
  uint64_t mcycle_offset = 0, minstret_offset = 0;  ///< counter = retired + offset (mod 2^64)
};

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

/// One RAM region (platform::RamRegions) and its host memory. The memory path keeps the last
/// region a load/store and a fetch hit (the common case: one check, as a flat array has).
struct MemRegion {
  uint64_t base = 0;
  uint64_t size = 0;  ///< at least a page (the caches always hold a real region)
  uint8_t* host = nullptr;
};

}  // namespace ctte::oracle::iss_internal

namespace ctte::oracle {

struct Iss::Impl {
  Impl(const ProgramImage& image, IssOptions opts);
  bool Step(Retired* out);  ///< StepT<uint32_t> or StepT<uint64_t>, by rv32_
  /// One beat of an XLEN sizeof(T)*8 core (oracle/iss_execute.cc).
  template <typename T>
  bool StepT(Retired* out);
  size_t StepMany(Retired* out, size_t n);  ///< StepT in a loop (Iss::StepMany)

  /// Executes one 32-bit (possibly expanded) instruction on an XLEN sizeof(T)*8 core. False on
  /// an exception (exc_cause_, exc_tval_ set). Sets next_pc_ and itype_.
  template <typename T>
  bool Execute(uint32_t w, uint64_t pc, uint8_t size);
  /// The major opcode kOp (OP, OP-IMM, and on RV64 OP-32, OP-IMM-32; with M) of an XLEN
  /// sizeof(T)*8 core (oracle/iss_alu.h). False: illegal.
  template <typename T, uint32_t kOp>
  bool Alu(uint32_t w);
  bool Amo(uint32_t w, uint8_t size);
  bool Csr(uint32_t w, uint8_t size);
  bool Illegal(uint32_t w, uint8_t size);  ///< sets cause 2, mtval = the raw bits; false
  template <typename T>
  bool Load(uint64_t addr, T* value);
  template <typename T>
  bool Store(uint64_t addr, T value);
  /// The slow paths of Load/Store: another RAM region (then the cache follows it) or MMIO.
  template <typename T>
  bool LoadSlow(uint64_t addr, T* value);
  template <typename T>
  bool StoreSlow(uint64_t addr, T value);
  /// The region holding all of [addr, addr + n), or nullptr.
  const iss_internal::MemRegion* FindRegion(uint64_t addr, uint64_t n) const;
  /// Host memory of [addr, addr + n) when it lies in one RAM region, else nullptr.
  uint8_t* HostPtr(uint64_t addr, uint64_t n) const {
    const iss_internal::MemRegion* r = FindRegion(addr, n);
    return r == nullptr ? nullptr : r->host + (addr - r->base);
  }
  bool MmioLoad(uint64_t addr, uint64_t* value);
  bool MmioStore(uint64_t addr, uint64_t value);
  /// Finds tohost/fromhost among the image's symbols (oracle/iss_htif.cc).
  void HtifInit(const ProgramImage& image);
  /// A RAM store near tohost (the inline filter): when it wrote tohost's upper word and tohost
  /// is not zero, serve the request (oracle/iss_htif.cc).
  void HtifStore(uint64_t addr, size_t size);
  void EnterTrap(uint64_t cause, uint64_t tval, uint64_t epc);
  void AdvanceSchedule();
  bool Fetch(uint64_t pc, uint32_t* raw, uint32_t* w, uint8_t* size);

  uint64_t x_[32] = {};  ///< RV32: 32-bit values, zero-extended
  uint64_t pc_ = 0;
  bool rv32_ = false;    ///< XLEN 32: the program image's ELF class (ProgramImage::xlen())
  std::vector<std::unique_ptr<uint8_t, iss_internal::FreeDeleter>> ram_;  ///< calloc'd
  std::vector<iss_internal::MemRegion> regions_;  ///< sorted by base, disjoint
  iss_internal::MemRegion data_hit_, fetch_hit_;  ///< the last region a load/store, a fetch hit
  platform::Machine machine_ = platform::Machine::kVirt;
  iss_internal::CsrFile csr_;
  bool res_valid_ = false;
  uint64_t res_addr_ = 0;

  const uint32_t* expand_ = nullptr;  ///< 64 Ki-entry table: compressed -> 32-bit (0 = illegal)

  // Per-instruction outputs of Execute.
  uint64_t next_pc_ = 0;
  IType itype_ = IType::kNone;
  uint64_t exc_cause_ = 0, exc_tval_ = 0;
  uint16_t raw16_ = 0;  ///< the raw bits of the current compressed instruction

  // Interrupt schedule.
  std::vector<uint64_t> irq_at_;
  size_t irq_pos_ = 0;
  uint64_t every_ = 0, next_every_ = iss_internal::kNever, next_irq_ = iss_internal::kNever;

  IssOptions opts_;
  uint64_t retired_ = 0, beats_ = 0;
  StopReason stop_ = StopReason::kRunning;
  int exit_code_ = 0;
  std::string console_, fatal_;
  uint64_t last_fetch_fault_pc_ = iss_internal::kNever;

  // HTIF (oracle/iss_htif.cc): tohost and fromhost by ELF symbol. The inline filter passes
  // stores whose end lies in [htif_hi_, htif_hi_ + htif_span_); htif_span_ 0 = no HTIF.
  uint64_t tohost_ = 0, fromhost_ = 0, htif_hi_ = 0, htif_span_ = 0;
  uint8_t* tohost_host_ = nullptr;    ///< tohost's host memory (set with htif_span_)
  uint8_t* fromhost_host_ = nullptr;  ///< fromhost's, or nullptr: answers are not written
};

template <typename T>
inline bool Iss::Impl::Load(uint64_t addr, T* value) {
  const uint64_t off = addr - data_hit_.base;
  if (off <= data_hit_.size - sizeof(T)) {
    std::memcpy(value, data_hit_.host + off, sizeof(T));
    return true;
  }
  return LoadSlow(addr, value);
}

template <typename T>
bool Iss::Impl::LoadSlow(uint64_t addr, T* value) {
  if (const iss_internal::MemRegion* r = FindRegion(addr, sizeof(T))) {
    data_hit_ = *r;
    std::memcpy(value, r->host + (addr - r->base), sizeof(T));
    return true;
  }
  uint64_t v = 0;
  if (!MmioLoad(addr, &v)) {
    exc_cause_ = 5;  // load access fault
    exc_tval_ = addr;
    return false;
  }
  *value = static_cast<T>(v);
  return true;
}

template <typename T>
inline bool Iss::Impl::Store(uint64_t addr, T value) {
  const uint64_t off = addr - data_hit_.base;
  if (off <= data_hit_.size - sizeof(T)) {
    std::memcpy(data_hit_.host + off, &value, sizeof(T));
    // HTIF: a store reaching tohost's upper word posts the request (as QEMU's spike does).
    if (addr + sizeof(T) - htif_hi_ < htif_span_) HtifStore(addr, sizeof(T));
    return true;
  }
  return StoreSlow(addr, value);
}

template <typename T>
bool Iss::Impl::StoreSlow(uint64_t addr, T value) {
  if (const iss_internal::MemRegion* r = FindRegion(addr, sizeof(T))) {
    data_hit_ = *r;
    return Store(addr, value);
  }
  if (!MmioStore(addr, static_cast<uint64_t>(value))) {
    exc_cause_ = 7;  // store/AMO access fault
    exc_tval_ = addr;
    return false;
  }
  return true;
}

}  // namespace ctte::oracle
