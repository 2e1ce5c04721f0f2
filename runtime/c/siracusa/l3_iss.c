/* Siracusa's L3 for firmgen's RV32 cores (`gen run --on iss`, the rv32-xpulp build): the HyperRAM DMA is a device of
   the emulator (emulator/assembly/iss/l3.ts: the AS path's blocking copy and timing, firmgen's register layout). L3
   is the array fg_l3 (network_data.c, section .fg_l3), which only the DMA reaches; the copy is done when the START
   store retires (the core sleeps meanwhile), as pi_cl_ram_read + its wait on the board (l3_pulp.c). */
#include "firmgen_l3.h"

#define L3_ISS_BASE 0x1a102000u
#define L3_ISS_REG(off) (*(volatile uint32_t *)(L3_ISS_BASE + (off)))
#define L3_ISS_L2 0x00u
#define L3_ISS_L3 0x04u
#define L3_ISS_BYTES 0x08u
#define L3_ISS_START 0x0cu

static void l3_iss_copy(void *l2, uint32_t l3, uint32_t bytes, uint32_t to_l3) {
  L3_ISS_REG(L3_ISS_L2) = (uint32_t)(uintptr_t)l2;
  L3_ISS_REG(L3_ISS_L3) = l3;
  L3_ISS_REG(L3_ISS_BYTES) = bytes;
  __asm__ volatile("" : : : "memory"); /* the L2 side's bytes are in memory before the copy, used only after it */
  L3_ISS_REG(L3_ISS_START) = to_l3;
  __asm__ volatile("" : : : "memory");
}

void hal_l3_read(void *l2, uint32_t l3, uint32_t bytes) { l3_iss_copy(l2, l3, bytes, 0); }

void hal_l3_write(uint32_t l3, const void *l2, uint32_t bytes) { l3_iss_copy((void *)(uintptr_t)l2, l3, bytes, 1); }
