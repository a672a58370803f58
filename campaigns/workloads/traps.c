// traps: ecall-heavy; every ecall is served by the trap handler in common.c (~250k insns).
#include "common.h"

int main(void) {
  uint64_t acc = 0;
  for (uint64_t i = 0; i < 3000; ++i) {
    acc ^= ctte_ecall(1, acc + i);
    if ((i & 3) == 0) acc += ctte_ecall(2, i);
  }
  ctte_print_checksum("traps", acc);
  return 0;
}
