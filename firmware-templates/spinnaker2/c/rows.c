/* The row layer on a worker (AS twin: as/rows.ts): iSoftmax (64-bit; bounded by a run-time position too), ITAMax,
   ITAPartialMax, iRMSNorm, iLayerNorm, ArgMax over rows of the last axis, and the column reductions, tiles of whole rows, double-buffered. Format: generator/platforms/spinnaker2/rows.ts. */
#include "s2_firmware.h"

#define TILE_BYTES 64u

static inline int64_t shift(int64_t v) { return v < 31 ? v : 31; }

/* iSoftmax over entries 0..n-1 of a row of L (n < L: a row bounded by a position); entries n.. are written 0. */
static void isoftmax(const uint8_t *x, uint8_t *y, int32_t L, int32_t n, uint32_t xt, uint32_t yt, const uint8_t *p) {
  const int64_t A = (int32_t)s2_word(p, 16), B = (int32_t)s2_word(p, 20), C = (int32_t)s2_word(p, 24);
  const int64_t log2 = (int32_t)s2_word(p, 28), nm1 = (int64_t)(int32_t)s2_word(p, 32) - 1;
  int64_t mx = s2_load(xt, x, 0), sum = 0;
  for (int32_t j = 1; j < n; j++) mx = s2_load(xt, x, j) > mx ? s2_load(xt, x, j) : mx;
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t j = 0; j < n; j++) {
      const int64_t d = s2_load(xt, x, j) - mx;
      int64_t z = -d / log2;
      z = z < 0 ? 0 : z > 31 ? 31 : z;
      const int64_t q = d + z * log2 + B, e = (A * (q * q) + C) >> z;
      if (pass == 0) {
        sum += e;
      } else {
        const int64_t num = e * nm1;
        int64_t o = num / sum;
        if (num % sum != 0 && (num < 0) != (sum < 0)) o -= 1; /* floor, not truncation */
        s2_store(yt, y, j, o);
      }
    }
  }
  for (int32_t j = n; j < L; j++) s2_store(yt, y, j, 0);
}

/* ArgMax: the first index of the largest entry of a row, stored as the row's one output (element r of y). */
static void argmax(const uint8_t *x, uint8_t *y, int32_t L, uint32_t xt, uint32_t yt, int32_t r) {
  int32_t best = 0;
  int64_t top = s2_load(xt, x, 0);
  for (int32_t j = 1; j < L; j++) {
    const int64_t v = s2_load(xt, x, j);
    if (v > top) { top = v; best = j; }
  }
  s2_store(yt, y, r, best);
}

/* The entries of a row an iSoftmax spans: L, or with a position (params +40: its type code + 1) entries 0..pos,
   pos clamped into the row (FG_ENTRIES_TO of the core platforms). rows_run fetched it into the slot at params +48. */
static int32_t span(const uint8_t *me, const uint8_t *p, int32_t L) {
  const uint32_t t = s2_word(p, 40);
  if (s2_word(p, 0) != 0 || t == 0) return L;
  const int64_t pos = s2_load(t - 1, me + s2_word(p, 48), 0);
  return pos < 0 ? 1 : pos >= L ? L : (int32_t)pos + 1;
}

static void itamax(const uint8_t *x, uint8_t *y, int32_t L, uint32_t xt, uint32_t yt, const uint8_t *p) {
  const int64_t num = ((int64_t)(int32_t)s2_word(p, 32) - 1) * 256;
  int64_t mx = s2_load(xt, x, 0), s = 0;
  for (int32_t j = 1; j < L; j++) mx = s2_load(xt, x, j) > mx ? s2_load(xt, x, j) : mx;
  for (int32_t j = 0; j < L; j++) s += (int64_t)256 >> shift((mx - s2_load(xt, x, j) + 16) >> 5);
  const int64_t inv = num / s;
  for (int32_t j = 0; j < L; j++) s2_store(yt, y, j, inv >> shift((mx - s2_load(xt, x, j) + 16) >> 5));
}

static void itapartialmax(const uint8_t *x, uint8_t *y, int32_t L, uint32_t xt, uint32_t yt, const uint8_t *p) {
  const int32_t gw = (int32_t)s2_word(p, 36);
  const int64_t num = ((int64_t)((int32_t)s2_word(p, 32) / 2) - 1) * 256;
  int64_t g = -128, s = 0;
  for (int32_t k = 0; k + gw <= L; k += gw) {
    int64_t m = s2_load(xt, x, k);
    for (int32_t j = 1; j < gw; j++) m = s2_load(xt, x, k + j) > m ? s2_load(xt, x, k + j) : m;
    if (m > g) {
      s >>= shift((m - g + 16) >> 5);
      g = m;
    }
    for (int32_t j = 0; j < gw; j++) s += (int64_t)256 >> shift((g - s2_load(xt, x, k + j) + 16) >> 5);
  }
  const int64_t inv = num / s;
  for (int32_t j = 0; j < L; j++) {
    const int64_t sh = (g - s2_load(xt, x, j) + 16) >> 5;
    s2_store(yt, y, j, sh < 0 ? 0 : inv >> shift(sh));
  }
}

/* floor(sqrt(v)) for v >= 0, bit by bit (the core has no 64-bit square root). */
static int64_t isqrt64(int64_t v) {
  if (v <= 0) return 0;
  uint64_t x = (uint64_t)v, r = 0, bit = (uint64_t)1 << 62;
  while (bit > x) bit >>= 2;
  for (; bit != 0; bit >>= 2) {
    if (x >= r + bit) { x -= r + bit; r = (r >> 1) + bit; } else r >>= 1;
  }
  return (int64_t)r;
}

/* iRMSNorm: std = isqrt(tdiv(sum x^2, L) + 1); y = clip(tdiv(x*w, std) >> log2(D), -128, 127); weights from +48. */
static void rmsnorm(const uint8_t *x, uint8_t *y, int32_t L, uint32_t xt, uint32_t yt, const uint8_t *p) {
  const uint32_t s = s2_word(p, 40);
  int64_t sq = 0;
  for (int32_t j = 0; j < L; j++) sq += s2_load(xt, x, j) * s2_load(xt, x, j);
  const int64_t std = isqrt64(sq / L + 1);
  for (int32_t j = 0; j < L; j++) {
    const int64_t v = (s2_load(xt, x, j) * (int64_t)(int32_t)s2_word(p, 48 + 4 * (uint32_t)j)) / std >> s;
    s2_store(yt, y, j, v < -128 ? -128 : v > 127 ? 127 : v);
  }
}

/* iLayerNorm: mean = tdiv(sum x, L); std = isqrt(tdiv(sum (x-mean)^2, L) + 1);
   y = wrap8((tdiv((x-mean)*w, std) + b) >> log2(D)); weights from +48, biases after them. */
static void layernorm(const uint8_t *x, uint8_t *y, int32_t L, uint32_t xt, uint32_t yt, const uint8_t *p) {
  const uint32_t s = s2_word(p, 40);
  int64_t sum = 0, sq = 0;
  for (int32_t j = 0; j < L; j++) sum += s2_load(xt, x, j);
  const int64_t mean = sum / L;
  for (int32_t j = 0; j < L; j++) sq += (s2_load(xt, x, j) - mean) * (s2_load(xt, x, j) - mean);
  const int64_t std = isqrt64(sq / L + 1);
  for (int32_t j = 0; j < L; j++) {
    const int64_t w = (int32_t)s2_word(p, 48 + 4 * (uint32_t)j), b = (int32_t)s2_word(p, 48 + 4 * (uint32_t)(L + j));
    const int64_t v = ((s2_load(xt, x, j) - mean) * w / std + b) >> s;
    s2_store(yt, y, j, (int8_t)(uint8_t)(uint64_t)v); /* wrap8: the low byte, signed */
  }
}

/* Variant 4 (generator/platforms/spinnaker2/reduce.ts): R rows of `cols` values; each column's sum, or its mean by
   a rounding shift (mode 1) or a rounded truncating division (mode 2, sign(0) = +1). */
static void reduce_columns(const uint8_t *x, uint8_t *y, int32_t cols, uint32_t xt, uint32_t yt, const uint8_t *p) {
  const int32_t R = (int32_t)s2_word(p, 4);
  const uint32_t mode = s2_word(p, 16), s = s2_word(p, 20);
  for (int32_t c = 0; c < cols; c++) {
    int64_t acc = 0;
    for (int32_t r = 0; r < R; r++) acc += s2_load(xt, x, r * cols + c);
    if (mode == 1) acc = (acc + ((int64_t)1 << (s - 1))) >> s;
    else if (mode == 2) acc = (acc + (acc >= 0 ? R / 2 : -(R / 2))) / R;
    s2_store(yt, y, c, acc);
  }
}

static int transfer(uint8_t *me, const uint8_t *d, int to_local) {
  uint8_t *local = me + s2_word(d, DMA_SRAM);
  const uint32_t len = s2_word(d, DMA_ROW_LENGTH), stride = s2_word(d, DMA_ROW_STRIDE);
  return to_local ? hal_dma_in(local, s2_word(d, DMA_DRAM), s2_word(d, DMA_BYTES), len, stride)
                  : hal_dma_out(local, s2_word(d, DMA_DRAM), s2_word(d, DMA_BYTES), len, stride);
}

static int fetch(uint8_t *me, const uint8_t *tile) { return transfer(me, tile + 16, 1); }

/* One tile of rows, written once tile i-2's write-back has left the output slot. */
static int run_tile(uint8_t *me, const uint8_t *p, const uint8_t *tile, int slot_write_back) {
  const uint32_t variant = s2_word(p, 0), xt = s2_word(p, 8), yt = s2_word(p, 12);
  const int32_t L = (int32_t)s2_word(p, 4);
  const uint32_t xb = s2_type_bytes(xt), yb = s2_type_bytes(yt);
  s2_wait(slot_write_back);
  const int32_t rows = (int32_t)s2_word(tile, 0);
  const uint8_t *x = me + s2_word(tile, 4);
  uint8_t *y = me + s2_word(tile, 8);
  if (variant == 4) {
    reduce_columns(x, y, rows, xt, yt, p);
    return transfer(me, tile + 36, 0);
  }
  if (variant == 6) {
    for (int32_t r = 0; r < rows; r++) argmax(x + (uint32_t)(r * L) * xb, y, L, xt, yt, r);
    return transfer(me, tile + 36, 0);
  }
  const int32_t n = span(me, p, L);
  for (int32_t r = 0; r < rows; r++) {
    const uint8_t *xr = x + (uint32_t)(r * L) * xb;
    uint8_t *yr = y + (uint32_t)(r * L) * yb;
    if (variant == 0) isoftmax(xr, yr, L, n, xt, yt, p);
    else if (variant == 1) itamax(xr, yr, L, xt, yt, p);
    else if (variant == 3) rmsnorm(xr, yr, L, xt, yt, p);
    else if (variant == 5) layernorm(xr, yr, L, xt, yt, p);
    else itapartialmax(xr, yr, L, xt, yt, p);
  }
  return transfer(me, tile + 36, 0);
}

void rows_run(uint8_t *me, const uint8_t *p, const uint8_t *block) {
  /* A bounded iSoftmax's position, before any tile: every row of the layer stops there. */
  if (s2_word(p, 0) == 0 && s2_word(p, 40) != 0) hal_dma_wait(hal_dma_in(me + s2_word(p, 48), s2_word(p, 44), s2_type_bytes(s2_word(p, 40) - 1), 0, 0));
  s2_tile_loop(me, p, block, TILE_BYTES, fetch, run_tile);
}
