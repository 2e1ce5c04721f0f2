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
#ifndef FG_CORES
int hal_num_cores(void) { return FG_TEAM; } /* else the constant of firmgen_hal.h */
#endif

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

/* ---- cluster DMA: mchan v7 (firmgen_mchan.h), sleeping on the DMA's event line between status checks ---- */
#ifdef ARCHI_MCHAN_DEMUX_ADDR
#define MCHAN_BASE ARCHI_MCHAN_DEMUX_ADDR
#endif
/* The cluster event line the DMA raises on completion (ARCHI_CL_EVT_DMA0; 8 per Deeploy mchan_siracusa.h). */
#ifndef ARCHI_CL_EVT_DMA0
#define ARCHI_CL_EVT_DMA0 8
#endif
#define FG_MCHAN_SLEEP() eu_evt_maskWaitAndClr(1u << ARCHI_CL_EVT_DMA0)
#include "firmgen_mchan.h"
