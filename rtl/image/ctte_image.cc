// The image wrapper: implements the C ABI of rtl/ctte_image_abi.h over the Verilated model.
// This is the only file that includes verilated.h. Each model owns its VerilatedContext (no
// globals besides the thread-local "model being evaluated" that routes $stop/$fatal/$finish,
// which this image overrides through VL_USER_STOP/FATAL/FINISH so that an RTL assertion marks
// the model failed instead of aborting the process).
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vctte_encoder.h"
#include "rtl/ctte_image_abi.h"

#ifndef CTTE_IMAGE_NAME
#error "CTTE_IMAGE_NAME must be defined by rtl/CMakeLists.txt"
#endif

struct ctte_model {
  std::unique_ptr<VerilatedContext> context;
  std::unique_ptr<Vctte_encoder> top;
  std::unique_ptr<VerilatedFstC> fst;
  uint64_t time = 0;
  bool failed = false;
  std::string failure;
  std::string last_print;  // last line the RTL printed (an assertion's $error text)
};

namespace {

thread_local ctte_model* g_evaluating = nullptr;

void RecordFailure(const char* what, const char* filename, int linenum, const char* msg) {
  ctte_model* m = g_evaluating;
  if ((msg == nullptr || msg[0] == '\0') && m != nullptr) msg = m->last_print.c_str();
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s at %s:%d%s%s", what, filename ? filename : "?", linenum,
                msg && msg[0] ? ": " : "", msg ? msg : "");
  if (m == nullptr) {
    std::fprintf(stderr, "ctte image: %s (outside eval)\n", buf);
    return;
  }
  if (!m->failed) {  // keep the first failure: later ones are usually consequences
    m->failed = true;
    m->failure = buf;
  }
  m->context->gotFinish(true);
}

// Verilator's runtime reaches the model's context through a thread-local pointer; every entry
// point that runs model code points it at this model's context first, and a destroyed context
// is never left behind in it.
void Enter(ctte_model* m) { Verilated::threadContextp(m->context.get()); }

ctte_model* Create(uint64_t seed) {
  auto m = std::make_unique<ctte_model>();
  m->context = std::make_unique<VerilatedContext>();
  m->context->fatalOnError(false);
  m->context->randReset(2);
  // Verilator treats seed 0 as "pick one at random": map every seed to 1..2^31-1.
  m->context->randSeed(static_cast<int>(seed % 0x7ffffffeu) + 1);
  m->context->traceEverOn(true);
  m->context->assertOn(true);
  Enter(m.get());
  m->top = std::make_unique<Vctte_encoder>(m->context.get(), "ctte");
  m->top->rst_n = 0;
  return m.release();
}

void Destroy(ctte_model* m) {
  if (m == nullptr) return;
  Enter(m);
  if (m->fst) m->fst->close();
  m->fst.reset();
  g_evaluating = m;
  m->top->final();
  m->top.reset();
  g_evaluating = nullptr;
  Verilated::threadContextp(nullptr);
  delete m;
}

void SetResetN(ctte_model* m, int rst_n) { m->top->rst_n = rst_n ? 1 : 0; }

void SetIngress(ctte_model* m, const ctte_ingress* beat) {
  Vctte_encoder& t = *m->top;
  t.in_valid = beat->valid ? 1 : 0;
  t.in_itype = beat->itype & 0xfu;
  t.in_iaddr = beat->iaddr;
  t.in_iretire = beat->iretire;
  t.in_ilastsize = beat->ilastsize & 1u;
  t.in_priv = beat->priv;
  t.in_context = beat->context;
  t.in_cause = beat->cause;
  t.in_tval = beat->tval;
  t.in_insn = beat->insn;
}

void SetSinkReady(ctte_model* m, int ready) { m->top->sink_ready = ready ? 1 : 0; }

void SetRegBus(ctte_model* m, int we, uint32_t addr, uint32_t wdata) {
  m->top->reg_we = we ? 1 : 0;
  m->top->reg_addr = addr;
  m->top->reg_wdata = wdata;
}

// One eval at the given clock levels; the caller has set g_evaluating and the context.
inline void EvalIn(ctte_model* m, int fabric_clk, int sink_clk) {
  m->top->clk_fabric = fabric_clk ? 1 : 0;
  m->top->clk_sink = sink_clk ? 1 : 0;
  m->top->eval();
  m->context->time(++m->time);
  if (m->fst) m->fst->dump(m->time);
}

void Eval(ctte_model* m, int fabric_clk, int sink_clk) {
  g_evaluating = m;
  Enter(m);
  EvalIn(m, fabric_clk, sink_clk);
  g_evaluating = nullptr;
}

// The clock steps of lab/sim/model_driver.cc (ModelDriver::Step), n fabric cycles per call.
uint64_t RunFabricCycles(ctte_model* m, ctte_clock* c, const ctte_cycle_in* cycles, uint64_t n) {
  Vctte_encoder& t = *m->top;
  const uint64_t per_cycle = c->fabric_half / c->sink_half + 1;  // sink rises per fabric cycle
  g_evaluating = m;
  Enter(m);
  uint64_t done = 0;
  for (; done < n && !m->failed; ++done) {
    if (c->ready_len - c->ready_pos < per_cycle || c->capture_cap - c->capture_len < per_cycle) {
      break;
    }
    const ctte_cycle_in& in = cycles[done];
    SetIngress(m, &in.beat);
    SetRegBus(m, in.reg_we, in.reg_addr, in.reg_wdata);
    bool fabric_rose = false;
    do {
      c->now = c->next_fab < c->next_sink ? c->next_fab : c->next_sink;
      fabric_rose = false;
      bool sink_rose = false;
      if (c->next_fab == c->now) {
        c->fab_level ^= 1;
        fabric_rose = c->fab_level == 1;
        c->next_fab += c->fabric_half;
      }
      if (c->next_sink == c->now) {
        c->sink_level ^= 1;
        sink_rose = c->sink_level == 1;
        c->next_sink += c->sink_half;
        const bool offered = t.sink_valid != 0;
        if (sink_rose && c->ready && offered) c->capture[c->capture_len++] = t.sink_data;
        if (sink_rose && c->measure_stall) {
          if (c->ready && !offered && !(t.reg_rdata & c->empty_mask)) {
            if (++c->ready_stall > c->max_ready_stall) c->max_ready_stall = c->ready_stall;
          } else {
            c->ready_stall = 0;
          }
        }
      }
      EvalIn(m, c->fab_level, c->sink_level);
      ++c->evals;
      if (fabric_rose) ++c->fabric_cycles;
      if (sink_rose) {
        ++c->sink_cycles;
        c->ready = c->ready_in[c->ready_pos++] ? 1 : 0;
        t.sink_ready = c->ready ? 1 : 0;
      }
      if (m->failed) break;
    } while (!fabric_rose);
    if (m->failed) break;  // this cycle did not complete
  }
  g_evaluating = nullptr;
  return done;
}

int SinkValid(ctte_model* m) { return m->top->sink_valid; }
uint8_t SinkData(ctte_model* m) { return m->top->sink_data; }
uint32_t RegRdata(ctte_model* m) { return m->top->reg_rdata; }
int Failed(ctte_model* m) { return m->failed ? 1 : 0; }
const char* FailureMessage(ctte_model* m) { return m->failed ? m->failure.c_str() : ""; }

int TraceOpen(ctte_model* m, const char* fst_path) {
  Enter(m);
  if (m->fst) m->fst->close();
  m->fst = std::make_unique<VerilatedFstC>();
  m->top->trace(m->fst.get(), 99);
  m->fst->open(fst_path);
  if (!m->fst->isOpen()) {
    m->fst.reset();
    return -1;
  }
  m->fst->dump(m->time);
  return 0;
}

void TraceClose(ctte_model* m) {
  if (m->fst) {
    m->fst->close();
    m->fst.reset();
  }
}

const ctte_image_table kTable = {
    CTTE_IMAGE_ABI_VERSION,
    CTTE_IMAGE_NAME,
    &Create,
    &Destroy,
    &SetResetN,
    &SetIngress,
    &SetSinkReady,
    &SetRegBus,
    &Eval,
    &SinkValid,
    &SinkData,
    &RegRdata,
    &Failed,
    &FailureMessage,
    &TraceOpen,
    &TraceClose,
    &RunFabricCycles,
};

}  // namespace

// Verilator runtime output (VL_PRINTF=ctte_vl_printf): stderr, and remembered for the failure.
void ctte_vl_printf(const char* format, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  std::fputs(buf, stderr);
  if (g_evaluating != nullptr) {
    size_t n = std::strlen(buf);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) --n;
    if (n > 0) g_evaluating->last_print.assign(buf, n);
  }
}

// Verilator runtime hooks (VL_USER_STOP, VL_USER_FATAL, VL_USER_FINISH).
void vl_stop(const char* filename, int linenum, const char* /*hier*/) {
  RecordFailure("RTL $stop/$error", filename, linenum, "");
}

void vl_fatal(const char* filename, int linenum, const char* /*hier*/, const char* msg) {
  RecordFailure("RTL $fatal", filename, linenum, msg);
}

void vl_finish(const char* filename, int linenum, const char* /*hier*/) {
  RecordFailure("RTL $finish", filename, linenum, "");
}

extern "C" __attribute__((visibility("default"))) const ctte_image_table* ctte_image_get(void) {
  return &kTable;
}
