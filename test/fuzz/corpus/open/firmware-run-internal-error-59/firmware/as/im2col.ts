// The conv layer's im2col: from the input patch in SRAM (the tile's channels x input rows x W), the buffer B of
// the MLA job, [K][pixels] with k = (ci, ky, kx) and pixel = (output row, output column); zero where a tap falls
// in the padding. Format: generator/platforms/spinnaker2/conv-plan.ts.

import { compute } from "./hal/chip";
import { COPY_BYTE, ELEMENT } from "./hal/cost";
import { word } from "./elements";

export function im2col(me: usize, p: usize, tile: usize): void {
  const CIG = <i32>word(p, 64);
  const KH = <i32>word(p, 68);
  const KW = <i32>word(p, 72);
  const SY = <i32>word(p, 76);
  const SX = <i32>word(p, 80);
  const DY = <i32>word(p, 84);
  const DX = <i32>word(p, 88);
  const PT = <i32>word(p, 92);
  const PL = <i32>word(p, 96);
  const H = <i32>word(p, 100);
  const W = <i32>word(p, 104);
  const OW = <i32>word(p, 108);
  const cols = <i32>word(tile, 4);
  const col = me + <usize>word(tile, 12);
  const patch = me + <usize>word(tile, 164);
  const oh0 = <i32>word(tile, 168);
  const ih0 = <i32>word(tile, 172);
  const rows = <i32>word(tile, 176);
  const nh = cols / OW;
  const fill = <u8>word(p, 116);
  for (let ci = 0; ci < CIG; ci++) {
    for (let ky = 0; ky < KH; ky++) {
      for (let kx = 0; kx < KW; kx++) {
        const dst = col + <usize>(((ci * KH + ky) * KW + kx) * cols);
        for (let r = 0; r < nh; r++) {
          const ih = (oh0 + r) * SY - PT + ky * DY;
          const out = dst + <usize>(r * OW);
          if (ih < 0 || ih >= H) {
            memory.fill(out, fill, <usize>OW);
            continue;
          }
          const src = patch + <usize>((ci * rows + ih - ih0) * W);
          for (let ow = 0; ow < OW; ow++) {
            const iw = ow * SX - PL + kx * DX;
            store<u8>(out + <usize>ow, iw >= 0 && iw < W ? load<u8>(src + <usize>iw) : fill);
          }
        }
      }
    }
  }
  compute(COPY_BYTE, CIG * KH * KW * cols);
}

/** MaxPool: each output is the max of its im2col column (K taps), signed or unsigned as the input (flags bit 1). */
export function pool_max(me: usize, p: usize, tile: usize, y: usize): void {
  const K = <i32>word(p, 0);
  const signed = (word(p, 4) & 2) != 0;
  const cols = <i32>word(tile, 4);
  const col = me + <usize>word(tile, 12);
  for (let j = 0; j < cols; j++) {
    let m: i32 = signed ? <i32>load<i8>(col + <usize>j) : <i32>load<u8>(col + <usize>j);
    for (let k = 1; k < K; k++) {
      const at = col + <usize>(k * cols + j);
      m = max(m, signed ? <i32>load<i8>(at) : <i32>load<u8>(at));
    }
    store<u8>(y + <usize>j, <u8>m);
  }
  compute(ELEMENT, K * cols);
}
