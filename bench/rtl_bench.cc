// Simulated fabric cycles per second of an encoder image alone (no ISS, no board): the model
// is dlopen()ed from build/images/ and clocked from C++, fabric and sink clocks coincident (one
// eval() per edge) or the sink at a different period. Reported as items/s = fabric cycles/s.
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include <benchmark/benchmark.h>

#include "rtl/ctte_image_abi.h"

namespace {

const ctte_image_table* LoadTable(const char* name) {
  const std::string path = std::string(CTTE_BINARY_DIR) + "/images/" + name + ".so";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open for the process
  if (handle == nullptr) return nullptr;
  auto get = reinterpret_cast<const ctte_image_table* (*)()>(dlsym(handle, "ctte_image_get"));
  return get != nullptr ? get() : nullptr;
}

struct Bus {
  const ctte_image_table* t;
  ctte_model* m;
  void Cycle() {
    t->eval(m, 0, 0);
    t->eval(m, 1, 1);
  }
  void Write(uint32_t addr, uint32_t v) {
    t->set_reg_bus(m, 1, addr, v);
    Cycle();
    t->set_reg_bus(m, 0, addr, 0);
  }
};

// beats_per_16: how many of every 16 fabric cycles carry a beat (0 = idle, tracing off).
void BM_FabricCycles(benchmark::State& state, const char* image, int beats_per_16,
                     uint32_t mode) {
  const ctte_image_table* t = LoadTable(image);
  if (t == nullptr) {
    state.SkipWithError("image not built");
    return;
  }
  ctte_model* m = t->create(1);
  Bus bus{t, m};
  ctte_ingress beat{};
  t->set_ingress(m, &beat);
  t->set_sink_ready(m, 1);
  t->set_reset_n(m, 0);
  for (int i = 0; i < 4; ++i) bus.Cycle();
  t->set_reset_n(m, 1);
  if (beats_per_16 > 0) bus.Write(0x000, 1u | 2u | 4u | (mode << 4));
  uint64_t cycles = 0;
  uint64_t pc = 0x80000000;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) {
      const bool valid = static_cast<int>(cycles & 15) < beats_per_16;
      beat.valid = valid ? 1 : 0;
      if (valid) {
        const uint64_t k = cycles % 97;
        beat.itype = k == 13 ? 10 : (k % 7 == 3 ? 5 : 0);
        beat.iaddr = pc;
        beat.iretire = 2;
        pc = k == 13 ? 0x80000000 + ((cycles * 0x9e3779b1) & 0xfffc) : pc + 4;
      }
      t->set_ingress(m, &beat);
      bus.Cycle();
      ++cycles;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(cycles));
  state.counters["failed"] = t->failed(m);
  t->destroy(m);
}

BENCHMARK_CAPTURE(BM_FabricCycles, slim_idle, "ntrace-slim", 0, 6u);
BENCHMARK_CAPTURE(BM_FabricCycles, slim_htm_ipc_0_5, "ntrace-slim", 8, 6u);
BENCHMARK_CAPTURE(BM_FabricCycles, slim_btm_ipc_0_5, "ntrace-slim", 8, 3u);
BENCHMARK_CAPTURE(BM_FabricCycles, slim_htm_ipc_1, "ntrace-slim", 16, 6u);
BENCHMARK_CAPTURE(BM_FabricCycles, shallow_htm_ipc_1, "ntrace-shallow", 16, 6u);

}  // namespace

BENCHMARK_MAIN();
