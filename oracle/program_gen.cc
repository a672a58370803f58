// Random RV64IMAC program generator (see program_gen.h for the termination argument).
//
// Layout: code at 0x80000000 (_start, trap handler, functions), 4 KiB of random data at
// 0x80100000 (s11 points at its middle), stack below 0x80200000. Register roles: a0-a4, a6, a7,
// s2-s10 are free for random ALU/memory work; s0, s1, a5 are loop counters (x8/x9/x15, so c.bnez
// applies); t0 is the link of leaf "thunks" (calls with x5 as the link register); t1, t2 are
// scratch for addresses and indirect targets; t3-t6 belong to the trap handler; ra, sp, s11 as
// usual. Every function saves ra, s0, s1, a5.
#include "oracle/program_gen.h"

#include <algorithm>

#include "base/check.h"
#include "base/random.h"
#include "oracle/iss_asm.h"

namespace ctte::oracle {
namespace {

using namespace reg;  // NOLINT(google-build-using-namespace): register names

constexpr uint64_t kCodeBase = 0x80000000ULL;
constexpr uint64_t kDataBase = 0x80100000ULL;
constexpr uint32_t kDataSize = 4096;
constexpr uint64_t kStackTop = 0x80200000ULL;
constexpr uint32_t kAluRegs[] = {a0, a1, a2, a3, a4, a6, a7, s2, s3, s4, s5, s6, s7, s8, s9, s10};
constexpr uint32_t kCompressibleAlu[] = {a0, a1, a2, a3, a4};
constexpr uint32_t kLoopRegs[] = {s0, s1, a5};
constexpr uint64_t kTrapCost = 12;

struct Function {
  Assembler::Label label;
  int level;
  uint64_t cost;  ///< estimated dynamic instructions per call
  bool thunk;     ///< leaf called with t0 as link
  std::string name;
};

std::string Name(const char* prefix, size_t n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}

class Generator {
 public:
  Generator(uint64_t seed, const ProgramGenOptions& o) : rng_(seed), o_(o), as_(kCodeBase) {}
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
  Assembler as_;
  std::vector<Function> funcs_;
  Assembler::Label handler_ = 0;
  std::vector<Symbol> symbols_;
};

void Generator::EmitAlu() {
  const uint32_t rd = AluReg();
  if (Compressed()) {
    const uint32_t crd = kCompressibleAlu[rng_.Below(std::size(kCompressibleAlu))];
    const uint32_t imm = static_cast<uint32_t>(rng_.Below(64));
    const uint32_t shamt = 1 + static_cast<uint32_t>(rng_.Below(63));
    const uint32_t cfield = (crd - 8) << 7;
    const uint32_t crs2 = static_cast<uint32_t>(rng_.Below(8));  // any of x8..x15 as a source
    switch (rng_.Below(10)) {
      case 0:
        as_.CAddi(crd, static_cast<int32_t>(rng_.Between(1, 31)));
        return;
      case 1:
        as_.CLi(rd, static_cast<int32_t>(rng_.Between(-32, 31)));
        return;
      case 2:
        as_.CMv(rd, AluReg());
        return;
      case 3:
        as_.CAdd(rd, AluReg());
        return;
      case 4:  // c.addiw
        as_.Emit16(static_cast<uint16_t>(0x2001 | (imm >> 5) << 12 | rd << 7 | (imm & 31) << 2));
        return;
      case 5:  // c.slli
        as_.Emit16(
            static_cast<uint16_t>(0x0002 | (shamt >> 5) << 12 | rd << 7 | (shamt & 31) << 2));
        return;
      case 6:  // c.srli / c.srai
        as_.Emit16(static_cast<uint16_t>((rng_.Chance(1, 2) ? 0x8001 : 0x8401) |
                                         (shamt >> 5) << 12 | cfield | (shamt & 31) << 2));
        return;
      case 7:  // c.andi
        as_.Emit16(static_cast<uint16_t>(0x8801 | (imm >> 5) << 12 | cfield | (imm & 31) << 2));
        return;
      case 8:  // c.sub / c.xor / c.or / c.and
        as_.Emit16(static_cast<uint16_t>(0x8c01 | cfield |
                                         static_cast<uint32_t>(rng_.Below(4)) << 5 | crs2 << 2));
        return;
      default:  // c.subw / c.addw
        as_.Emit16(static_cast<uint16_t>(0x9c01 | cfield |
                                         static_cast<uint32_t>(rng_.Below(2)) << 5 | crs2 << 2));
        return;
    }
  }
  const uint32_t r1 = SrcReg(), r2 = SrcReg();
  switch (rng_.Below(8)) {
    case 0: {  // op-imm
      const uint32_t f3 = static_cast<uint32_t>(rng_.Below(8));
      if (f3 == 1) {
        as_.I(0x13, rd, 1, r1, static_cast<int32_t>(rng_.Below(64)));
        return;
      }
      if (f3 == 5) {
        as_.I(0x13, rd, 5, r1,
              static_cast<int32_t>(rng_.Below(64) | (rng_.Chance(1, 2) ? 0x400 : 0)));
        return;
      }
      as_.I(0x13, rd, f3, r1, Imm12());
      return;
    }
    case 1:
    case 2: {  // op
      static constexpr uint32_t kF7[] = {0, 0, 0, 0x20};
      const uint32_t f3 = static_cast<uint32_t>(rng_.Below(8));
      const uint32_t f7 = (f3 == 0 || f3 == 5) ? kF7[rng_.Below(4)] : 0;
      as_.R(0x33, rd, f3, r1, r2, f7);
      return;
    }
    case 3:  // M
      as_.R(0x33, rd, static_cast<uint32_t>(rng_.Below(8)), r1, r2, 1);
      return;
    case 4: {  // op-32 / M-32
      static constexpr uint32_t kOps[][2] = {{0, 0}, {1, 0}, {5, 0}, {0, 0x20}, {5, 0x20},
                                             {0, 1}, {4, 1}, {5, 1}, {6, 1},    {7, 1}};
      const auto& op = kOps[rng_.Below(std::size(kOps))];
      as_.R(0x3b, rd, op[0], r1, r2, op[1]);
      return;
    }
    case 5:  // addiw / slliw / srliw / sraiw
      switch (rng_.Below(4)) {
        case 0:
          as_.I(0x1b, rd, 0, r1, Imm12());
          return;
        case 1:
          as_.I(0x1b, rd, 1, r1, static_cast<int32_t>(rng_.Below(32)));
          return;
        case 2:
          as_.I(0x1b, rd, 5, r1, static_cast<int32_t>(rng_.Below(32)));
          return;
        default:
          as_.I(0x1b, rd, 5, r1, static_cast<int32_t>(rng_.Below(32) | 0x400));
          return;
      }
    case 6:
      as_.U(rng_.Chance(1, 2) ? 0x37 : 0x17, rd, static_cast<uint32_t>(rng_.Below(1 << 20)));
      return;
    default:
      as_.R(0x33, rd, 0, r1, r2, 0);
      return;
  }
}

void Generator::EmitMemory() {
  const bool misaligned = rng_.Chance(1, 8);
  const uint32_t f3 = static_cast<uint32_t>(rng_.Below(7));
  const bool store = rng_.Chance(2, 5);
  const uint32_t width = store ? 1u << (f3 & 3) : 1u << (f3 & 3);
  int32_t off = static_cast<int32_t>(rng_.Below(kDataSize - 8)) & ~static_cast<int32_t>(width - 1);
  if (misaligned && width > 1) off += 1;
  off -= 2048;  // s11 points at the middle of the data area
  if (store) {
    as_.S(f3 & 3, s11, SrcReg(), off);
  } else {
    as_.I(0x03, AluReg(), f3, s11, off);
  }
}

void Generator::EmitAmo() {
  const bool dw = rng_.Chance(1, 2);
  const int32_t off = static_cast<int32_t>(rng_.Below(kDataSize / 8 - 1) * 8) +
                      (dw ? 0 : 4 * static_cast<int32_t>(rng_.Below(2)));
  as_.Addi(t1, s11, off - 2048);
  const uint32_t f3 = dw ? 3 : 2;
  if (rng_.Chance(1, 3)) {  // lr / alu / sc
    as_.R(0x2f, AluReg(), f3, t1, 0, 0x02 << 2);
    EmitAlu();
    as_.R(0x2f, AluReg(), f3, rng_.Chance(1, 4) ? s11 : t1, SrcReg(), 0x03 << 2);
    return;
  }
  static constexpr uint32_t kF5[] = {0x01, 0x00, 0x04, 0x0c, 0x08, 0x10, 0x14, 0x18, 0x1c};
  as_.R(0x2f, AluReg(), f3, t1, SrcReg(), kF5[rng_.Below(std::size(kF5))] << 2);
}

void Generator::EmitTrap() {
  switch (rng_.Below(5)) {
    case 0:
    case 1:
      as_.Ecall();
      return;
    case 2:
      as_.Ebreak();
      return;
    case 3:
      if (Compressed()) {
        as_.CEbreak();
      } else {
        as_.Ebreak();
      }
      return;
    default:
      as_.Emit32(0x0000000b);
      return;  // custom-0: illegal here and on QEMU
  }
}

void Generator::EmitCsr() {
  constexpr uint32_t kMscratch = 0x340;
  as_.Csr(static_cast<uint32_t>(rng_.Between(1, 3)), AluReg(), kMscratch, SrcReg());
}

const Function* Generator::PickCallee(int level, uint64_t budget, bool thunk) {
  std::vector<const Function*> ok;
  for (const Function& f : funcs_) {
    if (f.level > level && f.thunk == thunk && f.cost + 2 <= budget) ok.push_back(&f);
  }
  if (ok.empty()) return nullptr;
  return ok[rng_.Below(ok.size())];
}

// Emits up to `blocks` blocks whose dynamic cost stays within `budget`; returns the cost.
uint64_t Generator::EmitBlocks(uint32_t blocks, uint32_t loop_level, uint64_t budget, int level) {
  uint64_t cost = 0;
  const bool thunk = level < 0;
  for (uint32_t i = 0; i < blocks && cost + 8 < budget; ++i) {
    const uint64_t left = budget - cost;
    const uint64_t draw = rng_.Below(1000);
    if (draw < o_.trap_per_mille && !thunk) {
      EmitTrap();
      cost += kTrapCost;
      continue;
    }
    if (draw < o_.trap_per_mille + o_.indirect_per_mille && !thunk) {
      switch (rng_.Below(5)) {
        case 0: {  // indirect call
          const Function* f = PickCallee(level, left - 4, false);
          if (f == nullptr) break;
          as_.La(t2, f->label);
          if (Compressed()) {
            as_.CJalr(t2);
          } else {
            as_.Jalr(ra, t2, 0);
          }
          cost += 3 + f->cost;
          continue;
        }
        case 1: {  // data-dependent forward indirect jump
          const auto l1 = as_.NewLabel(), l2 = as_.NewLabel(), sel = as_.NewLabel(),
                     end = as_.NewLabel();
          as_.La(t1, l1);
          as_.I(0x13, t2, 7, AluReg(), 1 << rng_.Below(6));  // andi t2, rX, bit
          as_.Branch(0, t2, zero, sel);
          as_.La(t1, l2);
          as_.Bind(sel);
          if (Compressed()) {
            as_.CJr(t1);
          } else {
            as_.Jalr(zero, t1, 0);
          }
          as_.Bind(l1);
          EmitAlu();
          if (Compressed()) {
            as_.CJ(end);
          } else {
            as_.Jal(zero, end);
          }
          as_.Bind(l2);
          EmitAlu();
          as_.Bind(end);
          cost += 10;
          continue;
        }
        case 2: {  // co-routine swap shape: jalr ra, 0(t0) to the next instruction
          const auto next = as_.NewLabel();
          as_.La(t0, next);
          as_.Jalr(ra, t0, 0);
          as_.Bind(next);
          cost += 3;
          continue;
        }
        case 3: {  // other link registers: jal a-reg / jalr a-reg
          const auto next = as_.NewLabel();
          if (rng_.Chance(1, 2)) {
            as_.Jal(AluReg(), next);
          } else {
            as_.La(t2, next);
            as_.Jalr(AluReg(), t2, 0);
          }
          as_.Bind(next);
          cost += 3;
          continue;
        }
        default: {  // call of a t0-linked thunk
          const Function* f = PickCallee(level, left - 2, true);
          if (f == nullptr) break;
          as_.Jal(t0, f->label);
          cost += 1 + f->cost;
          continue;
        }
      }
    }
    const uint64_t kind = rng_.Below(100);
    if (kind < 8 && loop_level < o_.loop_depth && !thunk && left > 40) {
      const uint32_t counter = kLoopRegs[loop_level];
      const uint64_t n = static_cast<uint64_t>(rng_.Between(2, 6));
      as_.Li(counter, static_cast<int64_t>(n));
      const auto top = as_.NewLabel();
      as_.Bind(top);
      const uint64_t top_pc = as_.pc();
      const uint64_t body = EmitBlocks(static_cast<uint32_t>(rng_.Between(2, 10)), loop_level + 1,
                                       (left - 4) / n - 2, level);
      if (Compressed()) {
        as_.CAddi(counter, -1);
      } else {
        as_.Addi(counter, counter, -1);
      }
      if (as_.pc() - top_pc < 240 && Compressed()) {
        as_.CBnez(counter, top);
      } else if (as_.pc() - top_pc < 4000) {
        as_.Branch(1, counter, zero, top);
      } else {
        const auto out = as_.NewLabel();
        as_.Branch(0, counter, zero, out);
        as_.Jal(zero, top);
        as_.Bind(out);
      }
      cost += 1 + n * (body + 2);
      i += 3;
      continue;
    }
    if (kind < 16 && !thunk) {  // direct call
      const Function* f = PickCallee(level, left - 1, false);
      if (f != nullptr) {
        as_.Jal(ra, f->label);
        cost += 1 + f->cost;
        continue;
      }
    }
    if (kind < 28) {  // forward conditional branch over 1..3 ALU instructions
      const auto skip = as_.NewLabel();
      const uint32_t r = AluReg();
      if (Compressed() && r >= 8 && r < 16) {
        if (rng_.Chance(1, 2)) {
          as_.CBeqz(r, skip);
        } else {
          as_.CBnez(r, skip);
        }
      } else {
        static constexpr uint32_t kF3[] = {0, 1, 4, 5, 6, 7};
        as_.Branch(kF3[rng_.Below(6)], r, SrcReg(), skip);
      }
      const uint64_t k = static_cast<uint64_t>(rng_.Between(1, 3));
      for (uint64_t j = 0; j < k; ++j) EmitAlu();
      as_.Bind(skip);
      cost += 1 + k;
      continue;
    }
    if (kind < 40 && !thunk) {
      EmitMemory();
      cost += 1;
      continue;
    }
    if (kind < 44 && !thunk) {
      EmitAmo();
      cost += 4;
      continue;
    }
    if (kind < 46 && !thunk) {
      EmitCsr();
      cost += 1;
      continue;
    }
    EmitAlu();
    cost += 1;
  }
  return cost;
}

uint64_t Generator::EmitFunctionBody(Function& f, uint32_t blocks) {
  as_.Bind(f.label);
  const uint64_t start = as_.pc();
  uint64_t cost = 0;
  if (f.thunk) {
    cost = EmitBlocks(blocks, o_.loop_depth, o_.max_dynamic / 8, -1);
    as_.Jalr(zero, t0, 0);  // return through x5
    symbols_.push_back(Symbol{f.name, start, as_.pc() - start, true});
    return cost + 1;
  }
  as_.Addi(sp, sp, -32);
  as_.S(3, sp, ra, 0);
  as_.S(3, sp, s0, 8);
  as_.S(3, sp, s1, 16);
  as_.S(3, sp, a5, 24);
  cost = EmitBlocks(blocks, 0, o_.max_dynamic - 20, f.level);
  as_.I(0x03, ra, 3, sp, 0);
  as_.I(0x03, s0, 3, sp, 8);
  as_.I(0x03, s1, 3, sp, 16);
  as_.I(0x03, a5, 3, sp, 24);
  as_.Addi(sp, sp, 32);
  if (Compressed()) {
    as_.CJr(ra);
  } else {
    as_.Jalr(zero, ra, 0);
  }
  symbols_.push_back(Symbol{f.name, start, as_.pc() - start, true});
  return cost + 11;
}

void Generator::EmitStart(const Function& f0) {
  as_.La(t0, handler_);
  as_.Csr(1, zero, 0x305, t0);  // mtvec
  as_.Li(sp, static_cast<int64_t>(kStackTop));
  as_.Li(s11, static_cast<int64_t>(kDataBase + 2048));
  for (uint32_t r : kAluRegs) as_.Li(r, static_cast<int64_t>(rng_.Next() >> rng_.Below(64)));
  for (uint32_t r : {s0, s1, a5, t0, t1, t2}) as_.Li(r, 0);
  as_.Li(t1, 8);
  as_.Csr(1, zero, 0x304, t1);  // mie.MSIE
  as_.Csr(6, zero, 0x300, 8);   // csrsi mstatus, MIE
  as_.Jal(ra, f0.label);
  as_.Li(t0, 0x100000);
  as_.Li(t1, 0x5555);
  as_.S(2, t0, t1, 0);
  const auto hang = as_.NewLabel();
  as_.Bind(hang);
  as_.Jal(zero, hang);
}

void Generator::EmitHandler() {
  while (as_.pc() % 4 != 0) as_.CNop();
  as_.Bind(handler_);
  const uint64_t start = as_.pc();
  const auto irq = as_.NewLabel(), four = as_.NewLabel();
  as_.Csr(2, t3, 0x342, zero);   // csrr t3, mcause
  as_.Branch(4, t3, zero, irq);  // blt t3, zero
  as_.Csr(2, t4, 0x341, zero);   // csrr t4, mepc
  as_.I(0x03, t5, 5, t4, 0);     // lhu t5, 0(t4)
  as_.I(0x13, t5, 7, t5, 3);
  as_.Addi(t4, t4, 2);
  as_.Li(t6, 3);
  as_.Branch(1, t5, t6, four);
  as_.Addi(t4, t4, 2);
  as_.Bind(four);
  as_.Csr(1, zero, 0x341, t4);  // csrw mepc, t4
  as_.Mret();
  as_.Bind(irq);
  as_.Li(t4, 0x02000000);
  as_.S(2, t4, zero, 0);  // clear CLINT msip
  as_.Mret();
  symbols_.push_back(Symbol{"trap_handler", start, as_.pc() - start, true});
}

GeneratedProgram Generator::Run() {
  const int levels = static_cast<int>(std::min<uint32_t>(o_.call_depth, 8));
  o_.loop_depth = std::min<uint32_t>(o_.loop_depth, 3);
  // Functions: f0 at level 0, one to three per deeper level, plus a few thunks (level 99 so
  // everyone may call them).
  funcs_.push_back(Function{as_.NewLabel(), 0, 0, false, "f0"});
  for (int l = 1; l <= levels; ++l) {
    const int n = static_cast<int>(rng_.Between(1, 3));
    for (int k = 0; k < n; ++k) {
      funcs_.push_back(Function{as_.NewLabel(), l, 0, false, Name("f", funcs_.size())});
    }
  }
  for (size_t k = 0; k < 2; ++k) {
    funcs_.push_back(Function{as_.NewLabel(), 99, 0, true, Name("thunk", k)});
  }
  handler_ = as_.NewLabel();
  const uint64_t start_pc = as_.pc();
  EmitStart(funcs_[0]);
  symbols_.push_back(Symbol{"_start", start_pc, as_.pc() - start_pc, true});
  EmitHandler();
  // Deepest level first, so every callee (always of a deeper level) is emitted and its cost
  // known when its callers are generated.
  std::vector<size_t> order(funcs_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return funcs_[x].level > funcs_[y].level; });
  const uint32_t per_func = std::max<uint32_t>(8, o_.size / static_cast<uint32_t>(funcs_.size()));
  for (size_t idx : order) {
    Function& f = funcs_[idx];
    // The entry function gets a larger share: it is the only one that surely runs.
    const uint32_t blocks = f.thunk        ? static_cast<uint32_t>(rng_.Between(2, 8))
                            : f.level == 0 ? std::max(per_func, o_.size / 3)
                                           : per_func;
    f.cost = EmitFunctionBody(f, blocks);
  }
  GeneratedProgram p;
  p.entry = kCodeBase;
  p.estimated_dynamic = funcs_[0].cost + 60;
  Segment code;
  code.vaddr = kCodeBase;
  code.bytes = as_.Finish();
  code.memsz = code.bytes.size();
  code.executable = true;
  Segment data;
  data.vaddr = kDataBase;
  data.memsz = kDataSize;
  data.bytes.resize(kDataSize);
  for (uint8_t& b : data.bytes) b = static_cast<uint8_t>(rng_.Next());
  p.segments = {std::move(code), std::move(data)};
  std::sort(symbols_.begin(), symbols_.end(),
            [](const Symbol& x, const Symbol& y) { return x.addr < y.addr; });
  p.symbols = symbols_;
  return p;
}

}  // namespace

GeneratedProgram GenerateProgram(uint64_t seed, const ProgramGenOptions& options) {
  Generator g(seed, options);
  return g.Run();
}

}  // namespace ctte::oracle
