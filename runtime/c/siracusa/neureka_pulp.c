/* The N-EUREKA primitives of firmgen_neureka.h on Siracusa (PULP SDK, pmsis). Not built in this repository (no PULP
   toolchain here): kept to register accesses whose addresses and bits come from the pulp-nnx Siracusa BSP
   (neureka/bsp/neureka_siracusa_bsp.c); the same driver runs on the model of runtime/c/common/neureka_model.c in the
   host and rv32 builds, and the emulator models the engine itself (docs/neureka.md).
   - Register file: the cluster-local alias 0x0020_1000 of 0x1020_1000 (HARDWARE.md), 32-bit volatile accesses
     (firmgen_neureka.h, inline at FG_NEUREKA_BASE: Makefile.pulp and CMakeLists.txt set it to this alias).
   - Completion: cluster event 12, waited for with the event unit's wait-and-clear (the core sleeps until it comes;
     one pending event is buffered).
   - Init (main_pulp.c calls it on the cluster before network_run): the cluster controller's HWPE register
     (0x0020_0018) gets the NPU's clock enabled (bit 11), the interconnect priority to the NPU (bit 8) and a max stall
     of 8 (bits 0..7), then a soft clear of the NPU's queue and ids.
   - Neural memory: WEIGHTS_PTR with WMEM is the offset from 0x1040_0000 (MRAM; SRAM at 0x1080_0000). */
#include "pmsis.h"
#include "firmgen_neureka.h"

#if FG_NEUREKA_BASE != 0x00201000u
#error "the board's build sets FG_NEUREKA_BASE=0x00201000u (hal_npu_read and hal_npu_write are inline)"
#endif
#define NEUREKA_PULP_EVENT 12
#define NEUREKA_PULP_HWPE_CTRL 0x00200018u
#define NEUREKA_PULP_HWPE_CLOCK_ENABLE 0x800u
#define NEUREKA_PULP_HWPE_HCI_PRIORITY 0x100u
#define NEUREKA_PULP_HWPE_HCI_MAX_STALL 0xffu
#define NEUREKA_PULP_MAX_STALL 8u
#define NEUREKA_PULP_NMS_BASE 0x10400000u

void hal_npu_event_wait(void) { eu_evt_maskWaitAndClr(1u << NEUREKA_PULP_EVENT); }

void hal_neureka_init(void) {
  volatile uint32_t *ctrl = (volatile uint32_t *)NEUREKA_PULP_HWPE_CTRL;
  uint32_t v = *ctrl & ~NEUREKA_PULP_HWPE_HCI_MAX_STALL;
  v |= NEUREKA_PULP_HWPE_CLOCK_ENABLE | NEUREKA_PULP_HWPE_HCI_PRIORITY | NEUREKA_PULP_MAX_STALL;
  *ctrl = v;
  hal_npu_write(NEUREKA_SOFT_CLEAR, 0);
  /* A few cycles before the next access, to let the clear take effect (pulp-nnx's hwpe.c asks whether this is needed;
     it costs nothing that matters once per run). */
  for (volatile int i = 0; i < 10; i++) {
  }
}

uint32_t hal_neureka_wmem_offset(const void *p) { return (uint32_t)(uintptr_t)p - NEUREKA_PULP_NMS_BASE; }
