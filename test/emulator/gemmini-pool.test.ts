/**
 * Max-pooling on mvout (config_mvout pool fields; docs/gemmini.md): the rows hold an orows x ocols NHWC image, one
 * pixel per row; each output pixel is the max of its window of int8 results (accumulator rows scaled and activated
 * first), a window position in the zero padding counting as 0. Reference loops written from that description.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ACC, accScaleRef, configLd, configSt, DRAM, gemmini, getI8, int8s, mvin, mvout, putI32, putI8 } from './gemmini-driver.js';

interface Window { size: number; stride: number; upad: number; lpad: number; orows: number; ocols: number }

function outDims(w: Window): [number, number] {
  return [Math.floor((w.orows + 2 * w.upad - w.size) / w.stride) + 1, Math.floor((w.ocols + 2 * w.lpad - w.size) / w.stride) + 1];
}

/** pixel(r, c, ch) is the int8 result at that image position. */
function poolRef(w: Window, ch: number, pixel: (r: number, c: number, k: number) => number): number[] {
  const [porows, pocols] = outDims(w);
  const out: number[] = [];
  for (let pr = 0; pr < porows; pr++) {
    for (let pc = 0; pc < pocols; pc++) {
      for (let k = 0; k < ch; k++) {
        let best = -128;
        for (let wr = 0; wr < w.size; wr++) {
          for (let wc = 0; wc < w.size; wc++) {
            const r = pr * w.stride + wr - w.upad;
            const c = pc * w.stride + wc - w.lpad;
            const v = r < 0 || c < 0 || r >= w.orows || c >= w.ocols ? 0 : pixel(r, c, k);
            best = Math.max(best, v);
          }
        }
        out.push(best);
      }
    }
  }
  return out;
}

test('3x3 stride-2 max-pool with padding 1 on a 5x5x3 accumulator image, scaled by 0.5 on the way out', async () => {
  const c = await gemmini();
  const w: Window = { size: 3, stride: 2, upad: 1, lpad: 1, orows: 5, ocols: 5 };
  const ch = 3;
  const img = int8s(25 * ch, 13).map((v) => v * 3);
  // one accumulator row per pixel, 3 int32 channels each
  putI32(c, DRAM, img);
  configLd(c, ch * 4);
  for (let p = 0; p < 25; p += 16) mvin(c, DRAM + p * ch * 4, ACC | (40 + p), ch, Math.min(16, 25 - p));
  const [porows, pocols] = outDims(w);
  configSt(c, ch, 0, 0.5, { ...w, outDim: pocols, porows, pocols });
  mvout(c, DRAM + 0x1000, ACC | 40, ch, 1);
  c.emu.gemmini_fence();
  const want = poolRef(w, ch, (r, col, k) => accScaleRef(img[(r * 5 + col) * ch + k], 0.5, false));
  assert.equal(getI8(c, DRAM + 0x1000, porows * pocols * ch), want);
  // corner windows touch the padding (a 0), so they are never below 0
  assert.ok(want.slice(0, ch).every((v) => v >= 0));
});

test('2x2 stride-2 max-pool of a 4x4x16 scratchpad image, output rows pool_out_dim pixels apart in a wider image', async () => {
  const c = await gemmini();
  const w: Window = { size: 2, stride: 2, upad: 0, lpad: 0, orows: 4, ocols: 4 };
  const img = int8s(16 * 16, 21);
  putI8(c, DRAM, img);
  configLd(c, 16);
  mvin(c, DRAM, 200, 16, 16);
  // the 2x2 result is stored into a 2 x 5 pixel image (pool_out_dim 5), channels 16 bytes apart
  configSt(c, 16, 0, 1, { ...w, outDim: 5, porows: 2, pocols: 2 });
  mvout(c, DRAM + 0x1000, 200, 16, 1);
  c.emu.gemmini_fence();
  const want = poolRef(w, 16, (r, col, k) => img[(r * 4 + col) * 16 + k]);
  for (let pr = 0; pr < 2; pr++) {
    for (let pc = 0; pc < 2; pc++) {
      const got = getI8(c, DRAM + 0x1000 + (pr * 5 + pc) * 16, 16);
      assert.equal(got, want.slice((pr * 2 + pc) * 16, (pr * 2 + pc + 1) * 16), `pixel ${pr},${pc}`);
    }
  }
  // an all-negative window without padding keeps its negative max
  putI8(c, DRAM + 0x2000, new Array<number>(64).fill(-7));
  mvin(c, DRAM + 0x2000, 300, 16, 4);
  configSt(c, 16, 0, 1, { size: 2, stride: 2, upad: 0, lpad: 0, orows: 2, ocols: 2, outDim: 1, porows: 1, pocols: 1 });
  mvout(c, DRAM + 0x3000, 300, 16, 1);
  assert.equal(getI8(c, DRAM + 0x3000, 16), new Array<number>(16).fill(-7));
});

test.run();
