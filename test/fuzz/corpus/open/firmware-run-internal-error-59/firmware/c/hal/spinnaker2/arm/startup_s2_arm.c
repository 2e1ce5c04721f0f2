/* Reset and vectors of a SpiNNaker2 PE image (ARM build). The host loads the whole ELF into the PE's SRAM (code,
   initialised data and all), so nothing is copied here: .data is already in place; only .bss is cleared. Then the
   FPU (the build uses -mfloat-abi=hard) and the DWT cycle counter (the time stamps) are enabled, the communication
   controller's interrupt is unmasked, and main runs; when it returns the core sleeps. Register addresses: s2_arm.h. */
#include <stdint.h>
#include "s2_arm.h"

int main(void);
void s2_cc_irq_handler(void);

/* Symbols of link_pe.ld. */
extern uint32_t __stack_top[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];

static void halt(void) {
  for (;;) __asm volatile("wfi");
}

void s2_reset(void) {
  S2_REG(SCB_CPACR) |= 0xFu << 20; /* CP10, CP11: full access */
  __asm volatile("dsb\n\tisb" ::: "memory");
  for (volatile uint32_t *p = __bss_start; p < __bss_end; p++) *p = 0u;
  S2_REG(SCB_DEMCR) |= 1u << 24;
  S2_REG(DWT_CYCCNT) = 0u;
  S2_REG(DWT_CTRL) |= 1u;
  S2_REG(NVIC_ISER0) = 1u << S2_CC_IRQ;
  (void)main();
  halt();
}

/* ARMv7-M vector table (B1.5.3): initial SP, reset, 14 system exceptions (faults halt), then external interrupt 0. */
__attribute__((section(".vectors"), used)) const uintptr_t s2_vectors[17] = {
  (uintptr_t)__stack_top,
  (uintptr_t)s2_reset,
  (uintptr_t)halt, (uintptr_t)halt, (uintptr_t)halt, (uintptr_t)halt, (uintptr_t)halt, /* NMI .. usage fault */
  0u, 0u, 0u, 0u,                                                                        /* reserved */
  (uintptr_t)halt, (uintptr_t)halt, 0u, (uintptr_t)halt, (uintptr_t)halt,              /* SVC, debug, PendSV, SysTick */
  (uintptr_t)s2_cc_irq_handler,                                                          /* IRQ 0: S2_CC_IRQ */
};
