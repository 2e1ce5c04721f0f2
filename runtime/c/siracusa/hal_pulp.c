/* firmgen HAL on Siracusa with the PULP SDK (pmsis). Not built in this repository (no PULP toolchain here); the host
   twin is runtime/c/host/hal_host.c and the emulator's model is emulator/assembly/dma.ts.

   Where it runs: network_run() executes on the cluster (the board's main sends it as a cluster task with
   pi_cluster_send_task_to_cl), so hal_cluster_fork is a pi_cl_team_fork from there, and the DMA is issued by that
   one core: the tile loop's. pulp-sdk's own cl_dma wraps allocation and push in eu_mutex_lock_from_id(0) because any
   core may issue; add the same lock here if cores ever issue transfers concurrently. */
#include "pmsis.h"
#include "firmgen_hal.h"
#include "firmgen_pulp.h"

/* ---- cluster ---- */

/* FG_CORES, when the build sets it, fixes the team (as on the host); otherwise every core of the cluster. */
#ifdef FG_CORES
#define FG_TEAM FG_CORES
#else
#define FG_TEAM pi_cl_cluster_nb_cores()
#endif

void hal_cluster_fork(hal_closure_t fn, void *args) { pi_cl_team_fork(FG_TEAM, fn, args); }
void hal_barrier(void) { pi_cl_team_barrier(); }
int hal_core_id(void) { return pi_core_id(); }
int hal_num_cores(void) { return FG_TEAM; }

/* Layer markers: cycles of each layer from the performance counter of the core that runs network_run() (cluster
   core 0; main_pulp.c configures and starts it and prints the table after the run). Layer ids above the table's size
   are not measured; nothing needs the markers to be correct. */
PI_L2 uint32_t fg_layer_cycles[FG_PERF_LAYERS];
static uint32_t layer_start;

void hal_layer_begin(int32_t layer) {
  (void)layer;
  layer_start = pi_perf_read(PI_PERF_CYCLES);
}

void hal_layer_end(int32_t layer) {
  if (layer >= 0 && layer < FG_PERF_LAYERS) fg_layer_cycles[layer] = pi_perf_read(PI_PERF_CYCLES) - layer_start;
}

/* ---- cluster DMA: mchan v7 ----
   Registers (HARDWARE.md "cluster DMA (mchan v7)"; Deeploy TargetLibraries/PULPOpen/inc/mchan_v7.h): a per-core demux
   at 0x1020_4400. Reading `cmd` (+0) allocates a channel id 0..15 and makes it this core's active channel: every
   command pushed afterwards counts on it (pulp-sdk plp_dma_counter_alloc). A command is a sequence of writes to `cmd`:
   the command word, the L1 address, the external address, then for a 2-D external side its row length and stride,
   then for a 2-D L1 side its row length and stride. `status` (+4): bit i set while channel i has transfers in flight;
   writing 1 << i frees channel i. */
#ifdef ARCHI_MCHAN_DEMUX_ADDR
#define MCHAN_BASE ARCHI_MCHAN_DEMUX_ADDR
#else
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

/* The cluster event line the DMA raises on completion (ARCHI_CL_EVT_DMA0; 8 per Deeploy mchan_siracusa.h). */
#ifndef ARCHI_CL_EVT_DMA0
#define ARCHI_CL_EVT_DMA0 8
#endif

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

void hal_dma_copy_1d(int ch, void *l1, void *ext, int32_t bytes, int to_l1) {
  hal_dma_copy_2d_both(ch, l1, ext, bytes, 0, 0, 0, 0, to_l1);
}

void hal_dma_copy_2d(int ch, void *l1, void *ext, int32_t bytes, int32_t stride, int32_t length, int to_l1) {
  hal_dma_copy_2d_both(ch, l1, ext, bytes, stride, length, 0, 0, to_l1);
}

void hal_dma_copy_2d_l1(int ch, void *l1, void *ext, int32_t bytes, int32_t stride, int32_t length, int to_l1) {
  hal_dma_copy_2d_both(ch, l1, ext, bytes, 0, 0, stride, length, to_l1);
}

/* Sleep on the DMA event until the channel's status bit clears (Deeploy mchan_channel_wait, MCHAN_EVENT mode); the
   loop re-checks because the event fires for any channel. The memory clobber keeps later reads of the destination
   after the wait. */
void hal_dma_wait(int ch) {
  while (MCHAN_STATUS & (1u << ch)) eu_evt_maskWaitAndClr(1u << ARCHI_CL_EVT_DMA0);
  __asm__ __volatile__("" : : : "memory");
}
