/* The SpiNNaker2 firmware's entry points and the word helpers its files share. */
#ifndef S2_FIRMWARE_H
#define S2_FIRMWARE_H
#include <stdint.h>
#include "s2_hal.h"
#include "s2_layout.h"

static inline uint32_t s2_word(const uint8_t *p, uint32_t off) {
  uint32_t v;
  __builtin_memcpy(&v, p + off, 4); /* little-endian, as the image (the Cortex-M4 and every host we build on) */
  return v;
}

/* Element types of the image (generator/platforms/spinnaker2): 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32. */
static inline uint32_t s2_type_bytes(uint32_t t) { return t < 2 ? 1 : t < 4 ? 2 : 4; }

/* Element j of an array of type t at p, widened exactly. */
static inline int64_t s2_load(uint32_t t, const uint8_t *p, int32_t j) {
  switch (t) {
    case 0: return p[j];
    case 1: return (int8_t)p[j];
    case 2: { uint16_t v; __builtin_memcpy(&v, p + 2 * j, 2); return v; }
    case 3: { int16_t v; __builtin_memcpy(&v, p + 2 * j, 2); return v; }
    case 4: { uint32_t v; __builtin_memcpy(&v, p + 4 * j, 4); return v; }
    default: { int32_t v; __builtin_memcpy(&v, p + 4 * j, 4); return v; }
  }
}

/* Stores the low bytes of v as element j of type t (little-endian; the caller made sure the value fits). */
static inline void s2_store(uint32_t t, uint8_t *p, int32_t j, int64_t v) {
  const uint32_t w = (uint32_t)v, n = s2_type_bytes(t);
  __builtin_memcpy(p + n * (uint32_t)j, &w, n);
}

static inline void s2_stamp(uint8_t *slot, uint32_t field) {
  uint32_t t = hal_cycles();
  __builtin_memcpy(slot + field, &t, 4);
}

/* Waits for a DMA ticket; -1 (no transfer) needs no wait. */
static inline void s2_wait(int ticket) {
  if (ticket >= 0) hal_dma_wait(ticket);
}

/* The double-buffered tile loop of every layer type (AS twin: as/tiles.ts). Per tile of the worker block: wait for
   its inputs, start the next tile's (`fetch` returns the ticket of its last transfer, or -1), then `work`, which gets
   the ticket of the write-back that last used this tile's output slot (tile i-2's: there are two slots), must
   s2_wait() it before writing there, and returns the ticket of the tile's last write-back. */
typedef int (*s2_fetch_fn)(uint8_t *me, const uint8_t *tile);
typedef int (*s2_work_fn)(uint8_t *me, const uint8_t *params, const uint8_t *tile, int slot_write_back);

static inline void s2_tile_loop(uint8_t *me, const uint8_t *params, const uint8_t *block, uint32_t tile_bytes,
                                s2_fetch_fn fetch, s2_work_fn work) {
  const int32_t tiles = (int32_t)s2_word(block, WORKER_TILES);
  int in_next = fetch(me, block + WORKER_FIRST);
  int out_prev = -1, out_prev2 = -1;
  for (int32_t i = 0; i < tiles; i++) {
    const uint8_t *tile = block + WORKER_FIRST + (uint32_t)i * tile_bytes;
    s2_wait(in_next);
    in_next = i + 1 < tiles ? fetch(me, tile + tile_bytes) : -1;
    const int out = work(me, params, tile, out_prev2);
    out_prev2 = out_prev;
    out_prev = out;
  }
  s2_wait(out_prev);
}

/* The scheduler loop (PE 0): walks the layer chain until the finish layer. */
void scheduler_main(void);
/* A worker's interrupt handler: one layer. Returns 0 after the finish layer (the worker stops), else 1. */
int worker_on_irq(void);
void gemm_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void elementwise_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void rows_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void conv_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void move_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void indexed_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void im2col(uint8_t *me, const uint8_t *params, const uint8_t *tile);
void pool_max(uint8_t *me, const uint8_t *params, const uint8_t *tile, uint8_t *y);

#endif
