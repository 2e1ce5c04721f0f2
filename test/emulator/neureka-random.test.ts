/**
 * The N-EUREKA model against the project's reference interpreter on seeded random convolutions: shapes with channel
 * counts that are not multiples of the subtiles and rows/columns that are not multiples of 6, padding 0..2 per side,
 * 1x1 / 3x3 / 3x3 depthwise, 2..8-bit weights, uint8 and int8 inputs, int32 output, 8- and 32-bit scales, ReLU and
 * identity. Weights are encoded with generator/platforms/siracusa/npu/weights.ts and decoded by the emulator from the format
 * description: the two implementations check each other. Outputs must match bit for bit.
 *
 * Reference: Conv (int32 output) and, with norm/quant, RequantShift(mul = scale, add = bias - 2^(s-1), div = 2^s):
 * RequantShift rounds by adding 2^(s-1) while the NPU floors, so the NPU's bias carries the rounding term. Values are
 * drawn so that no intermediate leaves int32 (where the NPU wraps and saturates and the reference does not).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import type { NpuMode } from '../../generator/platforms/siracusa/npu/weights.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { kOf, outShape, runConv, type ConvSpec } from './neureka-driver.js';

interface Case {
  spec: ConvSpec;
  /** weights [co][ci][tap] (depthwise: [c][0][tap]) */
  w: number[][][];
}

function randomCase(rng: Rng, mode: NpuMode): Case {
  const k = kOf(mode);
  const dw = mode === '3x3dw';
  const bits = rng.int(2, 8);
  const cout = rng.int(1, 70);
  const cin = dw ? cout : rng.int(1, 70);
  const pad: [number, number, number, number] = [rng.int(0, 2), rng.int(0, 2), rng.int(0, 2), rng.int(0, 2)];
  // at least one output row and column
  const h = rng.int(Math.max(1, k - pad[0] - pad[2]), 14);
  const w = rng.int(Math.max(1, k - pad[1] - pad[3]), 14);
  // 1x1: the last 6-row (6-column) output subtile must read an input row (column): REMAINDER_HiWi >= 1
  const rem6 = (n: number): number => n - (Math.ceil(n / 6) - 1) * 6;
  if (k === 1 && (rem6(h + pad[0] + pad[2]) <= pad[2] || rem6(w + pad[1] + pad[3]) <= pad[1])) return randomCase(rng, mode);
  const signedIn = rng.next() < 0.5;
  const x = rng.ints(h * w * cin, signedIn ? -128 : 0, signedIn ? 127 : 255);
  const lo = -(1 << (bits - 1));
  const hi = (1 << (bits - 1)) - 1;
  const wts = Array.from({ length: cout }, () => Array.from({ length: dw ? 1 : cin }, () => rng.ints(k * k, lo, hi)));
  return {
    spec: { mode, bits, cin: dw ? 0 : cin, cout, h, w, pad, signedIn, x, weight: (co, ci, tap) => wts[co][ci][tap] },
    w: wts,
  };
}

/** The reference Conv in NCHW; returns int32 HWC. */
function referenceConv(c: Case): number[] {
  const s = c.spec;
  const k = kOf(s.mode);
  const dw = s.mode === '3x3dw';
  const cin = dw ? s.cout : s.cin;
  const xNchw = new Array<number>(cin * s.h * s.w);
  for (let y = 0; y < s.h; y++) for (let x = 0; x < s.w; x++) for (let ch = 0; ch < cin; ch++) xNchw[(ch * s.h + y) * s.w + x] = s.x[(y * s.w + x) * cin + ch];
  const wFlat = c.w.flat(2);
  const [top, right, bottom, left] = s.pad;
  const g = new OnnxBuilder('npu')
    .input('x', s.signedIn ? 'int8' : 'uint8', [1, cin, s.h, s.w])
    .initializer('w', 'int8', [s.cout, dw ? 1 : cin, k, k], wFlat)
    .node('Conv', ['x', 'w'], ['y'], { kernel_shape: [k, k], pads: [top, left, bottom, right], group: dw ? cin : 1 })
    .output('y', 'int32')
    .graph();
  const y = runReference(g, [ndarray(s.signedIn ? 'int8' : 'uint8', [1, cin, s.h, s.w], xNchw)]).get('y') as NDArray;
  const { ho, wo } = outShape(s);
  assert.equal(y.shape, [1, s.cout, ho, wo]);
  const out = new Array<number>(ho * wo * s.cout);
  for (let co = 0; co < s.cout; co++) for (let p = 0; p < ho * wo; p++) out[p * s.cout + co] = y.data[co * ho * wo + p];
  return out;
}

/** RequantShift through the interpreter on the reference accumulators (HWC viewed as [1, P, C]: channel last). */
function referenceRequant(acc: number[], cout: number, mul: number[], add: number[], shift: number, relu: boolean): number[] {
  const p = acc.length / cout;
  const g = new OnnxBuilder('rq')
    .input('acc', 'int32', [1, p, cout])
    .initializer('mul', 'int32', [cout], mul)
    .initializer('add', 'int32', [cout], add)
    .node('RequantShift', ['acc', 'mul', 'add'], ['q'], { div: 2 ** shift, n_levels: 256, signed: relu ? 0 : 1 })
    .output('q', relu ? 'uint8' : 'int8')
    .graph();
  return [...(runReference(g, [ndarray('int32', [1, p, cout], acc)]).get('q') as NDArray).data];
}

const MODES: NpuMode[] = ['1x1', '3x3', '3x3dw'];
const rng = new Rng(0x4e55_5245);
const CASES = 25; // per mode

for (const mode of MODES) {
  test(`${mode}: ${CASES} random convolutions match the reference bit for bit`, async () => {
    for (let n = 0; n < CASES; n++) {
      const c = randomCase(rng, mode);
      const s = c.spec;
      const acc = referenceConv(c);
      const kind = rng.int(0, 3); // 0 int32 output, 1 8-bit scale ReLU, 2 8-bit scale identity, 3 32-bit scale
      const where = () => `case ${n}: ${JSON.stringify({ ...s, x: undefined, weight: undefined, kind })}`;
      if (rng.next() < 0.3) s.wmem = rng.pick([0, 0x20, 0x40_0000, 0x40_0100]);
      if (kind === 0) {
        const r = await runConv(s);
        assert.equal(r.out, acc, where());
        continue;
      }
      const maxAcc = Math.max(1, ...acc.map(Math.abs));
      const scale32 = kind === 3;
      const mulMax = Math.max(1, Math.min(scale32 ? 2 ** 24 : 255, Math.floor(2 ** 29 / maxAcc)));
      const mul = rng.ints(s.cout, 0, mulMax);
      const addMax = 2 ** 24;
      const add = rng.ints(s.cout, -addMax, addMax);
      // a shift that spreads the outputs over the 8-bit range, give or take
      const shift = Math.min(31, Math.max(0, Math.round(Math.log2(maxAcc * Math.max(1, mulMax / 2))) - 7 + rng.int(-2, 1)));
      const relu = kind === 1 ? true : kind === 2 ? false : rng.next() < 0.5;
      const round = shift > 0 ? 2 ** (shift - 1) : 0;
      const perChannel = rng.next() < 0.3;
      s.norm = {
        scale: mul, scale32, bias: add.map((a) => a + round), shift: perChannel ? new Array<number>(s.cout).fill(shift) : shift, relu,
      };
      const expected = referenceRequant(acc, s.cout, mul, add, shift, relu);
      const r = await runConv(s);
      assert.equal(r.out, expected, where());
    }
  });
}

test.run();
