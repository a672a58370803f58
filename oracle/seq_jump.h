// Sequential jump (docs/encoder-behaviour.md section 11.7): the instruction forms that make a
// jalr inferable, shared by the reference encoder (which sees the beats' instruction bits) and
// the decoder (which reads them from the program image). The RTL has the same rules in
// rtl/src/ctte_feature_pkg.sv.
#pragma once

#include <cstdint>

namespace ctte::oracle {

/// rd of `LUI rd` / `AUIPC rd` (rd != x0) or `C.LUI rd` (rd != x0, x2); 0 when `insn` is not a
/// setter.
uint8_t SequentialSetterRd(uint32_t insn);
/// rs1 of `JALR` / `C.JR` / `C.JALR`; 0 when `insn` is none of them.
uint8_t JalrRs1(uint32_t insn);
/// The jump target of the pair `setter` (at `setter_pc`) then `jalr`, bit 0 cleared.
uint64_t SequentialTarget(uint32_t setter, uint64_t setter_pc, uint32_t jalr);

}  // namespace ctte::oracle
