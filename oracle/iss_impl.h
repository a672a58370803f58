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

namespace ctte::oracle::iss_internal {

constexpr uint64_t kRamBase = ProgramImage::kRamBase;
constexpr uint64_t kRamSize = ProgramImage::kRamSize;
constexpr uint64_t kTestDevice = 0x100000, kTestDeviceSize = 0x1000;
constexpr uint64_t kUart = 0x10000000, kUartSize = 0x100;
constexpr uint64_t kClint = 0x02000000, kClintSize = 0x10000;
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
  std::unique_ptr<uint8_t, iss_internal::FreeDeleter> ram_;
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
};

template <typename T>
inline bool Iss::Impl::Load(uint64_t addr, T* value) {
  const uint64_t off = addr - iss_internal::kRamBase;
  if (off <= iss_internal::kRamSize - sizeof(T)) {
    std::memcpy(value, ram_.get() + off, sizeof(T));
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
  const uint64_t off = addr - iss_internal::kRamBase;
  if (off <= iss_internal::kRamSize - sizeof(T)) {
    std::memcpy(ram_.get() + off, &value, sizeof(T));
    // HTIF: a store reaching tohost's upper word posts the request (as QEMU's spike does).
    if (addr + sizeof(T) - htif_hi_ < htif_span_) HtifStore(addr, sizeof(T));
    return true;
  }
  if (!MmioStore(addr, static_cast<uint64_t>(value))) {
    exc_cause_ = 7;  // store/AMO access fault
    exc_tval_ = addr;
    return false;
  }
  return true;
}

}  // namespace ctte::oracle
