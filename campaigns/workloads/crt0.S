# Shared start-up for the CTTE workloads (M-mode, bare metal).
# Sets gp and sp, zeroes .bss, installs the trap entry, enables the machine software interrupt
# (mie.MSIE, mstatus.MIE) so an interrupt schedule can be applied, calls main and exits through
# the SiFive test device with main's return value. Built for RV64 and RV32 (__riscv_xlen): REG_S,
# REG_L and REGBYTES are the register-width store, load and size.
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#endif
  .section .text.init, "ax", @progbits
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  REG_S zero, 0(t0)
  addi t0, t0, REGBYTES
  j 1b
2:
  la t0, trap_entry
  csrw mtvec, t0
  li t0, 8
  csrw mie, t0            # MSIE
  csrsi mstatus, 8        # MIE
  call main
  call ctte_exit
3:
  j 3b

# Trap entry: saves the caller-saved registers, calls
#   uintptr_t ctte_trap(uintptr_t mcause, uintptr_t mepc, uintptr_t* regs)
# whose result becomes mepc, restores and returns with mret. regs[] order: ra t0-t2 a0-a7 t3-t6.
  .text
  .balign 4
  .globl trap_entry
trap_entry:
  addi sp, sp, -16*REGBYTES
  REG_S ra, 0*REGBYTES(sp)
  REG_S t0, 1*REGBYTES(sp)
  REG_S t1, 2*REGBYTES(sp)
  REG_S t2, 3*REGBYTES(sp)
  REG_S a0, 4*REGBYTES(sp)
  REG_S a1, 5*REGBYTES(sp)
  REG_S a2, 6*REGBYTES(sp)
  REG_S a3, 7*REGBYTES(sp)
  REG_S a4, 8*REGBYTES(sp)
  REG_S a5, 9*REGBYTES(sp)
  REG_S a6, 10*REGBYTES(sp)
  REG_S a7, 11*REGBYTES(sp)
  REG_S t3, 12*REGBYTES(sp)
  REG_S t4, 13*REGBYTES(sp)
  REG_S t5, 14*REGBYTES(sp)
  REG_S t6, 15*REGBYTES(sp)
  csrr a0, mcause
  csrr a1, mepc
  mv a2, sp
  call ctte_trap
  csrw mepc, a0
  REG_L ra, 0*REGBYTES(sp)
  REG_L t0, 1*REGBYTES(sp)
  REG_L t1, 2*REGBYTES(sp)
  REG_L t2, 3*REGBYTES(sp)
  REG_L a0, 4*REGBYTES(sp)
  REG_L a1, 5*REGBYTES(sp)
  REG_L a2, 6*REGBYTES(sp)
  REG_L a3, 7*REGBYTES(sp)
  REG_L a4, 8*REGBYTES(sp)
  REG_L a5, 9*REGBYTES(sp)
  REG_L a6, 10*REGBYTES(sp)
  REG_L a7, 11*REGBYTES(sp)
  REG_L t3, 12*REGBYTES(sp)
  REG_L t4, 13*REGBYTES(sp)
  REG_L t5, 14*REGBYTES(sp)
  REG_L t6, 15*REGBYTES(sp)
  addi sp, sp, 16*REGBYTES
  mret
