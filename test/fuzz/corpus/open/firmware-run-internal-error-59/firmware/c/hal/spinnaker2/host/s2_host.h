/* The host HAL's extras for its test driver (main_s2_host.c). */
#ifndef S2_HOST_H
#define S2_HOST_H
#include <stdint.h>
#include "s2_hal.h"

/* The DRAM's chip address in the image (an assumption of this project: emulator/assembly/chips/spinnaker2.ts). */
#define S2_DRAM_BASE 0x80000000u

extern uint8_t *s2_dram;
extern uint32_t s2_dram_bytes;
void s2_host_init(int pes);
uint8_t *s2_dram_at(uint32_t addr, uint32_t bytes);
void s2_fail(const char *what);

#endif
