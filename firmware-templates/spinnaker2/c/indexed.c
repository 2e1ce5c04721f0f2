/* The indexed layer on a worker (AS twin: as/indexed.ts): Gather by run-time indices and CacheWrite at a run-time
   position, the index read from data memory by the tile's first transfer. Format:
   generator/platforms/spinnaker2/indexed.ts. */
#include <string.h>
#include "s2_firmware.h"

#define TILE_BYTES 96u
#define GATHER 0u

/* The tile's inputs (indices or position first); the ticket of the last. */
static int fetch(uint8_t *me, const uint8_t *tile) {
  int ticket = -1;
  for (uint32_t k = 0; k < s2_word(tile, 24); k++) {
    const uint8_t *d = tile + 28 + k * DMA_SIZE;
    ticket = hal_dma_in(me + s2_word(d, DMA_SRAM), s2_word(d, DMA_DRAM), s2_word(d, DMA_BYTES), 0, 0);
  }
  return ticket;
}

/* Gather: per index, its row (a negative index from the end, clamped into the axis) from the table in SRAM (mode 0)
   or by its own DMA from DRAM (mode 1) into the staging buffer, then one write-back. */
static int gather(uint8_t *me, const uint8_t *p, const uint8_t *tile) {
  const uint32_t it = s2_word(p, 4), rb = s2_word(p, 12), mode = s2_word(p, 16), count = s2_word(tile, 0);
  const int64_t dim = s2_word(p, 8);
  const uint8_t *idx = me + s2_word(tile, 4), *table = me + s2_word(tile, 12);
  uint8_t *out = me + s2_word(tile, 8);
  const uint32_t src = s2_word(tile, 16);
  int ticket = -1;
  for (uint32_t j = 0; j < count; j++) {
    int64_t k = s2_load(it, idx, (int32_t)j);
    if (k < 0) k += dim;
    k = k < 0 ? 0 : k >= dim ? dim - 1 : k;
    uint8_t *at = out + j * rb;
    if (mode == 0) {
      memcpy(at, table + (uint32_t)k * rb, rb);
    } else {
      ticket = hal_dma_in(at, src + (uint32_t)k * rb, rb, 0, 0);
      if ((j + 1) % DMA_BATCH == 0) s2_wait(ticket);
    }
  }
  s2_wait(ticket);
  return hal_dma_out(out, s2_word(tile, 20), count * rb, 0, 0);
}

/* CacheWrite: pos clamped to [0, R - n]; in place the value rows of the tile's outer indices go straight to rows
   pos.. of each cache block (one 2-D write-back), else they are copied into the fetched cache blocks first. */
static int cache_write(uint8_t *me, const uint8_t *p, const uint8_t *tile) {
  const int64_t last = s2_word(p, 8);
  const uint32_t rb = s2_word(p, 12), in_place = s2_word(p, 16), R = s2_word(p, 20), n = s2_word(p, 24);
  const uint32_t count = s2_word(tile, 0), dst = s2_word(tile, 20);
  int64_t pos = s2_load(s2_word(p, 4), me + s2_word(tile, 4), 0);
  pos = pos < 0 ? 0 : pos > last ? last : pos;
  uint8_t *out = me + s2_word(tile, 8);
  if (in_place) {
    const uint32_t bytes = count * n * rb, to = dst + (uint32_t)pos * rb;
    return count > 1 ? hal_dma_out(out, to, bytes, n * rb, R * rb) : hal_dma_out(out, to, bytes, 0, 0);
  }
  const uint8_t *value = me + s2_word(tile, 12);
  for (uint32_t o = 0; o < count; o++) memcpy(out + (o * R + (uint32_t)pos) * rb, value + o * n * rb, n * rb);
  return hal_dma_out(out, dst, count * R * rb, 0, 0);
}

static int run_tile(uint8_t *me, const uint8_t *p, const uint8_t *tile, int slot_write_back) {
  s2_wait(slot_write_back);
  return s2_word(p, 0) == GATHER ? gather(me, p, tile) : cache_write(me, p, tile);
}

void indexed_run(uint8_t *me, const uint8_t *p, const uint8_t *block) {
  s2_tile_loop(me, p, block, TILE_BYTES, fetch, run_tile);
}
