// loop: a tight xorshift kernel with one data-dependent branch per iteration (~300k insns).
#include "common.h"

int main(void) {
  uint64_t x = 0x123456789abcdefULL, acc = 0;
  for (uint32_t i = 0; i < 30000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    acc += x & 0xff;
    if (x & 1) acc ^= i;
  }
  ctte_print_checksum("loop", acc);
  return 0;
}
