/* The N-EUREKA primitives of firmgen_neureka.h for firmgen's RV32 cores (`gen run --on iss`, the rv32-xpulp build of
   Siracusa): the NPU is a device of the emulator (emulator/assembly/iss/npu.ts, the AS path's register file, queue
   and job model), so these are register accesses as on the board (neureka_pulp.c), at the chip address 0x1020_1000
   (HARDWARE.md "N-EUREKA NPU"; the board HAL uses the cluster alias 0x0020_1000 of the same registers).
   - Completion: the event unit's NPU_SLEEP register (iss/cluster-eu.ts, firmgen's layout) is the wait-and-clear on
     event 12: the core sleeps until a job ends (or returns at once when an event is pending).
   - Neural memory: the rv32 link script places fg_nms_mram at 0x8400_0000 and fg_nms_sram 4 MiB after it, so a
     WMEM WEIGHTS_PTR is the offset from 0x8400_0000, as on the chip from 0x1040_0000. */
#include "firmgen_neureka.h"

#if !defined(FG_NEUREKA_BASE)
#error "the ISS build sets FG_NEUREKA_BASE (the register file's address; hal_npu_read and hal_npu_write are inline)"
#endif
#define NEUREKA_ISS_EU_NPU_SLEEP 0x10204024u
/* The rv32 link script's .fg_nms_mram (hal/rv32/link.ld). */
#define NEUREKA_ISS_NMS_BASE 0x84000000u

void hal_npu_event_wait(void) { (void)*(volatile uint32_t *)NEUREKA_ISS_EU_NPU_SLEEP; }

/* No clock gate or interconnect register here (the device is always on): a soft clear of the queue and ids. */
void hal_neureka_init(void) { hal_npu_write(NEUREKA_SOFT_CLEAR, 0); }

uint32_t hal_neureka_wmem_offset(const void *p) { return (uint32_t)(uintptr_t)p - NEUREKA_ISS_NMS_BASE; }
