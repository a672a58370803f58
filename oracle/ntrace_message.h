// N-Trace 1.0 messages as values: TCODEs, field codes, and the field layout of every standard
// message (spec/ntrace.md sections 2-5). The writer and the reader both pack and unpack fields
// from the one layout table here, so they cannot disagree about an order or a width.
#pragma once

#include <cstdint>
#include <string>

namespace ctte::oracle {

/// Message types of N-Trace 1.0 (spec/ntrace.md section 3).
enum class Tcode : uint8_t {
  kOwnership = 2,
  kDirectBranch = 3,
  kIndirectBranch = 4,
  kError = 8,
  kProgTraceSync = 9,
  kDirectBranchSync = 11,
  kIndirectBranchSync = 12,
  kResourceFull = 27,
  kIndirectBranchHist = 28,
  kIndirectBranchHistSync = 29,
  kRepeatBranch = 30,
  kProgTraceCorrelation = 33,
};

/// "ProgTraceSync" for a standard TCODE, "Vendor(57)" or "Reserved(45)" otherwise.
std::string TcodeName(uint8_t tcode);
/// True for the twelve TCODEs above.
bool IsStandardTcode(uint8_t tcode);
constexpr bool IsVendorTcode(uint8_t tcode) { return tcode >= 56 && tcode <= 62; }

/// SYNC reasons (spec/ntrace.md section 5).
enum SyncCode : uint8_t {
  kSyncExternalTrigger = 0, kSyncReset = 1, kSyncPeriodic = 2, kSyncDebugExit = 3,
  kSyncIcntFull = 4, kSyncTraceEnable = 5, kSyncTraceEvent = 6, kSyncOverrunRestart = 7,
  kSyncPowerDownExit = 9,
};
/// B-TYPE values (our encoder uses 0, 2 and 3; 1 is accepted when decoding).
enum BType : uint8_t { kBtypeJump = 0, kBtypeTrap = 1, kBtypeException = 2, kBtypeInterrupt = 3 };
/// RCODE values of ResourceFull.
enum RCode : uint8_t { kRcodeIcnt = 0, kRcodeHist = 1, kRcodeHistRepeat = 2 };
/// EVCODE values of ProgTraceCorrelation.
enum EvCode : uint8_t { kEvDebugEntry = 0, kEvLowPower = 1, kEvTraceDisabled = 4 };
/// ECODE bit announcing lost program-trace messages.
constexpr uint64_t kEcodeProgramTraceLost = 1u << 2;

/// Address width (spec/ntrace.md section 6): addresses are XLEN bits wide and F-ADDR/U-ADDR
/// carry bits 1..XLEN-1, so an address field has at most XLEN-1 significant bits. Our encoder
/// never drops identical MSBs (no trTeInstExtendAddrMSB), so no sign extension applies: an
/// address is F-ADDR << 1, zero-extended from XLEN bits. XLEN is 32 or 64.
constexpr bool IsValidXlen(uint32_t xlen) { return xlen == 32 || xlen == 64; }
/// The bits of an XLEN-wide address: 0xFFFFFFFF for XLEN 32, all ones for 64.
constexpr uint64_t AddressMask(uint32_t xlen) {
  return xlen >= 64 ? ~uint64_t{0} : (uint64_t{1} << xlen) - 1;
}
/// True when an F-ADDR or U-ADDR value fits the XLEN-1 bits the field may carry.
constexpr bool AddressFieldFits(uint64_t field, uint32_t xlen) {
  return xlen >= 64 ? (field >> 63) == 0 : (field >> (xlen - 1)) == 0;
}

/// The fields of every message; a Message holds each one once.
enum class Field : uint8_t {
  kSrc, kSync, kBtype, kEtype, kRcode, kEvcode, kCdf,                   // fixed width
  kProcess, kIcnt, kFaddr, kUaddr, kHist, kEcode, kRdata, kHrepeat, kBcnt, kTstamp,  // variable
  kCount,
};
const char* FieldName(Field f);

/// Static layout of the stream: widths chosen by configuration (spec: "Cfg").
struct StreamFormat {
  uint8_t src_bits = 0;     ///< trTeSrcBits; 0 = no SRC field
  bool timestamps = false;  ///< trTsEnable: a TSTAMP ends every message
};

/// One message: its TCODE, the fields it carries, and where it was found.
struct Message {
  uint8_t tcode = 0;
  uint32_t present = 0;     ///< bit (1 << Field) set for each field carried
  uint64_t offset = 0;      ///< byte offset of the first byte (reader)
  uint32_t size = 0;        ///< bytes on the wire (reader)
  uint64_t value[static_cast<int>(Field::kCount)] = {};

  bool has(Field f) const { return (present >> static_cast<int>(f)) & 1; }
  uint64_t get(Field f) const { return value[static_cast<int>(f)]; }
  void set(Field f, uint64_t v) {
    value[static_cast<int>(f)] = v;
    present |= 1u << static_cast<int>(f);
  }
  Tcode type() const { return static_cast<Tcode>(tcode); }
  /// True when the message carries a SYNC field (and so an F-ADDR).
  bool is_sync() const { return has(Field::kSync); }
  /// "ProgTraceSync SYNC=5 I-CNT=0x0 F-ADDR=0x40000000".
  std::string ToString() const;

  // Constructors for the messages our encoder emits (docs/encoder-behaviour.md section 7).
  static Message DirectBranch(uint64_t icnt);
  static Message IndirectBranch(uint8_t btype, uint64_t icnt, uint64_t uaddr);
  static Message Error(uint8_t etype, uint64_t ecode);
  static Message ProgTraceSync(uint8_t sync, uint64_t icnt, uint64_t faddr);
  static Message IndirectBranchSync(uint8_t sync, uint8_t btype, uint64_t icnt, uint64_t faddr);
  static Message ResourceFull(uint8_t rcode, uint64_t rdata);
  static Message IndirectBranchHist(uint8_t btype, uint64_t icnt, uint64_t uaddr, uint64_t hist);
  static Message IndirectBranchHistSync(uint8_t sync, uint8_t btype, uint64_t icnt,
                                        uint64_t faddr, uint64_t hist);
  /// HTM (cdf 1) carries HIST; BTM (cdf 0) does not.
  static Message ProgTraceCorrelation(uint8_t evcode, uint8_t cdf, uint64_t icnt,
                                      uint64_t hist);
};

/// One slot of a layout: a field and its width in bits (0 = variable length).
struct FieldSlot {
  Field field;
  uint8_t bits;
};

/// The fields of `tcode` after TCODE, in wire order, for a stream of `format`. Conditional
/// fields are decided by the fixed fields already read: HIST of ProgTraceCorrelation needs
/// `cdf == 1`, HREPEAT of ResourceFull needs `rcode == 2`. Writes at most kMaxSlots slots and
/// returns how many; 0 for a TCODE without a standard layout.
constexpr int kMaxSlots = 10;
int MessageLayout(uint8_t tcode, const StreamFormat& format, uint64_t cdf, uint64_t rcode,
                  FieldSlot* slots);

}  // namespace ctte::oracle
