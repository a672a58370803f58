// spin: a counted tight loop whose one branch is taken every iteration (~400k insns): every
// HTM history register fills with the same bits and every BTM DirectBranch carries the same
// I-CNT. The designated workload of repeated history and RepeatBranch
// (docs/encoder-behaviour.md sections 11.3, 11.4).
#include "common.h"

int main(void) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < 100000; ++i) {
    acc = acc * 31 + i;
    __asm__ volatile("" : "+r"(acc));  // keeps the loop as written
  }
  ctte_print_checksum("spin", acc);
  return 0;
}
