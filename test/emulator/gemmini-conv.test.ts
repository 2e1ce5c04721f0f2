/**
 * loop_conv_ws against a reference convolution written from SEMANTICS.md 3 in this test: NHWC int8 input, HWIO int8
 * weights, int32 bias, C = act(sat_int8(round_half_even(float32(bias + conv) * scale))), optionally max-pooled (a
 * window position in the padding counts as 0, docs/gemmini.md). Each layer is one tile, set up as gemmini.h's
 * tiled_conv / sp_tiled_conv set up a tile: channel counts over 16, several pixels per row (few input channels),
 * stride 2, batches, pooling, depthwise.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  accScaleRef, type Chip, configEx, configSt, DRAM, gemmini, getI8, int8s, type LoopConv, loopConv, putI32, putI8, WS,
} from './gemmini-driver.js';

const X_AT = DRAM + 0x1_0000;
const W_AT = DRAM + 0x4_0000;
const BIAS_AT = DRAM + 0x8_0000;
const Y_AT = DRAM + 0xC_0000;

interface Layer {
  N: number; H: number; W: number; C: number; OC: number; k: number; s: number; p: number;
  bias: boolean; relu: boolean; scale: number;
  pool?: { size: number; stride: number; pad: number };
}

const outDim = (n: number, k: number, s: number, p: number): number => Math.floor((n + 2 * p - k) / s) + 1;

/** The loop's parameters for one tile covering the layer (gemmini.h tiled_conv with one tile per dimension). */
function tile(l: Layer, dw: boolean, addrs: { x: number; w: number; bias: number; y: number }): LoopConv {
  const oh = outDim(l.H, l.k, l.s, l.p);
  const ow = outDim(l.W, l.k, l.s, l.p);
  const ps = l.pool?.size ?? 1;
  const pst = l.pool?.stride ?? 1;
  const pp = l.pool?.pad ?? 0;
  const poh = l.pool ? outDim(oh, ps, pst, pp) : oh;
  const pow = l.pool ? outDim(ow, ps, pst, pp) : ow;
  const span = (po: number, o: number): [number, number, number] => {
    const full = po * pst + ps - 1;
    const lo = pp;
    const hi = Math.max(0, -pp + full - o);
    return [full - lo - hi, lo, hi];
  };
  const [orows, pupad, pdpad] = span(poh, oh);
  const [ocols, plpad, prpad] = span(pow, ow);
  const irows = orows * l.s + l.k - 1;
  const icols = ocols * l.s + l.k - 1;
  const kchs = dw ? 1 : l.C;
  const ochs = dw ? 1 : l.OC;
  return {
    batchSize: l.N, inRowDim: l.H, inColDim: l.W, inChannels: l.C, outChannels: l.OC,
    outRowDim: oh, outColDim: ow, poolOutRowDim: poh, poolOutColDim: pow,
    stride: l.s, padding: l.p, kernelDim: l.k, kernelDilation: 1,
    poolSize: ps, poolStride: pst, poolPadding: pp,
    batches: l.N, porows: poh, pocols: pow, pochs: ochs, krows: l.k, kcols: l.k, kchs,
    lpad: l.p, rpad: Math.max(0, icols - l.p - l.W), upad: l.p, dpad: Math.max(0, irows - l.p - l.H),
    plpad, prpad, pupad, pdpad, orows, ocols,
    weights: addrs.w, output: addrs.y, bias: addrs.bias, input: addrs.x,
    noBias: l.bias ? 0 : 1, noPool: l.pool ? 0 : 1, act: l.relu ? 1 : 0,
    maxPixelsPerRow: kchs > 16 ? 1 : Math.min(Math.floor(16 / kchs), l.k),
    inStride: l.C, weightStride: l.OC, outStride: l.OC, dw: dw ? 1 : 0,
  };
}

/** Reference: y[n][oh][ow][oc] (int8 results), dense or depthwise (w[kh][kw][ic][oc] or w[c][kh][kw]). */
function convRef(l: Layer, x: number[], w: number[], bias: number[], dw: boolean): number[] {
  const oh = outDim(l.H, l.k, l.s, l.p);
  const ow = outDim(l.W, l.k, l.s, l.p);
  const y: number[] = [];
  for (let n = 0; n < l.N; n++) {
    for (let r = 0; r < oh; r++) {
      for (let c = 0; c < ow; c++) {
        for (let oc = 0; oc < l.OC; oc++) {
          let acc = l.bias ? bias[oc] : 0;
          for (let kh = 0; kh < l.k; kh++) {
            for (let kw = 0; kw < l.k; kw++) {
              const ir = r * l.s + kh - l.p;
              const ic0 = c * l.s + kw - l.p;
              if (ir < 0 || ic0 < 0 || ir >= l.H || ic0 >= l.W) continue;
              const px = ((n * l.H + ir) * l.W + ic0) * l.C;
              if (dw) acc = (acc + Math.imul(x[px + oc], w[(oc * l.k + kh) * l.k + kw])) | 0;
              else for (let ic = 0; ic < l.C; ic++) acc = (acc + Math.imul(x[px + ic], w[((kh * l.k + kw) * l.C + ic) * l.OC + oc])) | 0;
            }
          }
          y.push(accScaleRef(acc, l.scale, l.relu));
        }
      }
    }
  }
  if (!l.pool) return y;
  const { size, stride, pad } = l.pool;
  const ph = outDim(oh, size, stride, pad);
  const pw = outDim(ow, size, stride, pad);
  const out: number[] = [];
  for (let n = 0; n < l.N; n++) {
    for (let pr = 0; pr < ph; pr++) {
      for (let pc = 0; pc < pw; pc++) {
        for (let oc = 0; oc < l.OC; oc++) {
          let best = -128;
          for (let i = 0; i < size; i++) {
            for (let j = 0; j < size; j++) {
              const r = pr * stride + i - pad;
              const c = pc * stride + j - pad;
              best = Math.max(best, r < 0 || c < 0 || r >= oh || c >= ow ? 0 : y[((n * oh + r) * ow + c) * l.OC + oc]);
            }
          }
          out.push(best);
        }
      }
    }
  }
  return out;
}

function run(c: Chip, l: Layer, dw: boolean): { x: number[]; w: number[]; bias: number[] } {
  const x = int8s(l.N * l.H * l.W * l.C, l.H * 7 + l.C);
  const w = int8s(dw ? l.C * l.k * l.k : l.k * l.k * l.C * l.OC, l.OC * 3 + l.k);
  const bias = int8s(l.OC, 5).map((v) => v * 40);
  putI8(c, X_AT, x);
  putI8(c, W_AT, w);
  putI32(c, BIAS_AT, bias);
  configEx(c, { dataflow: WS, aStride: l.s });
  configSt(c, l.OC, l.relu ? 1 : 0, l.scale);
  if (dw) {
    // one loop per channel, as gemmini.h's depthwise path: each its input column, weights, bias and output column
    for (let ch = 0; ch < l.C; ch++) {
      loopConv(c, tile(l, true, { x: X_AT + ch, w: W_AT + ch * l.k * l.k, bias: BIAS_AT + ch * 4, y: Y_AT + ch }));
    }
  } else {
    loopConv(c, tile(l, false, { x: X_AT, w: W_AT, bias: BIAS_AT, y: Y_AT }));
  }
  c.emu.gemmini_fence();
  return { x, w, bias };
}

const layers: [string, Layer, boolean][] = [
  ['9x9x20 -> 24, 3x3, pad 1, bias, ReLU (channel blocks of 16 and 4)', { N: 1, H: 9, W: 9, C: 20, OC: 24, k: 3, s: 1, p: 1, bias: true, relu: true, scale: 0.002 }, false],
  ['2 x 11x11x4 -> 8, 5x5, stride 2, no bias (4 pixels per row)', { N: 2, H: 11, W: 11, C: 4, OC: 8, k: 5, s: 2, p: 0, bias: false, relu: false, scale: 0.004 }, false],
  ['19x18x3 -> 5, 3x3, pad 1: 18 output columns (two pixel blocks per row)', { N: 1, H: 19, W: 18, C: 3, OC: 5, k: 3, s: 1, p: 1, bias: true, relu: true, scale: 0.01 }, false],
  ['8x8x5 -> 12, 3x3, pad 1, then 3x3 stride-2 max-pool pad 1', { N: 1, H: 8, W: 8, C: 5, OC: 12, k: 3, s: 1, p: 1, bias: true, relu: true, scale: 0.008, pool: { size: 3, stride: 2, pad: 1 } }, false],
  ['depthwise 7x7x3, 3x3, pad 1 (one loop per channel)', { N: 1, H: 7, W: 7, C: 3, OC: 3, k: 3, s: 1, p: 1, bias: true, relu: false, scale: 0.05 }, true],
];

for (const [name, l, dw] of layers) {
  test(`loop_conv_ws ${name}: equal to the reference`, async () => {
    const c = await gemmini();
    const { x, w, bias } = run(c, l, dw);
    const want = convRef(l, x, w, bias, dw);
    assert.equal(getI8(c, Y_AT, want.length), want);
    assert.ok(new Set(want).size > 8, 'the outputs are not degenerate');
  });
}

test.run();
