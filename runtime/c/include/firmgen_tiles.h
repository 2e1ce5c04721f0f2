/* The tile loop's table walker (format: generator/midend/tiling/table.ts; the AS twin is runtime/as/tiles.ts).
   Called by the core that drives the DMA of a tiled layer; kernels never see the table. */
#ifndef FIRMGEN_TILES_H
#define FIRMGEN_TILES_H
#include <stdint.h>
#include "firmgen_hal.h"

#define FG_TILE_WORDS 5

/* The tile loop's record walkers stay out of line: a network's tiled layers share one copy (gcc keeps it apart once
   two layers call it), and a network of one tiled layer, such as a calibration layer of the cost fit, compiles its
   layer function as a network's does (inlined there, the walkers, the issue twice and the load, put ~500 bytes on
   every calibration layer's compiled size that the fit measures: docs/timing.md "The fit"). */
#if defined(__GNUC__)
#define FG_TILE_SHARED __attribute__((noinline))
#else
#define FG_TILE_SHARED
#endif

static inline int32_t fg_tile_count(const int32_t *table) { return table[0]; }

static inline const int32_t *fg_tile_record(const int32_t *table, int32_t t) {
  return (const int32_t *)((const uint8_t *)table + table[1 + t]);
}

static inline int32_t fg_tile_instance(const int32_t *table, int32_t t) { return fg_tile_record(table, t)[0]; }

/* Address of operand k's L1 buffer for tile t. */
static inline void *fg_tile_ptr(const int32_t *table, int32_t t, int32_t k, uint8_t *l1) {
  return l1 + fg_tile_record(table, t)[3 + k];
}

/* The transfers of one record (fg_tile_record, or its copy from fg_tile_load): tile t's changed inputs (fetch) or its
   output (store), on one channel; the channel, or -1 if none. */
static inline FG_TILE_SHARED int fg_tile_issue_record(const int32_t *r, int32_t n_operands, int store, uint8_t *arena, uint8_t *l1) {
  const int32_t n_fetch = r[1], n_store = r[2];
  const int32_t n = store ? n_store : n_fetch;
  if (n == 0) return -1;
  const int32_t *p = r + 3 + n_operands + (store ? n_fetch * FG_TILE_WORDS : 0);
  const int ch = hal_dma_channel_alloc();
  for (int32_t i = 0; i < n; i++, p += FG_TILE_WORDS) {
    /* A negative stride spreads the rows in L1 instead (padded conv filters, off their neighbours' banks). */
    if (p[3] == 0) hal_dma_copy_1d(ch, l1 + p[1], arena + p[0], p[2], !store);
    else if (p[3] > 0) hal_dma_copy_2d(ch, l1 + p[1], arena + p[0], p[2], p[3], p[4], !store);
    else hal_dma_copy_2d_l1(ch, l1 + p[1], arena + p[0], p[2], -p[3], p[4], !store);
  }
  return ch;
}

static inline int fg_tile_issue(const int32_t *table, int32_t t, int32_t n_operands, int store, uint8_t *arena, uint8_t *l1) {
  return fg_tile_issue_record(fg_tile_record(table, t), n_operands, store, arena, l1);
}

/* Tile t's record where the cores read it fast: the table sits in L2 (a cluster core pays ~20 cycles a word, 5 words
   per transfer), so the driving core copies the record to fg_l1_records[t & 1] in L1 by one DMA transfer and waits for
   it (about 14 + bytes / 8 cycles); FG_TILE_HERE(table, t) is then where every core reads it (tile t's copy stays while
   t+1's is made in the other buffer). Without the L1 buffers (NETWORK_L1_RECORD_WORDS 0: no tiles, or they did not
   fit beside the tile buffers) the record is read in the table. */
#ifndef NETWORK_L1_RECORD_WORDS
#define NETWORK_L1_RECORD_WORDS 0
#endif
#if NETWORK_L1_RECORD_WORDS > 0
#define FG_TILE_HERE(table, t) ((const int32_t *)fg_l1_records[(t) & 1])
static inline FG_TILE_SHARED void fg_tile_load(const int32_t *table, int32_t t, int32_t n_operands) {
  const int32_t *r = fg_tile_record(table, t);
  const int32_t words = 3 + n_operands + (r[1] + r[2]) * FG_TILE_WORDS;
  const int ch = hal_dma_channel_alloc();
  hal_dma_copy_1d(ch, fg_l1_records[t & 1], (void *)r, words * 4, 1);
  hal_dma_wait(ch);
  hal_dma_channel_free(ch);
}
#else
#define FG_TILE_HERE(table, t) fg_tile_record((table), (t))
static inline void fg_tile_load(const int32_t *table, int32_t t, int32_t n_operands) {
  (void)table;
  (void)t;
  (void)n_operands;
}
#endif

/* Starts the transfers of tile t's changed inputs (fetch) or of its output (store); the channel, or -1 if none. */
static inline int fg_tile_fetch(const int32_t *table, int32_t t, int32_t n_operands, uint8_t *arena, uint8_t *l1) {
  return fg_tile_issue(table, t, n_operands, 0, arena, l1);
}

static inline int fg_tile_store(const int32_t *table, int32_t t, int32_t n_operands, uint8_t *arena, uint8_t *l1) {
  return fg_tile_issue(table, t, n_operands, 1, arena, l1);
}

static inline void fg_tile_wait(int ch) {
  if (ch < 0) return;
  hal_dma_wait(ch);
  hal_dma_channel_free(ch);
}

#endif
