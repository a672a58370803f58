// A seeded random RV64IMAC or RV32IMAC program generator (in the spirit of riscv-dv, much
// smaller): it emits machine code directly (oracle/iss_asm.h), and oracle/elf_writer.h writes it
// as a minimal ELF64 or ELF32,
// so it needs no cross toolchain at run time. Every program terminates: loops are counted, calls
// form a DAG (a function only calls functions of a deeper level), other branches and indirect
// jumps go forward, and the dynamic length is bounded by an estimate kept while generating.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "oracle/elf_writer.h"  // WriteElf, to write a GeneratedProgram
#include "oracle/program_image.h"

namespace ctte::oracle {

/// The generator's version, stored with every run of workload "random" (content pins). Bump it
/// whenever the bytes GenerateProgram makes for a seed change; replay also regenerates the
/// program and checks its digest, so a change that was not bumped is still caught.
inline constexpr const char* kProgramGenVersion = "progen-1";

struct ProgramGenOptions {
  uint32_t size = 600;               ///< approximate static instruction count (blocks)
  uint32_t loop_depth = 2;           ///< maximum loop nesting (0..3)
  uint32_t call_depth = 4;           ///< levels of the call DAG (0 = only the entry function)
  uint32_t indirect_per_mille = 60;  ///< share of blocks that are indirect jumps or calls
  uint32_t trap_per_mille = 20;      ///< share of blocks that trap (ecall, ebreak, illegal)
  uint32_t compressed_percent = 40;  ///< share of instructions emitted in compressed form
  uint64_t max_dynamic = 150'000;    ///< bound on the estimated dynamic instruction count
  /// Register width: RV64IMAC (the bytes of an RV64 program are those of kProgramGenVersion) or
  /// RV32IMAC (the same shape from the same seed, RV64-only instructions replaced).
  Xlen xlen = Xlen::k64;
};

struct GeneratedProgram {
  uint64_t entry = 0;
  std::vector<Segment> segments;
  std::vector<Symbol> symbols;
  uint64_t estimated_dynamic = 0;
  Xlen xlen = Xlen::k64;  ///< ProgramGenOptions::xlen; WriteElf(..., xlen) writes its class
  ProgramImage ToImage() const {
    return ProgramImage::FromSegments(entry, segments, symbols, xlen);
  }
};

/// Generates one program from `seed` (deterministic: same seed and options, same bytes).
GeneratedProgram GenerateProgram(uint64_t seed, const ProgramGenOptions& options);

}  // namespace ctte::oracle
