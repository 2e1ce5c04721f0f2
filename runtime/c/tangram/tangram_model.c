/* A functional model of the Tangram engines for host tests of the C firmware's engine path (firmgen_tangram.h with
   FG_TANGRAM_MODEL): it reads the per-engine programs the generator writes (generator/platforms/tangram/programs.ts,
   segment-programs.ts; the layout the emulator's engine model reads, emulator/assembly/tangram/engines.ts) and
   computes what their COMPUTE, STEP and FINISH commands compute, on the host's memory. No timing: the engines run in
   turn, each as far as its next RECV of a message not yet sent, so a step reads only what its producers have
   finished, as on the engines; products add into the output (or a requantized layer's int32 accumulators) modulo
   the element's width, exact in any order. A program it cannot read stops the run with one line (exit 3). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tangram/firmgen_tangram.h"

#define MAGIC 0x54474d31
#define HEADER 48
#define ENGINE 14
#define COMMAND 4
#define LAYER 42
#define ARGS 7
enum { OP_LOAD = 1, OP_WAIT_LOADS, OP_COMPUTE, OP_SEND, OP_RECV, OP_STORE, OP_STEP, OP_FINISH };

static const int32_t *P;
static int32_t FB, ACC_BASE;
static int32_t *acc;
static const void *X, *Wt, *B, *MUL, *ADD, *X2;
static void *Y;

static void fail(const char *why, long v) {
  fprintf(stderr, "tangram model: %s %ld\n", why, v);
  exit(3);
}

static int32_t fw(int32_t i) { return P[FB + i]; }
static int32_t dim(int32_t i) { return fw(12 + i); }
static int32_t eng(int32_t e, int32_t i) { return P[HEADER + e * ENGINE + i]; }

/* Element i of kind 0 int8, 1 uint8, 2 int16, 3 int32, 4 uint16 (programs.ts ELEMENT_KINDS). */
static int32_t element(const void *base, int64_t i, int32_t kind) {
  switch (kind) {
    case 0: return ((const int8_t *)base)[i];
    case 1: return ((const uint8_t *)base)[i];
    case 2: return ((const int16_t *)base)[i];
    case 4: return ((const uint16_t *)base)[i];
    default: return ((const int32_t *)base)[i];
  }
}

/* Adds v into element i, wrapping at its width (partial sums of several engines; the final sum fits the type). */
static void add_into(void *base, int64_t i, int32_t kind, int32_t v) {
  if (kind == 0 || kind == 1) ((uint8_t *)base)[i] = (uint8_t)(((uint8_t *)base)[i] + (uint32_t)v);
  else if (kind == 2 || kind == 4) ((uint16_t *)base)[i] = (uint16_t)(((uint16_t *)base)[i] + (uint32_t)v);
  else ((int32_t *)base)[i] = (int32_t)((uint32_t)((int32_t *)base)[i] + (uint32_t)v);
}

static void set_zero(void *base, int64_t i, int32_t kind) {
  if (kind == 0 || kind == 1) ((uint8_t *)base)[i] = 0;
  else if (kind == 2 || kind == 4) ((uint16_t *)base)[i] = 0;
  else ((int32_t *)base)[i] = 0;
}

/* Row oh of sample n lies in the rows [f0, f1) of the block from sample n0, row h0, hb rows a sample. */
static int in_band(int32_t n, int32_t oh, int32_t n0, int32_t h0, int32_t hb, int32_t f0, int32_t f1) {
  const int32_t f = (n - n0) * hb + (oh - h0);
  return f >= f0 && f < f1;
}

/* An engine's block (its record's words 4..13): samples, output channels, input channels, rows, columns. */
typedef struct { int32_t n0, n1, k0, k1, c0, c1, h0, h1, w0, w1; } block_t;

static block_t block_of(int32_t e) {
  const block_t b = { eng(e, 4), eng(e, 5), eng(e, 6), eng(e, 7), eng(e, 8), eng(e, 9), eng(e, 10), eng(e, 11), eng(e, 12), eng(e, 13) };
  return b;
}

static void compute_block(int32_t e, int32_t f0, int32_t f1) {
  const int32_t R = dim(5), S = dim(6), sh = dim(7), sw = dim(8), pt = dim(9), pl = dim(10), H = dim(11), Wd = dim(12);
  const int32_t xn = fw(25), xc = fw(26), xh = fw(27), xw = fw(28), wk = fw(29), wc = fw(30), wr = fw(31), ws = fw(32);
  const int32_t yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  const int bias = fw(37) != 0, requant = fw(43) != 0;
  const int32_t xKind = fw(38), wKind = fw(39), bKind = fw(40), yKind = fw(42), K = dim(1), HO = dim(3), WO = dim(4);
  const block_t bk = block_of(e);
  const int32_t n0 = bk.n0, n1 = bk.n1, k0 = bk.k0, k1 = bk.k1, c0 = bk.c0, c1 = bk.c1, h0 = bk.h0, h1 = bk.h1, w0 = bk.w0, w1 = bk.w1;
  for (int32_t n = n0; n < n1; n++)
    for (int32_t k = k0; k < k1; k++)
      for (int32_t oh = h0; oh < h1; oh++) {
        if (!in_band(n, oh, n0, h0, h1 - h0, f0, f1)) continue;
        for (int32_t ow = w0; ow < w1; ow++) {
          uint32_t s = bias && c0 == 0 ? (uint32_t)element(B, k, bKind) : 0;
          for (int32_t c = c0; c < c1; c++)
            for (int32_t r = 0; r < R; r++) {
              const int32_t ih = oh * sh - pt + r;
              if (ih < 0 || ih >= H) continue;
              for (int32_t q = 0; q < S; q++) {
                const int32_t iw = ow * sw - pl + q;
                if (iw < 0 || iw >= Wd) continue;
                s += (uint32_t)(element(X, (int64_t)n * xn + (int64_t)c * xc + (int64_t)ih * xh + (int64_t)iw * xw, xKind) *
                                element(Wt, (int64_t)k * wk + (int64_t)c * wc + (int64_t)r * wr + (int64_t)q * ws, wKind));
              }
            }
          if (requant) {
            int32_t *a = &acc[ACC_BASE + (((int64_t)n * K + k) * HO + oh) * WO + ow];
            *a = (int32_t)((uint32_t)*a + s);
          } else {
            add_into(Y, (int64_t)n * yn + (int64_t)k * yk + (int64_t)oh * yh + (int64_t)ow * yw, yKind, (int32_t)s);
          }
        }
      }
}

/* SEMANTICS.md RequantShift, clip((v*mul + add + 2^(s-1)) >> s), in 64 bits, channel q's parameters. */
static int64_t requant_one(int64_t v, int32_t q, const void *mul, const void *add) {
  const int32_t shift = fw(43) - 1;
  const int64_t m = element(mul, (fw(46) & 1) ? q : 0, fw(46) >> 1);
  const int64_t d = element(add, (fw(47) & 1) ? q : 0, fw(47) >> 1);
  const int64_t round = shift > 0 ? (int64_t)1 << (shift - 1) : 0;
  const int64_t r = (v * m + d + round) >> shift;
  return r < fw(44) ? fw(44) : r > fw(45) ? fw(45) : r;
}

static void requantize(int32_t n0, int32_t n1, int32_t k0, int32_t k1, int32_t h0, int32_t h1, int32_t w0, int32_t w1,
                       int32_t f0, int32_t f1) {
  const int32_t K = dim(1), HO = dim(3), WO = dim(4), yKind = fw(42);
  const int32_t yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  for (int32_t n = n0; n < n1; n++)
    for (int32_t q = k0; q < k1; q++)
      for (int32_t i = h0; i < h1; i++) {
        if (!in_band(n, i, n0, h0, h1 - h0, f0, f1)) continue;
        for (int32_t j = w0; j < w1; j++) {
          const int64_t v = acc[ACC_BASE + (((int64_t)n * K + q) * HO + i) * WO + j];
          const int64_t at = (int64_t)n * yn + (int64_t)q * yk + (int64_t)i * yh + (int64_t)j * yw;
          set_zero(Y, at, yKind);
          add_into(Y, at, yKind, (int32_t)requant_one(v, q, MUL, ADD));
        }
      }
}

static void pool_block(int32_t e, int32_t f0, int32_t f1) {
  const int32_t R = dim(5), S = dim(6), sh = dim(7), sw = dim(8), pt = dim(9), pl = dim(10), H = dim(11), Wd = dim(12);
  const int32_t xn = fw(25), xc = fw(26), xh = fw(27), xw = fw(28), yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  const int32_t kind = fw(38);
  const block_t bk = block_of(e);
  const int32_t n0 = bk.n0, n1 = bk.n1, k0 = bk.k0, k1 = bk.k1, h0 = bk.h0, h1 = bk.h1, w0 = bk.w0, w1 = bk.w1;
  for (int32_t n = n0; n < n1; n++)
    for (int32_t k = k0; k < k1; k++)
      for (int32_t oh = h0; oh < h1; oh++) {
        if (!in_band(n, oh, n0, h0, h1 - h0, f0, f1)) continue;
        for (int32_t ow = w0; ow < w1; ow++) {
          int32_t m = kind == 0 ? -128 : 0;
          for (int32_t r = 0; r < R; r++) {
            const int32_t ih = oh * sh - pt + r;
            if (ih < 0 || ih >= H) continue;
            for (int32_t q = 0; q < S; q++) {
              const int32_t iw = ow * sw - pl + q;
              if (iw < 0 || iw >= Wd) continue;
              const int32_t v = element(X, (int64_t)n * xn + (int64_t)k * xc + (int64_t)ih * xh + (int64_t)iw * xw, kind);
              if (v > m) m = v;
            }
          }
          ((uint8_t *)Y)[(int64_t)n * yn + (int64_t)k * yk + (int64_t)oh * yh + (int64_t)ow * yw] = (uint8_t)m;
        }
      }
}

/* A segment's element-wise layer: clip(requant(x)), or (kind 4) requant(x * sx + x2 * sx2), scalar scales at w and b. */
static void elt_block(int32_t e, int32_t f0, int32_t f1) {
  const int two = fw(10) == 4, requant = fw(43) != 0, clip = fw(48) != 0;
  const int64_t sx = two ? element(Wt, 0, fw(39)) : 1, sx2 = two ? element(B, 0, fw(40)) : 0;
  const int32_t x2Kind = fw(37), xKind = fw(38), yKind = fw(42);
  const int32_t xn = fw(25), xc = fw(26), xh = fw(27), xw = fw(28), yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  const int64_t lo = fw(49), hi = fw(50);
  const block_t bk = block_of(e);
  const int32_t n0 = bk.n0, n1 = bk.n1, k0 = bk.k0, k1 = bk.k1, h0 = bk.h0, h1 = bk.h1, w0 = bk.w0, w1 = bk.w1;
  for (int32_t n = n0; n < n1; n++)
    for (int32_t k = k0; k < k1; k++)
      for (int32_t oh = h0; oh < h1; oh++) {
        if (!in_band(n, oh, n0, h0, h1 - h0, f0, f1)) continue;
        for (int32_t ow = w0; ow < w1; ow++) {
          const int64_t at = (int64_t)n * xn + (int64_t)k * xc + (int64_t)oh * xh + (int64_t)ow * xw;
          int64_t v = element(X, at, xKind);
          if (two) v = v * sx + (int64_t)element(X2, at, x2Kind) * sx2;
          if (requant) v = requant_one(v, k, MUL, ADD);
          if (clip) v = v < lo ? lo : v > hi ? hi : v;
          const int64_t to = (int64_t)n * yn + (int64_t)k * yk + (int64_t)oh * yh + (int64_t)ow * yw;
          set_zero(Y, to, yKind);
          add_into(Y, to, yKind, (int32_t)v);
        }
      }
}

/* Zeroes what the operation at FB sums into: a product's output, or its accumulators when it is requantized. */
static void prepare(void) {
  const int32_t kind = fw(10);
  if (kind != 1) return;
  if (fw(43) != 0) {
    memset(&acc[ACC_BASE], 0, (size_t)dim(0) * dim(1) * dim(3) * dim(4) * sizeof(int32_t));
    return;
  }
  for (int32_t n = 0; n < dim(0); n++)
    for (int32_t k = 0; k < dim(1); k++)
      for (int32_t i = 0; i < dim(3); i++)
        for (int32_t j = 0; j < dim(4); j++) set_zero(Y, (int64_t)n * fw(33) + (int64_t)k * fw(34) + (int64_t)i * fw(35) + (int64_t)j * fw(36), fw(42));
}

static int32_t layers, layerTable;
static void *const *table;

/* Makes segment layer l's record the operation and its table row the operands. */
static void use_layer(int32_t l) {
  FB = layerTable + l * LAYER - 10;
  ACC_BASE = fw(51);
  X = table[l * ARGS];
  Wt = table[l * ARGS + 1];
  B = table[l * ARGS + 2];
  Y = table[l * ARGS + 3];
  MUL = table[l * ARGS + 4];
  ADD = table[l * ARGS + 5];
  X2 = table[l * ARGS + 6];
}

static int32_t layer_of(int32_t e) {
  for (int32_t l = 0; l < layers; l++) {
    const int32_t first = P[layerTable + l * LAYER + 1];
    if (e >= first && e < first + P[layerTable + l * LAYER + 31]) return l;
  }
  fail("an engine of no segment layer:", e);
  return -1;
}

/* Runs every engine's commands, each as far as an unsent message, until all are done (see the file comment). */
static void run(int32_t words, int segment) {
  if (words < HEADER || P[0] != MAGIC) fail("not an engine program (bad magic or size), words", words);
  const int32_t engines = P[1], messages = P[9];
  if (P[10] == 0) fail("a timing-only program (no arithmetic), functional kind", P[10]);
  uint8_t *sent = calloc((size_t)messages + 1, 1);
  int32_t *pc = calloc((size_t)engines, sizeof(int32_t));
  // accumulators: a requantized product's whole sums (per segment layer at its own base)
  int64_t need = 0;
  if (segment) {
    for (int32_t l = 0; l < layers; l++) {
      use_layer(l);
      if (fw(10) == 1 && fw(43) != 0) need = need > ACC_BASE + (int64_t)dim(0) * dim(1) * dim(3) * dim(4) ? need : ACC_BASE + (int64_t)dim(0) * dim(1) * dim(3) * dim(4);
    }
  } else if (P[10] == 1 && P[43] != 0) {
    need = (int64_t)P[12] * P[13] * P[15] * P[16];
  }
  acc = calloc((size_t)need + 1, sizeof(int32_t));
  if (!sent || !pc || !acc) fail("out of memory for a program of engines", engines);
  if (segment) {
    for (int32_t l = 0; l < layers; l++) {
      use_layer(l);
      prepare();
    }
  } else {
    prepare();
  }
  for (int progress = 1; progress;) {
    progress = 0;
    for (int32_t e = 0; e < engines; e++) {
      for (; pc[e] < eng(e, 3); pc[e]++) {
        const int32_t *cmd = &P[eng(e, 2) + pc[e] * COMMAND];
        const int32_t op = cmd[0], a2 = cmd[2], a3 = cmd[3];
        if ((op == OP_RECV || op == OP_SEND) && (a3 < 0 || a3 >= messages)) fail("message id out of range:", a3);
        if (op == OP_RECV && !sent[a3]) break;
        if (op == OP_SEND) sent[a3] = 1;
        else if (op == OP_COMPUTE && a2 != 0) {
          if (segment) fail("a whole-block compute in a segment, engine", e);
          if (P[10] == 2) pool_block(e, 0, dim(0) * dim(3));
          else compute_block(e, 0, dim(0) * dim(3));
        } else if (op == OP_STEP || op == OP_FINISH) {
          if (!segment) fail("a pipeline step outside a segment, engine", e);
          use_layer(layer_of(e));
          if (op == OP_FINISH) requantize(eng(e, 4), eng(e, 5), eng(e, 6), eng(e, 7), eng(e, 10), eng(e, 11), eng(e, 12), eng(e, 13), a2, a3);
          else if (fw(10) == 1) compute_block(e, a2, a3);
          else if (fw(10) == 2) pool_block(e, a2, a3);
          else elt_block(e, a2, a3);
        } else if (op < OP_LOAD || op > OP_FINISH) {
          fail("unknown command", op);
        }
        progress = 1;
      }
    }
  }
  for (int32_t e = 0; e < engines; e++) {
    if (pc[e] < eng(e, 3)) fail("every remaining engine waits for a message never sent (deadlock); engine", e);
  }
  if (!segment && P[10] == 1 && P[43] != 0) requantize(0, dim(0), 0, dim(1), 0, dim(3), 0, dim(4), 0, dim(0) * dim(3));
  free(sent);
  free(pc);
  free(acc);
}

void fg_tangram_run(const int32_t *program, int32_t words, const void *x, const void *w, const void *b, void *y,
                    const void *mul, const void *add) {
  P = program;
  FB = 0;
  ACC_BASE = 0;
  X = x, Wt = w, B = b, Y = y, MUL = mul, ADD = add, X2 = 0;
  run(words, 0);
}

void fg_tangram_run_segment(const int32_t *program, int32_t words, void *const *args) {
  P = program;
  if (words < HEADER || P[10] != 3) fail("not a segment program, functional kind", words < HEADER ? -1 : P[10]);
  layers = P[12];
  layerTable = P[13];
  table = args;
  run(words, 1);
}
