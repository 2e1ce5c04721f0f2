/* Host implementation of the firmgen HAL: a fork runs each core's share in turn on the one host thread.
   Kernels split work only by core id and never wait for each other inside a closure, so this is exact. */
#include "firmgen_hal.h"

#ifndef FG_CORES
#define FG_CORES 1
#endif

static int current_core = 0;
static int team = FG_CORES;

void hal_cluster_fork(hal_closure_t fn, void *args) {
  for (int c = 0; c < FG_CORES; c++) {
    current_core = c;
    fn(args);
  }
  current_core = 0;
}

int hal_core_id(void) { return current_core; }
int hal_num_cores(void) { return team; }

int32_t hal_share_begin(int32_t n) {
  const int32_t chunk = (n + team - 1) / team;
  return FG_MIN(current_core * chunk, n);
}

int32_t hal_share_end(int32_t n) {
  const int32_t chunk = (n + team - 1) / team;
  return FG_MIN(hal_share_begin(n) + chunk, n);
}

void hal_layer_begin(int32_t layer) { (void)layer; }
void hal_layer_end(int32_t layer) { (void)layer; }

int64_t fg_isqrt64(int64_t v) {
  if (v <= 0) return 0;
  /* Bit-by-bit integer square root: exact, no floating point (the board has none to spare). */
  uint64_t x = (uint64_t)v, r = 0, bit = (uint64_t)1 << 62;
  while (bit > x) bit >>= 2;
  while (bit) {
    if (x >= r + bit) { x -= r + bit; r = (r >> 1) + bit; }
    else r >>= 1;
    bit >>= 2;
  }
  return (int64_t)r;
}
