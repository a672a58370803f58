// Private to the program generator (oracle/program_gen.cc, oracle/program_gen_insns.cc): the
// Generator class, its layout constants and register roles. Not part of the oracle's interface.
//
// Layout: code at 0x80000000 (_start, trap handler, functions), 4 KiB of random data at
// 0x80100000 (s11 points at its middle), stack below 0x80200000. Register roles: a0-a4, a6, a7,
// s2-s10 are free for random ALU/memory work; s0, s1, a5 are loop counters (x8/x9/x15, so c.bnez
// applies); t0 is the link of leaf "thunks" (calls with x5 as the link register); t1, t2 are
// scratch for addresses and indirect targets; t3-t6 belong to the trap handler; ra, sp, s11 as
// usual. Every function saves ra, s0, s1, a5.
//
// Width: with ProgramGenOptions::xlen k32 every instruction is RV32IMAC (no *W, no ld/sd/lwu/
// 64-bit AMO, 5-bit shift amounts, lui+addi constants). The random draws of an RV64 program are
// those it always had (its bytes per seed are pinned by kProgramGenVersion); RV32 replaces the
// instructions it lacks after the same draws, so one seed gives programs of the same shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/random.h"
#include "oracle/iss_asm.h"
#include "oracle/program_gen.h"

namespace ctte::oracle::program_gen_internal {

using namespace reg;  // NOLINT(google-build-using-namespace): register names

inline constexpr uint64_t kCodeBase = 0x80000000ULL;
inline constexpr uint64_t kDataBase = 0x80100000ULL;
inline constexpr uint32_t kDataSize = 4096;
inline constexpr uint64_t kStackTop = 0x80200000ULL;
inline constexpr uint32_t kAluRegs[] = {a0, a1, a2, a3, a4, a6, a7, s2, s3, s4, s5, s6, s7, s8, s9, s10};
inline constexpr uint32_t kCompressibleAlu[] = {a0, a1, a2, a3, a4};
inline constexpr uint32_t kLoopRegs[] = {s0, s1, a5};
inline constexpr uint64_t kTrapCost = 12;

struct Function {
  Assembler::Label label;
  int level;
  uint64_t cost;  ///< estimated dynamic instructions per call
  bool thunk;     ///< leaf called with t0 as link
  std::string name;
};

class Generator {
 public:
  Generator(uint64_t seed, const ProgramGenOptions& o)
      : rng_(seed), o_(o), rv32_(o.xlen == Xlen::k32), as_(kCodeBase, o.xlen) {}
  GeneratedProgram Run();

 private:
  uint32_t AluReg() { return kAluRegs[rng_.Below(std::size(kAluRegs))]; }
  uint32_t SrcReg() { return rng_.Chance(1, 16) ? zero : AluReg(); }
  bool Compressed() { return rng_.Below(100) < o_.compressed_percent; }
  int32_t Imm12() { return static_cast<int32_t>(rng_.Between(-2048, 2047)); }

  void EmitAlu();
  void EmitMemory();
  void EmitAmo();
  void EmitTrap();
  void EmitCsr();
  uint64_t EmitBlocks(uint32_t blocks, uint32_t loop_level, uint64_t budget, int level);
  uint64_t EmitFunctionBody(Function& f, uint32_t blocks);
  void EmitStart(const Function& f0);
  void EmitHandler();
  const Function* PickCallee(int level, uint64_t budget, bool thunk);

  Rng rng_;
  ProgramGenOptions o_;
  bool rv32_;
  Assembler as_;
  std::vector<Function> funcs_;
  Assembler::Label handler_ = 0;
  std::vector<Symbol> symbols_;
};

}  // namespace ctte::oracle::program_gen_internal
