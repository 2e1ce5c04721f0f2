/* Per-layer markers of the bare-metal rv32 builds (hal_rv32.c on one hart; siracusa/hal_iss.c on cluster core 0).
   The cycle counter at each layer's begin and end, kept in fg_layer_marks (word 0 the count, then per
   mark: layer id * 2 + 1 at an end, cycles low, cycles high). On firmgen's RV32 core (`gen run --on iss`) the counter
   is its CV32E40P cycle count and the runtime reads the marks back by symbol: the per-layer cycles of this very
   binary. qemu does not model time (its counter follows the host clock), and there nobody reads them. A mark costs
   two or three CSR reads inside the layer it opens or closes, as performance counters do on a board. */
#include "firmgen_hal.h"
#include "network.h"
#include "layer_marks.h"

#define FG_MARKS NETWORK_LAYER_MARKS
uint32_t fg_layer_marks[1 + 3 * FG_MARKS];

void fg_layer_mark(int32_t layer, uint32_t end) {
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

