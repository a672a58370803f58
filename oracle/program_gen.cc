// Random RV64IMAC / RV32IMAC program generator (see program_gen.h for the termination argument,
// oracle/program_gen_impl.h for layout and register roles): the control-flow skeleton (blocks,
// loops, calls, indirect jumps), the function frames, _start and the trap handler. The
// straight-line instructions are in oracle/program_gen_insns.cc.
#include "oracle/program_gen.h"

#include <algorithm>

#include "base/check.h"
#include "oracle/program_gen_impl.h"

namespace ctte::oracle {
namespace program_gen_internal {
namespace {

std::string Name(const char* prefix, size_t n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}

}  // namespace

using namespace reg;  // NOLINT(google-build-using-namespace): register names

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
  const uint32_t word = rv32_ ? 2 : 3;  // sw/lw or sd/ld (the frame keeps 8-byte slots)
  as_.Addi(sp, sp, -32);
  as_.S(word, sp, ra, 0);
  as_.S(word, sp, s0, 8);
  as_.S(word, sp, s1, 16);
  as_.S(word, sp, a5, 24);
  cost = EmitBlocks(blocks, 0, o_.max_dynamic - 20, f.level);
  as_.I(0x03, ra, word, sp, 0);
  as_.I(0x03, s0, word, sp, 8);
  as_.I(0x03, s1, word, sp, 16);
  as_.I(0x03, a5, word, sp, 24);
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
  p.xlen = o_.xlen;
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

}  // namespace program_gen_internal

GeneratedProgram GenerateProgram(uint64_t seed, const ProgramGenOptions& options) {
  program_gen_internal::Generator g(seed, options);
  return g.Run();
}

}  // namespace ctte::oracle
