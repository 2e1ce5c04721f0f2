/* What the Siracusa HAL (hal_pulp.c) and the board's main (main_pulp.c) share. */
#ifndef FIRMGEN_PULP_H
#define FIRMGEN_PULP_H
#include <stdint.h>

/* Layers whose cycles hal_layer_end records (layer ids are the manifest's). */
#ifndef FG_PERF_LAYERS
#define FG_PERF_LAYERS 256
#endif
extern uint32_t fg_layer_cycles[FG_PERF_LAYERS];

/* Cluster stacks (L1): the core that runs network_run() and the tile loops, and each other core, which runs kernel
   shares only. generator/platforms/siracusa/platform.ts keeps 12 KiB of L1 for them (CImage.tileReserved). */
#ifndef FG_MASTER_STACK
#define FG_MASTER_STACK 4096
#endif
#ifndef FG_SLAVE_STACK
#define FG_SLAVE_STACK 1024
#endif

#endif
