// A test-only encoder image implementing rtl/ctte_image_abi.h without Verilator: identity
// registers, an always-empty trace port, and failure behaviour chosen by the create() seed, so
// the board's handling of RTL assertions can be tested without a broken RTL.
//   seed 0xA55E27 : failed() becomes set after 50 evals ("RTL assertion" path)
//   seed 0xAB0127 : prints a Verilator-style $fatal line to stderr and aborts the process
// Built twice: with FAKE_IMAGE_ABI = CTTE_IMAGE_ABI_VERSION and with a wrong version.
#include <cstdio>
#include <cstdlib>

#include "regmap/registers.h"
#include "rtl/ctte_image_abi.h"

#ifndef FAKE_IMAGE_ABI
#define FAKE_IMAGE_ABI CTTE_IMAGE_ABI_VERSION
#endif

struct ctte_model {
  unsigned long long seed = 0;
  unsigned long long evals = 0;
  bool failed = false;
  unsigned addr = 0;
  unsigned control = 0;
  int we = 0;
  int last_fabric = 0;
};

namespace {
constexpr unsigned long long kBuildId = 0xfeedc0de12345678ull;

ctte_model* Create(uint64_t seed) {
  auto* m = new ctte_model;
  m->seed = seed;
  return m;
}
void Destroy(ctte_model* m) { delete m; }
void SetResetN(ctte_model*, int) {}
void SetIngress(ctte_model*, const ctte_ingress*) {}
void SetSinkReady(ctte_model*, int) {}
void SetRegBus(ctte_model* m, int we, uint32_t addr, uint32_t wdata) {
  m->we = we;
  m->addr = addr;
  if (we) m->control = wdata;
}
void Eval(ctte_model* m, int fabric, int) {
  ++m->evals;
  m->last_fabric = fabric;
  if (m->seed == 0xA55E27 && m->evals > 50) m->failed = true;
  if (m->seed == 0xAB0127 && m->evals > 50) {
    std::fprintf(stderr, "%%Error: fake.sv:12: Assertion failed in TOP.enc: recovery sync "
                         "I-CNT != 0\n");
    std::fflush(stderr);
    std::abort();
  }
}
int SinkValid(ctte_model*) { return 0; }
uint8_t SinkData(ctte_model*) { return 0; }
uint32_t RegRdata(ctte_model* m) {
  switch (m->addr) {
    case ctte::reg::kTeControl:
      return m->control | ctte::reg::kEmpty;  // always empty
    case ctte::reg::kBuildIdLo:
      return static_cast<uint32_t>(kBuildId);
    case ctte::reg::kBuildIdHi:
      return static_cast<uint32_t>(kBuildId >> 32);
    case ctte::reg::kProfile:
      return (64u << ctte::reg::kProfileXlenLsb) | 9u;  // XLEN 64, id 9
    default: return 0;
  }
}
int Failed(ctte_model* m) { return m->failed ? 1 : 0; }
const char* FailureMessage(ctte_model* m) {
  return m->failed ? "fake.sv:7: recovery sync carries I-CNT 5" : "";
}
int TraceOpen(ctte_model*, const char*) { return -1; }
void TraceClose(ctte_model*) {}

// The clock steps of the ABI (the fake never offers a byte, so the sink only counts cycles).
uint64_t RunFabricCycles(ctte_model* m, ctte_clock* c, const ctte_cycle_in* cycles, uint64_t n) {
  const uint64_t per_cycle = c->fabric_half / c->sink_half + 1;
  uint64_t done = 0;
  for (; done < n && !m->failed; ++done) {
    if (c->ready_len - c->ready_pos < per_cycle) break;
    SetRegBus(m, cycles[done].reg_we, cycles[done].reg_addr, cycles[done].reg_wdata);
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
      }
      Eval(m, c->fab_level, c->sink_level);
      ++c->evals;
      if (fabric_rose) ++c->fabric_cycles;
      if (sink_rose) {
        ++c->sink_cycles;
        c->ready = c->ready_in[c->ready_pos++];
      }
      if (m->failed) return done;
    } while (!fabric_rose);
  }
  return done;
}

const ctte_image_table kTable = {
    FAKE_IMAGE_ABI, "fake", Create, Destroy, SetResetN, SetIngress, SetSinkReady, SetRegBus,
    Eval, SinkValid, SinkData, RegRdata, Failed, FailureMessage, TraceOpen, TraceClose,
    RunFabricCycles};
}  // namespace

extern "C" __attribute__((visibility("default"))) const ctte_image_table* ctte_image_get(void) {
  return &kTable;
}
