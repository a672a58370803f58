// An HTIF program (docs/platform.md, "HTIF"): computes a checksum, prints one line through the
// syscall proxy's write (SYS_write = 64 through a magic_mem buffer, as Spike's front end serves
// it) and exits with code 3 through tohost. Runs on the CTTE platform, on Spike and (PC for PC)
// on QEMU's spike machine. Built with campaigns/examples/lab.ld (campaigns/CMakeLists.txt).
//
// With -DHTIF_WAIT_FROMHOST each request waits for the host's answer in fromhost, as riscv-tests
// do; QEMU 7.2 does not serve the syscall proxy (it never answers), so the variant compared with
// QEMU does not wait.
#include <stdint.h>

volatile uint64_t tohost __attribute__((section(".tohost"), aligned(64)));
volatile uint64_t fromhost __attribute__((section(".tohost"), aligned(64)));

__asm__(
    "  .section .text.init, \"ax\", @progbits\n"
    "  .globl _start\n"
    "_start:\n"
    "  .option push\n"
    "  .option norelax\n"
    "  la gp, __global_pointer$\n"
    "  .option pop\n"
    "  la sp, __stack_top\n"
    "  call main\n"
    "1:\n"
    "  j 1b\n"
    "  .text\n");

static volatile uint64_t magic_mem[8] __attribute__((aligned(64)));

static uint64_t htif_syscall(uint64_t which, uint64_t a0, uint64_t a1, uint64_t a2) {
  magic_mem[0] = which;
  magic_mem[1] = a0;
  magic_mem[2] = a1;
  magic_mem[3] = a2;
  __sync_synchronize();
  tohost = (uint64_t)(uintptr_t)magic_mem;
#ifdef HTIF_WAIT_FROMHOST
  while (fromhost == 0) {
  }
#endif
  fromhost = 0;
  __sync_synchronize();
  return magic_mem[0];
}

static void htif_exit(int code) {
  tohost = ((uint64_t)code << 1) | 1;
  for (;;) {
  }
}

static char line[64];

int main(void) {
  uint64_t sum = 0x9E3779B97F4A7C15ULL;
  for (uint64_t i = 0; i < 300; ++i) sum = (sum ^ i) * 0x100000001B3ULL + (sum >> 7);
  const char* head = "hello from htif, sum=0x";
  unsigned n = 0;
  while (head[n] != 0) {
    line[n] = head[n];
    ++n;
  }
  for (int shift = 60; shift >= 0; shift -= 4) line[n++] = "0123456789abcdef"[(sum >> shift) & 15];
  line[n++] = '\n';
  // The count written comes back in magic_mem[0]; the exit code does not depend on it, so the
  // program takes the same path where the proxy is not served (QEMU 7.2).
  (void)htif_syscall(64, 1, (uint64_t)(uintptr_t)line, n);
  htif_exit(3);
  return 0;
}
