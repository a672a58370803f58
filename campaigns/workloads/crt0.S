# Shared start-up for the CTTE workloads (M-mode, bare metal).
# Sets gp and sp, zeroes .bss, installs the trap entry, enables the machine software interrupt
# (mie.MSIE, mstatus.MIE) so an interrupt schedule can be applied, calls main and exits through
# the SiFive test device with main's return value.
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
  sd zero, 0(t0)
  addi t0, t0, 8
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
  addi sp, sp, -128
  sd ra, 0(sp)
  sd t0, 8(sp)
  sd t1, 16(sp)
  sd t2, 24(sp)
  sd a0, 32(sp)
  sd a1, 40(sp)
  sd a2, 48(sp)
  sd a3, 56(sp)
  sd a4, 64(sp)
  sd a5, 72(sp)
  sd a6, 80(sp)
  sd a7, 88(sp)
  sd t3, 96(sp)
  sd t4, 104(sp)
  sd t5, 112(sp)
  sd t6, 120(sp)
  csrr a0, mcause
  csrr a1, mepc
  mv a2, sp
  call ctte_trap
  csrw mepc, a0
  ld ra, 0(sp)
  ld t0, 8(sp)
  ld t1, 16(sp)
  ld t2, 24(sp)
  ld a0, 32(sp)
  ld a1, 40(sp)
  ld a2, 48(sp)
  ld a3, 56(sp)
  ld a4, 64(sp)
  ld a5, 72(sp)
  ld a6, 80(sp)
  ld a7, 88(sp)
  ld t3, 96(sp)
  ld t4, 104(sp)
  ld t5, 112(sp)
  ld t6, 120(sp)
  addi sp, sp, 128
  mret
