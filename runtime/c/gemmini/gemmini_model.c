/* A functional model of the Gemmini commands firmgen's C issues (firmgen_gemmini.h with FG_GEMMINI_MODEL), for host
   tests of the command path: it decodes the same fields as the emulator (emulator/assembly/gemmini/, docs/gemmini.md)
   and computes their results on the host's memory, in the accumulator's rows where the firmware addresses them.
   Modelled: config_ex (weight-stationary), config_ld (int32 or int8 rows into the accumulator; any stride), config_st
   (no activation, scale 1.0; max-pooling), mvin into the accumulator, mvout of accumulator rows raw or at scale 1.0
   (max-pooled too), loop_ws (no residual add or activation) and loop_conv_ws (depthwise too) without bias, output or
   pooling. Anything
   else stops the program with one line naming it (exit 3): a command the generated code does not issue. No timing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIM 16
#define ACC_ROWS 1024
#define SCALE_ONE 0x3f800000u

static int32_t acc[ACC_ROWS][DIM];
/* mvin states 0..2: main-memory stride (bytes), int8 rows (shrunk); store: stride (bytes). */
static uint64_t ld_stride[3];
static int ld_shrunk[3];
static uint64_t st_stride;
/* config_mvout's max-pooling (stride 0: none), gemmini.h's field names. */
static uint32_t pool_stride, pool_size, pool_upad, pool_lpad, pool_out_dim, pool_porows, pool_pocols, pool_orows, pool_ocols;
/* loop_ws configuration (funct 9..13). */
static uint32_t ws_I, ws_J, ws_K, ws_pad_I, ws_pad_J, ws_pad_K;
static uint64_t ws_A, ws_B, ws_D, ws_C, ws_sA, ws_sB, ws_sD, ws_sC;
/* loop_conv_ws configuration (funct 16..21, gemmini.h's field names). */
static uint32_t in_row_dim, in_col_dim, in_channels, stride, kernel_dim, kernel_dilation, batches, orows, ocols, ochs;
static uint32_t krows, kcols, kchs, lpad, rpad, upad, dpad, in_stride, weight_stride;
static uint64_t cv_weights, cv_output, cv_bias, cv_input;

static void unsupported(const char *what) {
  fprintf(stderr, "gemmini model: %s is not modelled (not issued by firmgen's C)\n", what);
  exit(3);
}

static uint32_t f16(uint64_t v, int lo) { return (uint32_t)((v >> lo) & 0xffff); }
static uint32_t f8(uint64_t v, int lo) { return (uint32_t)((v >> lo) & 0xff); }
static const int8_t *i8(uint64_t a) { return (const int8_t *)(uintptr_t)a; }
static int32_t sat8(int32_t v) { return v > 127 ? 127 : v < -128 ? -128 : v; }

static int32_t *acc_row(uint32_t local, uint32_t r) {
  const uint32_t row = (local & 0x1fffffffu) + r;
  if (row >= ACC_ROWS) unsupported("an accumulator row past 1023");
  return acc[row];
}

static void config(uint64_t rs1, uint64_t rs2) {
  const uint32_t kind = rs1 & 3;
  if (kind == 0) {
    if (((rs1 >> 2) & 1) != 1) unsupported("the output-stationary dataflow");
    if (((rs1 >> 3) & 3) != 0) unsupported("an activation in the array");
  } else if (kind == 1) {
    const uint32_t id = (rs1 >> 3) & 3;
    if (id > 2) unsupported("mvin state 3");
    if ((uint32_t)(rs1 >> 32) != SCALE_ONE) unsupported("an mvin scale other than 1.0");
    if (f8(rs1, 8) > 1) unsupported("pixel repeats on a host-issued mvin");
    ld_stride[id] = rs2;
    ld_shrunk[id] = (rs1 >> 2) & 1;
  } else if (kind == 2) {
    if (((rs1 >> 2) & 3) != 0) unsupported("an activation on mvout");
    if ((uint32_t)(rs2 >> 32) != SCALE_ONE) unsupported("an output scale other than 1.0");
    st_stride = rs2 & 0xffffffffu;
    pool_stride = (rs1 >> 4) & 3, pool_size = (rs1 >> 6) & 3, pool_upad = (rs1 >> 8) & 3, pool_lpad = (rs1 >> 10) & 3;
    pool_out_dim = f8(rs1, 24), pool_porows = f8(rs1, 32), pool_pocols = f8(rs1, 40);
    pool_orows = f8(rs1, 48), pool_ocols = f8(rs1, 56);
    if (pool_stride == 0 && (rs1 >> 6) != 0) unsupported("pooling fields without a pool stride");
  } else {
    unsupported("config_norm");
  }
}

/* mvin into the accumulator: int32 rows (or int8, shrunk), overwrite or accumulate (bit 30); address 0 moves zeros. */
static void mvin(int id, uint64_t dram, uint64_t op) {
  const uint32_t local = (uint32_t)op, cols = f16(op, 32), rows = f16(op, 48);
  if (!(local & 0x80000000u)) unsupported("a host-issued mvin into the scratchpad");
  if (cols > DIM || rows > DIM) unsupported("an accumulator mvin over 16 rows or columns");
  for (uint32_t r = 0; r < rows; r++) {
    int32_t *row = acc_row(local, r);
    for (uint32_t c = 0; c < cols; c++) {
      int32_t v = 0;
      if (dram != 0) {
        const uint8_t *p = (const uint8_t *)(uintptr_t)(dram + r * ld_stride[id]);
        if (ld_shrunk[id]) v = ((const int8_t *)p)[c];
        else memcpy(&v, p + 4 * c, 4);
      }
      row[c] = (local & 0x40000000u) ? row[c] + v : v;
    }
  }
}

/* Max-pooled mvout: the rows from `local` hold a pool_orows x pool_ocols image, a pixel a row; each output pixel is the
   max of its window of int8 results (scale 1.0, saturated), a position outside the image counting as 0; written at
   dram + (porow * pool_out_dim + pocol) * stride. The rows field is not used. */
static void mvout_pooled(uint64_t dram, uint32_t local, uint32_t cols) {
  if (local & 0x20000000u) unsupported("max-pooling raw int32 rows");
  if (cols == 0 || cols > DIM) unsupported("a pooled mvout of 0 or over 16 channels");
  for (uint32_t pr = 0; pr < pool_porows; pr++) {
    for (uint32_t pc = 0; pc < pool_pocols; pc++) {
      int8_t *p = (int8_t *)(uintptr_t)(dram + (pr * pool_out_dim + pc) * st_stride);
      for (uint32_t c = 0; c < cols; c++) {
        int32_t best = -128;
        for (uint32_t wr = 0; wr < pool_size; wr++) {
          for (uint32_t wc = 0; wc < pool_size; wc++) {
            const int32_t r = (int32_t)(pr * pool_stride + wr) - (int32_t)pool_upad;
            const int32_t q = (int32_t)(pc * pool_stride + wc) - (int32_t)pool_lpad;
            const int inside = r >= 0 && q >= 0 && r < (int32_t)pool_orows && q < (int32_t)pool_ocols;
            const int32_t v = inside ? sat8(acc_row(local, (uint32_t)(r * (int32_t)pool_ocols + q))[c]) : 0;
            if (v > best) best = v;
          }
        }
        p[c] = (int8_t)best;
      }
    }
  }
}

/* mvout of accumulator rows: int32 raw (bit 29) or int8 at scale 1.0 (saturated); max-pooled when configured. */
static void mvout(uint64_t dram, uint64_t op) {
  const uint32_t local = (uint32_t)op, cols = f16(op, 32), rows = f16(op, 48);
  if (!(local & 0x80000000u)) unsupported("an mvout from the scratchpad");
  if (pool_stride != 0) {
    mvout_pooled(dram, local, cols);
    return;
  }
  if (cols > DIM || rows > DIM) unsupported("an accumulator mvout over 16 rows or columns");
  for (uint32_t r = 0; r < rows; r++) {
    const int32_t *row = acc_row(local & ~0x60000000u, r);
    uint8_t *p = (uint8_t *)(uintptr_t)(dram + r * st_stride);
    for (uint32_t c = 0; c < cols; c++) {
      if (local & 0x20000000u) memcpy(p + 4 * c, &row[c], 4);
      else ((int8_t *)p)[c] = (int8_t)sat8(row[c]);
    }
  }
}

/* An element of a loop_ws operand: block (bi, bk) at base + (bi * stride + bk) * 16 elements, rows at the mvin state's
   stride (docs/gemmini.md "loop_ws"); transposed operands hold their blocks (bk, bi). */
static int32_t ws_operand(uint64_t base, uint64_t blocks_stride, uint64_t row_stride, int transposed, uint32_t i, uint32_t k) {
  if (transposed) {
    const uint32_t t = i;
    i = k;
    k = t;
  }
  return i8(base + ((i / DIM) * blocks_stride + k / DIM) * DIM + (i % DIM) * row_stride)[k % DIM];
}

/* loop_ws: C = A.B + D over the tile, the sums kept in accumulator rows (block (i, j) at rows (i * J + j) * 16) so that
   a later loop with ex_accumulate adds onto them, as the hardware's do. */
static void loop_ws(uint64_t rs1, uint64_t rs2) {
  const int ex_acc = rs1 & 1, full_c = (rs1 >> 1) & 1, low_d = (rs1 >> 2) & 1;
  const int a_t = rs2 & 1, b_t = (rs2 >> 1) & 1;
  if (((rs1 >> 8) & 7) != 0) unsupported("an activation on loop_ws");
  if ((rs2 >> 2) != 0) unsupported("loop_ws residual add");
  const uint32_t M = ws_I * DIM - ws_pad_I, N = ws_J * DIM - ws_pad_J, K = ws_K * DIM - ws_pad_K;
  if (ws_I * ws_J * DIM > ACC_ROWS / 2) unsupported("a loop_ws tile over half the accumulator");
  for (uint32_t i = 0; i < M; i++) {
    for (uint32_t j = 0; j < N; j++) {
      int32_t *a = &acc[((i / DIM) * ws_J + j / DIM) * DIM + i % DIM][j % DIM];
      if (ws_D != 0) {
        const uint64_t p = ws_D + ((i / DIM) * ws_sD + j / DIM) * DIM * (low_d ? 1 : 4) + (i % DIM) * ld_stride[2];
        if (low_d) *a = i8(p)[j % DIM];
        else memcpy(a, (const void *)(uintptr_t)(p + 4 * (j % DIM)), 4);
      } else if (!ex_acc) {
        *a = 0;
      }
      int32_t s = *a;
      for (uint32_t k = 0; k < K; k++) {
        s += ws_operand(ws_A, ws_sA, ld_stride[0], a_t, i, k) * ws_operand(ws_B, ws_sB, ld_stride[1], b_t, k, j);
      }
      *a = s;
      if (ws_C != 0) {
        uint8_t *c = (uint8_t *)(uintptr_t)(ws_C + ((i / DIM) * ws_sC + j / DIM) * DIM * (full_c ? 4 : 1) + (i % DIM) * st_stride);
        if (full_c) memcpy(c + 4 * (j % DIM), &s, 4);
        else ((int8_t *)c)[j % DIM] = (int8_t)sat8(s);
      }
    }
  }
}

/* loop_conv_ws without bias or output: each output pixel's sums added onto its accumulator row, output-channel blocks
   batches x orows x ocols rows apart from row 0 (the half the loop uses when it moves nothing out). */
static void loop_conv(uint64_t rs1, uint64_t rs2) {
  if (cv_bias != 0 || cv_output != 0) unsupported("loop_conv_ws moving a bias in or results out");
  if ((rs1 & 0x3e) != 0) unsupported("loop_conv_ws wrot180 or transposes");
  const int dw = (rs1 >> 6) & 1;
  if ((rs2 & 6) != 0) unsupported("loop_conv_ws downsampling or input dilation");
  const uint32_t dil = kernel_dilation ? kernel_dilation : 1;
  const int32_t irows = (int32_t)(orows * stride + (krows - 1) * dil), icols = (int32_t)(ocols * stride + (kcols - 1) * dil);
  const int32_t irows_in = irows - (int32_t)(upad + dpad), icols_in = icols - (int32_t)(lpad + rpad);
  const uint32_t plane = batches * orows * ocols;
  if (((ochs + DIM - 1) / DIM) * plane > ACC_ROWS / 2) unsupported("a loop_conv_ws tile over half the accumulator");
  for (uint32_t b = 0; b < batches; b++) {
    for (uint32_t orow = 0; orow < orows; orow++) {
      for (uint32_t ocol = 0; ocol < ocols; ocol++) {
        for (uint32_t och = 0; och < ochs; och++) {
          int32_t s = 0;
          for (uint32_t kr = 0; kr < krows; kr++) {
            const int32_t ir = (int32_t)(orow * stride + kr * dil) - (int32_t)upad;
            if (ir < 0 || ir >= irows_in) continue;
            for (uint32_t kc = 0; kc < kcols; kc++) {
              const int32_t ic = (int32_t)(ocol * stride + kc * dil) - (int32_t)lpad;
              if (ic < 0 || ic >= icols_in) continue;
              const int8_t *x = i8(cv_input + ((b * in_row_dim + (uint32_t)ir) * in_col_dim + (uint32_t)ic) * in_stride);
              if (dw) {
                /* depthwise: one channel, its taps in a row (read with stride 1) */
                s += x[0] * i8(cv_weights + kr * kernel_dim + kc)[0];
                continue;
              }
              const int8_t *w = i8(cv_weights + (kr * kernel_dim * in_channels + kc * in_channels) * weight_stride + och);
              for (uint32_t c = 0; c < kchs; c++) s += x[c] * w[c * weight_stride];
            }
          }
          acc[(och / DIM) * plane + (b * orows + orow) * ocols + ocol][och % DIM] += s;
        }
      }
    }
  }
}

static void loop_conv_config(int funct, uint64_t rs1, uint64_t rs2) {
  switch (funct) {
    case 16:
      in_row_dim = f16(rs1, 16);
      in_channels = f16(rs1, 32);
      stride = f8(rs2, 48);
      break;
    case 17:
      kernel_dim = f16(rs1, 48);
      batches = f16(rs2, 48);
      ochs = f16(rs2, 0);
      if (f16(rs2, 32) != 0 && f16(rs1, 16) > 1) unsupported("loop_conv_ws pooling");
      break;
    case 18:
      krows = f16(rs1, 48);
      kcols = f16(rs1, 32);
      kchs = f16(rs1, 16);
      lpad = f16(rs1, 0);
      rpad = f16(rs2, 48);
      upad = f16(rs2, 32);
      dpad = f8(rs2, 24);
      in_col_dim = f16(rs2, 0);
      break;
    case 19:
      orows = f16(rs1, 48);
      kernel_dilation = f8(rs1, 0);
      in_stride = f16(rs2, 48);
      weight_stride = f16(rs2, 32);
      ocols = f16(rs2, 0);
      break;
    case 20:
      cv_weights = rs1;
      cv_output = rs2;
      break;
    default:
      cv_bias = rs1;
      cv_input = rs2;
      break;
  }
}

void fg_gemmini_model(int funct, uint64_t rs1, uint64_t rs2) {
  switch (funct) {
    case 0: config(rs1, rs2); break;
    case 2: mvin(0, rs1, rs2); break;
    case 1: mvin(1, rs1, rs2); break;
    case 14: mvin(2, rs1, rs2); break;
    case 3: mvout(rs1, rs2); break;
    case 8: loop_ws(rs1, rs2); break;
    case 9:
      ws_I = f16(rs2, 0), ws_J = f16(rs2, 16), ws_K = f16(rs2, 32);
      ws_pad_I = f16(rs1, 0), ws_pad_J = f16(rs1, 16), ws_pad_K = f16(rs1, 32);
      break;
    case 10: ws_A = rs1, ws_B = rs2; break;
    case 11: ws_D = rs1, ws_C = rs2; break;
    case 12: ws_sA = rs1, ws_sB = rs2; break;
    case 13: ws_sD = rs1, ws_sC = rs2; break;
    case 15: loop_conv(rs1, rs2); break;
    case 16: case 17: case 18: case 19: case 20: case 21: loop_conv_config(funct, rs1, rs2); break;
    default: unsupported("this command (preload, compute, flush, counters)");
  }
}
