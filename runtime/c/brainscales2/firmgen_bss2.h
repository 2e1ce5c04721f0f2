/* BrainScaleS-2's analog core as the generated C calls it (docs/brainscales2.md "The C firmware").
 *
 * fg_bss2_chip / fg_bss2_configure / fg_bss2_run are the three things the layer code asks of the chip. On the real
 * system they are the host's calls into the chip's software stack (writing synapse blocks over the FPGA link, sending
 * the input events and reading the neurons); that binding is not written yet. Here they are a C model of the analog
 * core with the arithmetic of the emulator and of the generator's reference (generator/platforms/brainscales2/
 * analog/), in the same order, so the host build gives the emulated outputs bit for bit. The model needs IEEE
 * double arithmetic without contraction into fused multiply-adds (GCC: fp-contract off below). */
#ifndef FIRMGEN_BSS2_H
#define FIRMGEN_BSS2_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define FG_BSS2_EXACT __attribute__((optimize("fp-contract=off")))
#else
#define FG_BSS2_EXACT
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define FG_BSS2_ARRAYS 2
#define FG_BSS2_ROWS 128
#define FG_BSS2_COLS 256
/* ASSUMPTION figures of the fixed pattern: generator/platforms/brainscales2/analog/constants.ts */
#define FG_BSS2_SYNAPSE_GAIN_SPREAD 0.05
#define FG_BSS2_NEURON_GAIN_SPREAD 0.05
#define FG_BSS2_NEURON_OFFSET_STD 1.0
#define FG_BSS2_SEED_SALT 0x9e3779b9u

static int8_t fg_bss2_weight[FG_BSS2_ARRAYS][FG_BSS2_ROWS][FG_BSS2_COLS];
static double fg_bss2_eff[FG_BSS2_ARRAYS][FG_BSS2_ROWS][FG_BSS2_COLS];
static double fg_bss2_gain[FG_BSS2_ARRAYS][FG_BSS2_COLS];
static double fg_bss2_offset[FG_BSS2_ARRAYS][FG_BSS2_COLS];
static uint32_t fg_bss2_seed;
static int fg_bss2_pattern = -1;
static double fg_bss2_noise_std;
static uint32_t fg_bss2_noise;

/* The "lowbias32" hash (Wellons' hash-prospector multipliers) and xorshift32 (Marsaglia 2003). */
static uint32_t fg_bss2_mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  return h ^ (h >> 16);
}

/* Irwin-Hall: twelve uniforms k / 2^32 summed, minus 6 (exact in double); *state advances. */
static double FG_BSS2_EXACT fg_bss2_gauss(uint32_t *state) {
  uint32_t x = *state;
  double s = 0.0;
  for (int i = 0; i < 12; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s += (double)x / 4294967296.0;
  }
  *state = x;
  return s - 6.0;
}

static double fg_bss2_keyed(uint32_t kind, int32_t array, int32_t row, int32_t col) {
  uint32_t state = fg_bss2_mix(fg_bss2_mix(fg_bss2_seed ^ FG_BSS2_SEED_SALT) ^
    ((kind << 17) | ((uint32_t)array << 16) | ((uint32_t)row << 8) | (uint32_t)col)) | 1u;
  return fg_bss2_gauss(&state);
}

static void FG_BSS2_EXACT fg_bss2_refresh(int32_t a, int32_t r, int32_t c) {
  const int32_t w = fg_bss2_weight[a][r][c];
  const double g = fg_bss2_pattern ? 1.0 + FG_BSS2_SYNAPSE_GAIN_SPREAD * fg_bss2_keyed(0, a, 2 * r + (w < 0 ? 1 : 0), c) : 1.0;
  fg_bss2_eff[a][r][c] = (double)w * g;
}

static void FG_BSS2_EXACT fg_bss2_chip(uint32_t seed, int32_t pattern, uint32_t noise_seed, double noise_std) {
  const int changed = seed != fg_bss2_seed || (pattern != 0) != fg_bss2_pattern;
  fg_bss2_seed = seed;
  fg_bss2_pattern = pattern != 0;
  fg_bss2_noise_std = noise_std;
  fg_bss2_noise = fg_bss2_mix(fg_bss2_mix(noise_seed ^ FG_BSS2_SEED_SALT) ^ (3u << 17)) | 1u;
  for (int32_t a = 0; a < FG_BSS2_ARRAYS; a++) {
    for (int32_t c = 0; c < FG_BSS2_COLS; c++) {
      fg_bss2_gain[a][c] = fg_bss2_pattern ? 1.0 + FG_BSS2_NEURON_GAIN_SPREAD * fg_bss2_keyed(1, a, 0, c) : 1.0;
      fg_bss2_offset[a][c] = fg_bss2_pattern ? FG_BSS2_NEURON_OFFSET_STD * fg_bss2_keyed(2, a, 0, c) : 0.0;
    }
  }
  if (changed) {
    for (int32_t a = 0; a < FG_BSS2_ARRAYS; a++)
      for (int32_t r = 0; r < FG_BSS2_ROWS; r++)
        for (int32_t c = 0; c < FG_BSS2_COLS; c++) fg_bss2_refresh(a, r, c);
  }
}

static void fg_bss2_fail(const char *what) {
  fprintf(stderr, "brainscales2: %s\n", what);
  exit(3);
}

static void fg_bss2_configure(int32_t array, int32_t row0, int32_t col0, int32_t rows, int32_t cols, const int8_t *w, int32_t stride) {
  if (fg_bss2_pattern < 0) fg_bss2_fail("configure before fg_bss2_chip");
  if (array < 0 || array >= FG_BSS2_ARRAYS || row0 < 0 || rows < 1 || row0 + rows > FG_BSS2_ROWS || col0 < 0 || cols < 1 || col0 + cols > FG_BSS2_COLS) {
    fg_bss2_fail("configure: block outside the synapse arrays");
  }
  for (int32_t r = 0; r < rows; r++) {
    for (int32_t c = 0; c < cols; c++) {
      const int8_t v = w[r * stride + c];
      if (v < -63 || v > 63) fg_bss2_fail("configure: weight outside [-63, 63]");
      fg_bss2_weight[array][row0 + r][col0 + c] = v;
      fg_bss2_refresh(array, row0 + r, col0 + c);
    }
  }
}

static void FG_BSS2_EXACT fg_bss2_run(int32_t array, int32_t row0, int32_t col0, int32_t rows, int32_t cols, const uint8_t *x, int8_t *y, int32_t num_sends, int32_t wait, double gain) {
  (void)wait; /* timing only: the host build does not count time */
  if (fg_bss2_pattern < 0) fg_bss2_fail("run before fg_bss2_chip");
  if (array < 0 || array >= FG_BSS2_ARRAYS || row0 < 0 || rows < 1 || row0 + rows > FG_BSS2_ROWS || col0 < 0 || cols < 1 || col0 + cols > FG_BSS2_COLS) {
    fg_bss2_fail("run: block outside the synapse arrays");
  }
  for (int32_t r = 0; r < rows; r++) {
    if (x[r] > 31) fg_bss2_fail("run: input outside [0, 31]");
  }
  for (int32_t c = 0; c < cols; c++) {
    double dot = 0.0;
    for (int32_t r = 0; r < rows; r++) dot += (double)x[r] * fg_bss2_eff[array][row0 + r][col0 + c];
    double v = dot * (double)num_sends * gain;
    v = v * fg_bss2_gain[array][col0 + c] + fg_bss2_offset[array][col0 + c];
    if (fg_bss2_noise_std != 0.0) v = v + fg_bss2_noise_std * fg_bss2_gauss(&fg_bss2_noise);
    double f = (double)(int64_t)v; /* floor without libm: |v| is far below 2^63 */
    if (f > v) f -= 1.0;
    y[c] = (int8_t)(f < -128.0 ? -128 : f > 127.0 ? 127 : (int32_t)f);
  }
}

#endif
