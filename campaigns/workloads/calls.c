// calls: recursion (fib) and a call chain 48 frames deep, so return-address stacks of 32
// entries overflow (~400k insns).
#include "common.h"

CTTE_NOINLINE static uint64_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

CTTE_NOINLINE static uint64_t chain(uint32_t depth, uint64_t v) {
  if (depth == 0) return v ^ 0x5a5a;
  uint64_t r = chain(depth - 1, v * 3 + depth);
  return r + (r >> 3) + depth;
}

CTTE_NOINLINE static uint64_t leaf_a(uint64_t v) { return v * 7 + 1; }
CTTE_NOINLINE static uint64_t leaf_b(uint64_t v) { return leaf_a(v) ^ (v >> 2); }
CTTE_NOINLINE static uint64_t leaf_c(uint64_t v) { return leaf_b(v) + leaf_a(v + 1); }

int main(void) {
  uint64_t acc = fib(17);
  for (uint32_t i = 0; i < 400; ++i) acc += chain(48, acc + i);
  for (uint32_t i = 0; i < 3000; ++i) acc ^= leaf_c(acc + i);
  ctte_print_checksum("calls", acc);
  return 0;
}
