/* Per-layer markers of Gemmini's bare-metal rv64 build: rv32/layer_marks.c's records (word 0 the count, then per
   mark: layer id * 2 + 1 at an end, cycles low, cycles high) from the 64-bit cycle counter, read once. */
#include "firmgen_hal.h"
#include "network.h"
#include "layer_marks.h"

#define FG_MARKS NETWORK_LAYER_MARKS
uint32_t fg_layer_marks[1 + 3 * FG_MARKS];

void fg_layer_mark(int32_t layer, uint32_t end) {
  uint64_t cycles;
  __asm__ volatile("rdcycle %0" : "=r"(cycles));
  const uint32_t n = fg_layer_marks[0];
  if (n >= FG_MARKS) return;
  fg_layer_marks[1 + 3 * n] = ((uint32_t)layer << 1) | end;
  fg_layer_marks[2 + 3 * n] = (uint32_t)cycles;
  fg_layer_marks[3 + 3 * n] = (uint32_t)(cycles >> 32);
  fg_layer_marks[0] = n + 1;
}
