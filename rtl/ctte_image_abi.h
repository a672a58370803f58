/* The C ABI of a CTTE encoder image: a shared library (build/images/<name>.so) built by
 * Verilator from rtl/, loaded with dlopen() by the simulated board (lab/sim/).
 *
 * An image exports exactly one symbol, `ctte_image_get`, returning a table of functions. The
 * board never includes verilated.h: everything it does to the model goes through this table.
 *
 * Threading: a model is used from one thread at a time. Several models may live in one
 * process (one VerilatedContext each), but the lab runs one board per process anyway.
 *
 * Clocking: the harness sets input ports, then calls eval() with the level of each clock. A
 * rising edge is a call whose level is 1 after a call whose level was 0. Coincident edges of the
 * two clocks share one eval(). Register accesses are synchronous to the fabric clock: set the
 * bus, give one fabric rising edge, clear `we`.
 *
 * Version: bump CTTE_IMAGE_ABI_VERSION on any change to this file; the board refuses an image
 * whose table reports another version.
 */
#ifndef CTTE_IMAGE_ABI_H_
#define CTTE_IMAGE_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CTTE_IMAGE_ABI_VERSION 3u

typedef struct ctte_model ctte_model;

/* One beat of the instruction-trace ingress (core/fabric clock domain). See oracle/retired.h. */
typedef struct ctte_ingress {
  uint8_t valid;     /* 1: a beat this cycle */
  uint8_t itype;     /* 4-bit itype */
  uint8_t iretire;   /* half-words retired by this beat (0 on a trap beat) */
  uint8_t ilastsize; /* 0: last instruction 16-bit, 1: 32-bit */
  uint8_t priv;
  uint64_t iaddr;
  uint64_t context;
  uint64_t cause;
  uint64_t tval;
  uint32_t insn;     /* raw instruction bits, a 16-bit one zero-extended (ABI 3; sequential jump,
                        docs/encoder-behaviour.md section 11.7); 0 on an interrupt beat */
} ctte_ingress;

/* The inputs of one fabric cycle of a batch (run_fabric_cycles): the ingress beat (valid=0:
 * idle) and the register bus, both held for the whole cycle. */
typedef struct ctte_cycle_in {
  ctte_ingress beat;
  uint8_t reg_we;
  uint32_t reg_addr;
  uint32_t reg_wdata;
} ctte_cycle_in;

/* The harness's clock and sink state (lab/sim/model_driver.h), advanced by run_fabric_cycles
 * exactly as the harness's own single steps advance it. Time is in units of half a VCO period;
 * each clock toggles every *_half units, the next toggle of either clock is one eval().
 * At each sink rising edge the byte offered after the previous eval (sink_valid/sink_data) is
 * taken when `ready` is 1 and appended to capture[capture_len++]; with measure_stall, a ready
 * sink cycle with nothing offered while (reg_rdata & empty_mask) == 0 extends ready_stall. After
 * that edge's eval, ready for the next sink cycle is ready_in[ready_pos++]. */
typedef struct ctte_clock {
  uint64_t fabric_half, sink_half;
  uint64_t now, next_fab, next_sink;
  int32_t fab_level, sink_level;
  int32_t ready;
  int32_t measure_stall;
  uint32_t empty_mask;
  const uint8_t* ready_in; /* ready decisions (0/1) for the coming sink cycles */
  uint64_t ready_len, ready_pos;
  uint8_t* capture;        /* bytes taken by the sink */
  uint64_t capture_cap, capture_len;
  uint64_t ready_stall, max_ready_stall;
  uint64_t fabric_cycles, sink_cycles, evals;
} ctte_clock;

typedef struct ctte_image_table {
  uint32_t abi_version; /* CTTE_IMAGE_ABI_VERSION */
  const char* name;     /* profile name, e.g. "ntrace-slim" */

  /* Creates a model held in reset. `seed` seeds Verilator's randomized X initialization. */
  ctte_model* (*create)(uint64_t seed);
  void (*destroy)(ctte_model* m);

  /* Inputs, applied at the next eval(). rst_n is active low (both domains). */
  void (*set_reset_n)(ctte_model* m, int rst_n);
  void (*set_ingress)(ctte_model* m, const ctte_ingress* beat);
  void (*set_sink_ready)(ctte_model* m, int ready);
  void (*set_reg_bus)(ctte_model* m, int we, uint32_t addr, uint32_t wdata);

  /* Evaluates the model with the given clock levels (0/1). */
  void (*eval)(ctte_model* m, int fabric_clk, int sink_clk);

  /* Outputs after the last eval(). */
  int (*sink_valid)(ctte_model* m); /* a byte is offered on the trace port */
  uint8_t (*sink_data)(ctte_model* m); /* {MDO[5:0], MSEO[1:0]} */
  uint32_t (*reg_rdata)(ctte_model* m); /* combinational read of the bus address */

  /* Set when an RTL assertion fired or $finish/$stop ran; the message says which. */
  int (*failed)(ctte_model* m);
  const char* (*failure_message)(ctte_model* m);

  /* FST waveform dumping. open returns 0 on success; time advances one unit per eval(). */
  int (*trace_open)(ctte_model* m, const char* fst_path);
  void (*trace_close)(ctte_model* m);

  /* Batched clocking (since ABI 2; ABI 3 added ctte_ingress.insn): for each of the n cycles, applies cycles[i], then evaluates clock
   * toggles (as ctte_clock describes) until a fabric rising edge has been evaluated. Returns how
   * many cycles completed: fewer than n when the model failed (failed()), or when, before a
   * cycle, fewer than sink_half-bounded ready decisions or capture bytes are left (a fabric
   * cycle holds at most fabric_half / sink_half + 1 sink rising edges): refill and call again. */
  uint64_t (*run_fabric_cycles)(ctte_model* m, ctte_clock* clock, const ctte_cycle_in* cycles,
                                uint64_t n);
} ctte_image_table;

/* The one exported symbol. */
const ctte_image_table* ctte_image_get(void);

#ifdef __cplusplus
}
#endif

#endif /* CTTE_IMAGE_ABI_H_ */
