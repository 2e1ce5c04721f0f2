/* firmgen HAL on one bare-metal RISC-V hart (qemu virt, picolibc): the cluster fork runs on a team of one.
   A tiled layer's closure synchronises with hal_barrier() inside itself, so running each core's share in turn on one
   hart would deadlock or reorder its phases; with a team of one, hal_num_cores() is 1, the kernels' work split gives
   the whole range to core 0 and a barrier has nobody to wait for. Integer kernels compute the same values whatever the
   split, so the outputs equal the 8-core ones. DMA (memcpy): common/dma_memcpy.c. */
#include "firmgen_hal.h"
#include "network.h"
#include "layer_marks.h"

void hal_cluster_fork(hal_closure_t fn, void *args) { fn(args); }
void hal_barrier(void) {}
int hal_core_id(void) { return 0; }
#ifndef FG_CORES
int hal_num_cores(void) { return 1; }
#endif

/* Running the network: on this one hart, right here (the ISS build of Siracusa sends it to cluster core 0). */
void hal_rv32_run(void (*network)(void)) { network(); }

/* Layer markers: the cycle counter into fg_layer_marks (layer_marks.c). */
void hal_layer_begin(int32_t layer) { fg_layer_mark(layer, 0); }
void hal_layer_end(int32_t layer) { fg_layer_mark(layer, 1); }
