// A minimal ELF64 (RV64) or ELF32 (RV32) RISC-V executable writer, the counterpart of ProgramImage::Load (libelf): what
// it writes loads back to the same entry, segments and symbols. Used for generated programs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "oracle/program_image.h"

namespace ctte::oracle {

/// Writes a RISC-V executable (one PT_LOAD per segment, a symbol table) to `path` atomically:
/// ELFCLASS64 for Xlen::k64, ELFCLASS32 for Xlen::k32 (ProgramImage::Load reads it back with
/// that xlen()).
Status WriteElf(const std::string& path, uint64_t entry, const std::vector<Segment>& segments,
                const std::vector<Symbol>& symbols, Xlen xlen = Xlen::k64);

}  // namespace ctte::oracle
