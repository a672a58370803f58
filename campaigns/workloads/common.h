// Shared helpers for the CTTE workloads: UART console, exit through the SiFive test device,
// ecall "system calls" served by the trap handler (common.c).
#pragma once

#include <stdint.h>

#define CTTE_UART_THR ((volatile uint8_t*)0x10000000UL)
#define CTTE_TEST_DEVICE ((volatile uint32_t*)0x00100000UL)
#define CTTE_CLINT_MSIP ((volatile uint32_t*)0x02000000UL)

#define CTTE_NOINLINE __attribute__((noinline))

void ctte_putc(char c);
void ctte_puts(const char* s);
void ctte_puthex(uint64_t v);
/// Prints "NAME checksum=0x%016x\n".
void ctte_print_checksum(const char* name, uint64_t value);
/// 0: pass (0x5555); otherwise (code<<16)|0x3333. Never returns.
void ctte_exit(int code) __attribute__((noreturn));

/// ecall with a7 = number, a0 = arg; the handler's result comes back in a0 (register-wide:
/// 32 bits on RV32).
static inline uintptr_t ctte_ecall(uintptr_t number, uintptr_t arg) {
  register uintptr_t a0 __asm__("a0") = arg;
  register uintptr_t a7 __asm__("a7") = number;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a7) : "memory");
  return a0;
}

/// Machine software interrupts taken so far.
extern volatile uint64_t ctte_interrupts;
