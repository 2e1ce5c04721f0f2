/* The cluster DMA's register protocol (mchan v7), shared by the board HAL (hal_pulp.c) and the HAL of the ISS build
   (hal_iss.c): included once by each, after it defines FG_MCHAN_SLEEP(), how a core sleeps until a DMA completion
   (and MCHAN_BASE if its SDK names another address). Defines the hal_dma_* functions of firmgen_hal.h. */
#ifndef FIRMGEN_MCHAN_H
#define FIRMGEN_MCHAN_H
#include <stdint.h>
#include "firmgen_hal.h"

/* Registers (HARDWARE.md "cluster DMA (mchan v7)"; Deeploy TargetLibraries/PULPOpen/inc/mchan_v7.h): a per-core demux
   at 0x1020_4400. Reading `cmd` (+0) allocates a channel id 0..15 and makes it this core's active channel: every
   command pushed afterwards counts on it (pulp-sdk plp_dma_counter_alloc). A command is a sequence of writes to `cmd`:
   the command word, the L1 address, the external address, then for a 2-D external side its row length and stride,
   then for a 2-D L1 side its row length and stride. `status` (+4): bit i set while channel i has transfers in flight;
   writing 1 << i frees channel i. */
#ifndef MCHAN_BASE
#define MCHAN_BASE 0x10204400u
#endif
#define MCHAN_CMD (*(volatile uint32_t *)(MCHAN_BASE + 0x0))
#define MCHAN_STATUS (*(volatile uint32_t *)(MCHAN_BASE + 0x4))

/* Command word: bits 0..16 length in bytes, 17 direction (1 = external to L1), 18 incremental addressing, 19 2-D on
   the external side, 20 completion event, 21 interrupt (unused), 23 2-D on the L1 side. */
#define MCHAN_TO_L1 (1u << 17)
#define MCHAN_INCREMENTAL (1u << 18)
#define MCHAN_2D_EXT (1u << 19)
#define MCHAN_EVENT (1u << 20)
#define MCHAN_2D_L1 (1u << 23)

int hal_dma_channel_alloc(void) { return (int)MCHAN_CMD; }

void hal_dma_channel_free(int ch) { MCHAN_STATUS = 1u << ch; }

/* `ch` is not sent: the chip counts the command on the core's active channel, which the HAL contract says ch is
   (the emulator checks it). The length must fit the 17-bit field: it is masked so that an oversized one cannot set
   flag bits, but the generator splits larger tiles (the emulator and the host HAL fault on one). */
void hal_dma_copy_2d_both(int ch, void *l1, void *ext, int32_t bytes, int32_t ext_stride, int32_t ext_length,
                          int32_t l1_stride, int32_t l1_length, int to_l1) {
  (void)ch;
  const uint32_t cmd = ((uint32_t)bytes & HAL_DMA_MAX_BYTES) | (to_l1 ? MCHAN_TO_L1 : 0) | MCHAN_INCREMENTAL |
                       (ext_length > 0 ? MCHAN_2D_EXT : 0) | MCHAN_EVENT | (l1_length > 0 ? MCHAN_2D_L1 : 0);
  /* The stores that filled an outgoing buffer must be issued before the DMA reads it (pulp-sdk __cl_dma_memcpy). */
  __asm__ __volatile__("" : : : "memory");
  MCHAN_CMD = cmd;
  MCHAN_CMD = (uint32_t)(uintptr_t)l1;
  MCHAN_CMD = (uint32_t)(uintptr_t)ext;
  if (ext_length > 0) {
    MCHAN_CMD = (uint32_t)ext_length;
    MCHAN_CMD = (uint32_t)ext_stride;
  }
  if (l1_length > 0) {
    MCHAN_CMD = (uint32_t)l1_length;
    MCHAN_CMD = (uint32_t)l1_stride;
  }
}


/* Sleep on the DMA event until the channel's status bit clears (Deeploy mchan_channel_wait, MCHAN_EVENT mode); the
   loop re-checks because the event fires for any channel. The memory clobber keeps later reads of the destination
   after the wait. */
void hal_dma_wait(int ch) {
  while (MCHAN_STATUS & (1u << ch)) FG_MCHAN_SLEEP();
  __asm__ __volatile__("" : : : "memory");
}

#endif
