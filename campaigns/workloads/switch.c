// switch: an interpreter-style dense switch that GCC compiles to a jump table (~300k insns).
#include "common.h"

CTTE_NOINLINE static uint64_t step(uint32_t op, uint64_t acc, uint64_t arg) {
  switch (op) {
    case 0: return acc + arg;
    case 1: return acc - arg;
    case 2: return acc ^ arg;
    case 3: return acc * (arg | 1);
    case 4: return acc << (arg & 7);
    case 5: return acc >> (arg & 7);
    case 6: return acc | arg;
    case 7: return acc & ~arg;
    case 8: return acc + (arg << 3);
    case 9: return ~acc;
    case 10: return acc + 0x1234;
    case 11: return acc ^ 0xff00ff;
    case 12: return acc * 5;
    case 13: return acc - (arg >> 1);
    case 14: return (acc << 1) | (acc >> 63);
    default: return acc + 1;
  }
}

int main(void) {
  uint64_t acc = 7, x = 0x2545F4914F6CDD1DULL;
  for (uint32_t i = 0; i < 20000; ++i) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    acc = step((uint32_t)(x >> 60), acc, x);
  }
  ctte_print_checksum("switch", acc);
  return 0;
}
