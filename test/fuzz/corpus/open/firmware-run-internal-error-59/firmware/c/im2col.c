/* The conv layer's im2col (AS twin: as/im2col.ts): from the input patch in SRAM, the MLA's B buffer [K][pixels],
   k = (ci, ky, kx), zero where a tap falls in the padding. Format: generator/platforms/spinnaker2/conv-plan.ts. */
#include <string.h>
#include "s2_firmware.h"

void im2col(uint8_t *me, const uint8_t *p, const uint8_t *tile) {
  const int32_t CIG = (int32_t)s2_word(p, 64), KH = (int32_t)s2_word(p, 68), KW = (int32_t)s2_word(p, 72);
  const int32_t SY = (int32_t)s2_word(p, 76), SX = (int32_t)s2_word(p, 80), DY = (int32_t)s2_word(p, 84), DX = (int32_t)s2_word(p, 88);
  const int32_t PT = (int32_t)s2_word(p, 92), PL = (int32_t)s2_word(p, 96), H = (int32_t)s2_word(p, 100), W = (int32_t)s2_word(p, 104);
  const int32_t OW = (int32_t)s2_word(p, 108), cols = (int32_t)s2_word(tile, 4);
  uint8_t *col = me + s2_word(tile, 12);
  const uint8_t *patch = me + s2_word(tile, 164);
  const int32_t oh0 = (int32_t)s2_word(tile, 168), ih0 = (int32_t)s2_word(tile, 172), rows = (int32_t)s2_word(tile, 176);
  const int32_t nh = cols / OW;
  const uint8_t fill = (uint8_t)s2_word(p, 116);
  for (int32_t ci = 0; ci < CIG; ci++)
    for (int32_t ky = 0; ky < KH; ky++)
      for (int32_t kx = 0; kx < KW; kx++) {
        uint8_t *dst = col + ((ci * KH + ky) * KW + kx) * cols;
        for (int32_t r = 0; r < nh; r++) {
          const int32_t ih = (oh0 + r) * SY - PT + ky * DY;
          uint8_t *out = dst + r * OW;
          if (ih < 0 || ih >= H) {
            memset(out, fill, (size_t)OW);
            continue;
          }
          const uint8_t *src = patch + (ci * rows + ih - ih0) * W;
          for (int32_t ow = 0; ow < OW; ow++) {
            const int32_t iw = ow * SX - PL + kx * DX;
            out[ow] = iw >= 0 && iw < W ? src[iw] : fill;
          }
        }
      }
}

/* MaxPool: each output is the max of its im2col column, signed or unsigned as the input (flags bit 1). */
void pool_max(uint8_t *me, const uint8_t *p, const uint8_t *tile, uint8_t *y) {
  const int32_t K = (int32_t)s2_word(p, 0), cols = (int32_t)s2_word(tile, 4);
  const int is_signed = (s2_word(p, 4) & 2u) != 0;
  const uint8_t *col = me + s2_word(tile, 12);
  for (int32_t j = 0; j < cols; j++) {
    int32_t m = is_signed ? (int8_t)col[j] : col[j];
    for (int32_t k = 1; k < K; k++) {
      const int32_t v = is_signed ? (int8_t)col[k * cols + j] : col[k * cols + j];
      m = v > m ? v : m;
    }
    y[j] = (uint8_t)m;
  }
}
