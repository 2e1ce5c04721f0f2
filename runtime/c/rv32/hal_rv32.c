/* firmgen HAL on one bare-metal RISC-V hart (qemu virt, picolibc): the cluster fork runs on a team of one.
   A tiled layer's closure synchronises with hal_barrier() inside itself, so running each core's share in turn on one
   hart would deadlock or reorder its phases; with a team of one, hal_num_cores() is 1, the kernels' work split gives
   the whole range to core 0 and a barrier has nobody to wait for. Integer kernels compute the same values whatever the
   split, so the outputs equal the 8-core ones. DMA (memcpy): common/dma_memcpy.c. */
#include "firmgen_hal.h"
#include "network.h"

void hal_cluster_fork(hal_closure_t fn, void *args) { fn(args); }
void hal_barrier(void) {}
int hal_core_id(void) { return 0; }
int hal_num_cores(void) { return 1; }

/* Layer markers: the cycle counter at each layer's begin and end, kept in fg_layer_marks (word 0 the count, then per
   mark: layer id * 2 + 1 at an end, cycles low, cycles high). On firmgen's RV32 core (`gen run --on iss`) the counter
   is its CV32E40P cycle count and the runtime reads the marks back by symbol: the per-layer cycles of this very
   binary. qemu does not model time (its counter follows the host clock), and there nobody reads them. A mark costs
   two or three CSR reads inside the layer it opens or closes, as performance counters do on a board. */
#define FG_MARKS NETWORK_LAYER_MARKS
uint32_t fg_layer_marks[1 + 3 * FG_MARKS];

static void mark(int32_t layer, uint32_t end) {
  uint32_t hi, lo, again;
  do {
    __asm__ volatile("rdcycleh %0" : "=r"(hi));
    __asm__ volatile("rdcycle %0" : "=r"(lo));
    __asm__ volatile("rdcycleh %0" : "=r"(again));
  } while (hi != again);
  const uint32_t n = fg_layer_marks[0];
  if (n >= FG_MARKS) return;
  fg_layer_marks[1 + 3 * n] = ((uint32_t)layer << 1) | end;
  fg_layer_marks[2 + 3 * n] = lo;
  fg_layer_marks[3 + 3 * n] = hi;
  fg_layer_marks[0] = n + 1;
}

void hal_layer_begin(int32_t layer) { mark(layer, 0); }
void hal_layer_end(int32_t layer) { mark(layer, 1); }
