/* The movement layer on a worker (AS twin: as/movement.ts): copies of boxes through a dense staging buffer, two
   staging slots. Format: generator/platforms/spinnaker2/movement.ts. */
#include "s2_firmware.h"

#define TILE_BYTES 128u
#define FILL 255u

static int fetch(uint8_t *me, const uint8_t *tile) {
  if (s2_word(tile, 68) == 0) return -1;
  return hal_dma_in(me + s2_word(tile, 76), s2_word(tile, 72), s2_word(tile, 80), 0, 0);
}

/* Gathers the tile into its staging buffer, once the write-backs of tile i-2 (which used the same staging slot) are
   done; returns the ticket of its last write-back. */
static int copy(uint8_t *me, const uint8_t *p, const uint8_t *tile, int slot_write_back) {
  (void)p;
  const uint32_t rows = s2_word(tile, 0), d1 = s2_word(tile, 4), d2 = s2_word(tile, 8), d3 = s2_word(tile, 12);
  const uint32_t st = s2_word(tile, 16), dt = s2_word(tile, 20);
  const uint32_t s0 = s2_word(tile, 24), s1 = s2_word(tile, 28), s2 = s2_word(tile, 32), s3 = s2_word(tile, 36);
  const int32_t fill = (int32_t)s2_word(tile, 56);
  const uint8_t *src = me + s2_word(tile, 60);
  uint8_t *staging = me + s2_word(tile, 64), *at = staging;
  const uint32_t sb = s2_type_bytes(st), db = s2_type_bytes(dt);
  s2_wait(slot_write_back);
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
  s2_tile_loop(me, p, block, TILE_BYTES, fetch, copy);
}
