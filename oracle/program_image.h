// A RISC-V program image loaded from an ELF file (libelf): loadable segments, entry point,
// symbols. Used by the ISS (initial memory), by N-Trace reconstruction (instruction fetch by
// address) and by verdict evidence ("main+0x44").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "oracle/platform.h"
#include "oracle/xlen.h"

namespace ctte::oracle {

struct Segment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  bool executable = false;
  std::vector<uint8_t> bytes;  ///< file bytes, zero-extended to memsz
};

struct Symbol {
  std::string name;
  uint64_t addr = 0;
  uint64_t size = 0;
  bool is_function = false;
};

class ProgramImage {
 public:
  /// The default RAM window every program has (oracle/platform.h); segments may also lie
  /// elsewhere, as platform::RamRegions places them.
  static constexpr uint64_t kRamBase = platform::kDefaultRamBase;
  static constexpr uint64_t kRamSize = platform::kDefaultRamSize;

  /// Loads an RV32 (ELFCLASS32) or RV64 (ELFCLASS64) RISC-V ELF; xlen() is its class. Errors
  /// name the file and the reason: missing file, not an ELF, wrong machine or class, a segment
  /// the platform cannot map (platform::SegmentRefusal: the program header, its range and the
  /// device window it hits), more RAM than platform::kRamLimit.
  static Result<ProgramImage> Load(const std::string& path);
  /// As Load, and refuses an ELF whose class is not `want` (the error names both widths).
  static Result<ProgramImage> Load(const std::string& path, Xlen want);

  /// The program's register width: its ELF class (FromSegments: as given).
  Xlen xlen() const { return xlen_; }

  uint64_t entry() const { return entry_; }
  const std::vector<Segment>& segments() const { return segments_; }
  const std::vector<Symbol>& symbols() const { return symbols_; }
  const std::string& path() const { return path_; }

  /// Reads `n` bytes at `addr` from the loaded segments; false when any byte is outside them.
  bool Read(uint64_t addr, void* out, size_t n) const;
  /// Reads the instruction at `addr` (16 or 32 bits, by its low two bits); false if unmapped.
  bool FetchInsn(uint64_t addr, uint32_t* raw) const;
  /// "main+0x44" ("main" at offset 0), or the hex address when no function symbol covers it.
  std::string Symbolize(uint64_t addr) const;

  /// An image built in memory (generated programs, tests); path() is "<memory>". Segments are
  /// taken as given: unlike Load, nothing checks that the platform can map them, so the caller
  /// must (the ISS CHECKs platform::RamRegions).
  static ProgramImage FromSegments(uint64_t entry, std::vector<Segment> segments,
                                   std::vector<Symbol> symbols = {}, Xlen xlen = Xlen::k64);

 private:
  void Finish();  ///< sorts segments and symbols

  std::string path_;
  uint64_t entry_ = 0;
  Xlen xlen_ = Xlen::k64;
  std::vector<Segment> segments_;   ///< sorted by vaddr
  std::vector<Symbol> symbols_;     ///< sorted by addr
};

}  // namespace ctte::oracle
