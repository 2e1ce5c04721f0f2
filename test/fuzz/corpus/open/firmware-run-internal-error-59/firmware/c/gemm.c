/* The GEMM layer on a worker, double-buffered (AS twin: as/gemm.ts; parameters and tile descriptors:
   generator/platforms/spinnaker2/gemm-encode.ts, docs/spinnaker2.md "GEMM layer"). */
#include "s2_firmware.h"

#define GEMM_TILE_BYTES 160u
#define CONV_TILE_BYTES 192u
#define MODE_SCALAR 1u
#define MODE_COL 2u
#define MODE_ROW 3u
#define MODE_FULL 4u

static int transfer(uint8_t *me, const uint8_t *d, int to_local) {
  uint8_t *local = me + s2_word(d, DMA_SRAM);
  const uint32_t dram = s2_word(d, DMA_DRAM), bytes = s2_word(d, DMA_BYTES);
  const uint32_t len = s2_word(d, DMA_ROW_LENGTH), stride = s2_word(d, DMA_ROW_STRIDE);
  return to_local ? hal_dma_in(local, dram, bytes, len, stride) : hal_dma_out(local, dram, bytes, len, stride);
}

/* Starts the input transfers of a tile; the ticket of the last one, or -1. */
static int fetch(uint8_t *me, const uint8_t *tile) {
  int ticket = -1;
  const uint32_t n = s2_word(tile, 32);
  for (uint32_t i = 0; i < n; i++) ticket = transfer(me, tile + 36 + i * DMA_SIZE, 1);
  return ticket;
}

static inline int32_t param(uint32_t mode, int32_t scalar, const uint8_t *at, int32_t r, int32_t c, int32_t cols) {
  if (mode == MODE_SCALAR) return scalar;
  if (mode == MODE_COL) return (int32_t)s2_word(at, 4u * (uint32_t)c);
  if (mode == MODE_ROW) return (int32_t)s2_word(at, 4u * (uint32_t)r);
  if (mode == MODE_FULL) return (int32_t)s2_word(at, 4u * (uint32_t)(r * cols + c));
  return 0;
}

static void epilogue(uint8_t *me, const uint8_t *p, const uint8_t *tile, const int32_t *acc, int32_t rows, int32_t cols) {
  const uint32_t flags = s2_word(p, 4);
  const int32_t alpha = (int32_t)s2_word(p, 8);
  const uint32_t bias_mode = s2_word(p, 12), mul_mode = s2_word(p, 20), add_mode = s2_word(p, 28);
  const int32_t bias_scalar = (int32_t)s2_word(p, 16), mul_scalar = (int32_t)s2_word(p, 24), add_scalar = (int32_t)s2_word(p, 32);
  const uint32_t shift = s2_word(p, 36);
  const int64_t lo = (int32_t)s2_word(p, 40), hi = (int32_t)s2_word(p, 44);
  const int requant = (flags & 16u) != 0;
  const uint32_t y_log = (flags >> 8) & 3u;
  const uint8_t *bias = me + s2_word(tile, 16), *mul = me + s2_word(tile, 20), *add = me + s2_word(tile, 24);
  uint8_t *y = me + s2_word(tile, 28);
  const int64_t round = shift > 0 ? (int64_t)1 << (shift - 1) : 0;
  for (int32_t r = 0; r < rows; r++) {
    for (int32_t c = 0; c < cols; c++) {
      const int32_t i = r * cols + c;
      /* int32 wrap-around, as the AS kernel and the MLA's 32-bit results. */
      int32_t v = (int32_t)((uint32_t)acc[i] * (uint32_t)alpha + (uint32_t)param(bias_mode, bias_scalar, bias, r, c, cols));
      if (requant) {
        const int64_t t = ((int64_t)v * param(mul_mode, mul_scalar, mul, r, c, cols) + param(add_mode, add_scalar, add, r, c, cols) + round) >> shift;
        v = (int32_t)(t < lo ? lo : t > hi ? hi : t);
      }
      if (y_log == 0) y[i] = (uint8_t)v;
      else if (y_log == 1) { const uint16_t h = (uint16_t)v; __builtin_memcpy(y + 2 * i, &h, 2); }
      else __builtin_memcpy(y + 4 * i, &v, 4);
    }
  }
}

/* One GEMM tile: the MLA job, then (once tile i-2's write-back has left the output slot) the epilogue and the
   write-back. */
static int gemm_tile(uint8_t *me, const uint8_t *p, const uint8_t *tile, int slot_write_back) {
  const int32_t K = (int32_t)s2_word(p, 0);
  const uint32_t flags = s2_word(p, 4);
  int32_t *acc = (int32_t *)(me + s2_word(p, 48));
  const int32_t rows = (int32_t)s2_word(tile, 0), cols = (int32_t)s2_word(tile, 4);
  const int k_major_a = (flags & 4u) != 0, n_major_b = (flags & 8u) != 0;
  hal_mla_start(me + s2_word(tile, 8), me + s2_word(tile, 12), acc, rows, cols, K,
                k_major_a ? 1 : K, k_major_a ? rows : 1, n_major_b ? 1 : cols, n_major_b ? K : 1, cols * 4,
                (int32_t)(flags & 3u));
  hal_mla_wait();
  s2_wait(slot_write_back);
  epilogue(me, p, tile, acc, rows, cols);
  return transfer(me, tile + 136, 0);
}

/* One conv tile: the GEMM tile with the im2col buffer as B, rebuilt where the tile says so; MaxPool stores the max
   of each column straight to the output slot (no MLA, no epilogue). */
static int conv_tile(uint8_t *me, const uint8_t *p, const uint8_t *tile, int slot_write_back) {
  if (s2_word(tile, 160) != 0) im2col(me, p, tile);
  if (s2_word(p, 112) != 1) return gemm_tile(me, p, tile, slot_write_back);
  s2_wait(slot_write_back);
  pool_max(me, p, tile, me + s2_word(tile, 28));
  return transfer(me, tile + 136, 0);
}

void gemm_run(uint8_t *me, const uint8_t *p, const uint8_t *block) { s2_tile_loop(me, p, block, GEMM_TILE_BYTES, fetch, gemm_tile); }

void conv_run(uint8_t *me, const uint8_t *p, const uint8_t *block) { s2_tile_loop(me, p, block, CONV_TILE_BYTES, fetch, conv_tile); }
