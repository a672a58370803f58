// The register width of a program and of the core that runs it: RV32 or RV64. A program's XLEN
// comes from its ELF class (ELFCLASS32 = RV32, ELFCLASS64 = RV64; oracle/program_image.h); the
// ISS, the decoder and the generator follow it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ctte::oracle {

enum class Xlen : uint8_t { k32 = 32, k64 = 64 };

/// 32 or 64.
constexpr int XlenBits(Xlen x) { return static_cast<int>(x); }
/// "rv32" or "rv64".
constexpr const char* XlenName(Xlen x) { return x == Xlen::k32 ? "rv32" : "rv64"; }
/// 32 -> k32, 64 -> k64, anything else nullopt.
constexpr std::optional<Xlen> XlenFromBits(int bits) {
  if (bits == 32) return Xlen::k32;
  if (bits == 64) return Xlen::k64;
  return std::nullopt;
}

}  // namespace ctte::oracle
