/* The movement layer on a worker (AS twin: as/movement.ts): copies of boxes through a dense staging buffer, two
   staging slots. Format: generator/platforms/spinnaker2/movement.ts. */
#include "s2_firmware.h"

#define TILE_BYTES 128u
#define FILL 255u

static int fetch(uint8_t *me, const uint8_t *tile) {
  if (s2_word(tile, 68) == 0) return -1;
  return hal_dma_in(me + s2_word(tile, 76), s2_word(tile, 72), s2_word(tile, 80), 0, 0);
}

/* Gathers the tile into its staging buffer; returns the ticket of its last write-back. */
static int copy(uint8_t *me, const uint8_t *tile) {
  const uint32_t rows = s2_word(tile, 0), d1 = s2_word(tile, 4), d2 = s2_word(tile, 8), d3 = s2_word(tile, 12);
  const uint32_t st = s2_word(tile, 16), dt = s2_word(tile, 20);
  const uint32_t s0 = s2_word(tile, 24), s1 = s2_word(tile, 28), s2 = s2_word(tile, 32), s3 = s2_word(tile, 36);
  const int32_t fill = (int32_t)s2_word(tile, 56);
  const uint8_t *src = me + s2_word(tile, 60);
  uint8_t *staging = me + s2_word(tile, 64), *at = staging;
  const uint32_t sb = s2_type_bytes(st), db = s2_type_bytes(dt);
  for (uint32_t i = 0; i < rows; i++)
    for (uint32_t j1 = 0; j1 < d1; j1++)
      for (uint32_t j2 = 0; j2 < d2; j2++)
        for (uint32_t j3 = 0; j3 < d3; j3++, at += db)
          s2_store(dt, at, 0, st == FILL ? fill : s2_load(st, src + (i * s0 + j1 * s1 + j2 * s2 + j3 * s3) * sb, 0));
  const uint32_t dst = s2_word(tile, 92), run = d2 * d3 * db;
  if (s2_word(tile, 96) != 0) return hal_dma_out(staging, dst, rows * d1 * run, 0, 0);
  int ticket = -1;
  for (uint32_t i = 0; i < rows; i++)
    for (uint32_t j1 = 0; j1 < d1; j1++) {
      const uint32_t to = dst + (i * s2_word(tile, 40) + j1 * s2_word(tile, 44)) * db;
      const uint8_t *from = staging + (i * d1 + j1) * run;
      ticket = d2 > 1 ? hal_dma_out(from, to, run, d3 * db, s2_word(tile, 48) * db) : hal_dma_out(from, to, run, 0, 0);
    }
  return ticket;
}

void move_run(uint8_t *me, const uint8_t *p, const uint8_t *block) {
  (void)p;
  const int32_t tiles = (int32_t)s2_word(block, WORKER_TILES);
  int in_next = fetch(me, block + WORKER_FIRST);
  int out_prev = -1, out_prev2 = -1;
  for (int32_t i = 0; i < tiles; i++) {
    const uint8_t *tile = block + WORKER_FIRST + (uint32_t)i * TILE_BYTES;
    if (in_next >= 0) hal_dma_wait(in_next);
    in_next = i + 1 < tiles ? fetch(me, tile + TILE_BYTES) : -1;
    /* Tile i reuses the staging slot of tile i-2: its write-backs must be done. */
    if (out_prev2 >= 0) hal_dma_wait(out_prev2);
    out_prev2 = out_prev;
    out_prev = copy(me, tile);
  }
  if (out_prev >= 0) hal_dma_wait(out_prev);
}
