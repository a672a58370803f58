// A minimal ELF64 RISC-V executable writer, the counterpart of ProgramImage::Load (libelf): what
// it writes loads back to the same entry, segments and symbols. Used for generated programs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "oracle/program_image.h"

namespace ctte::oracle {

/// Writes an ELF64 RISC-V executable (one PT_LOAD per segment, a symbol table) to `path`
/// atomically.
Status WriteElf(const std::string& path, uint64_t entry, const std::vector<Segment>& segments,
                const std::vector<Symbol>& symbols);

}  // namespace ctte::oracle
