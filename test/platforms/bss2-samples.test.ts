/**
 * BrainScaleS-2's num_sends from calibration samples (generator/platforms/brainscales2/mapping.ts sampleSpread,
 * samples.ts; docs/brainscales2.md "Mapping"). The expected values are worked by hand from the documented rule: per
 * output value the peak (the total of the block sums held to the interval the layer's output can tell apart; where
 * the total lies inside, each block sum too), zeros left out, the peak at rank count - floor(count / 20) times 1.1 at
 * the int8 edge: num_sends = floor(127 / (spread * 0.002)).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { outputPeaks, sampledInputShift, sampleSpread, usefulSums, weightShrink } from '../../generator/platforms/brainscales2/mapping.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { runFirmware } from '../../runtime/node/run.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-bss2-samples-'));

/**
 * x uint8 [1, 130] (k = 3: x5 = (x + 4) >> 3) by B int8 [130, 1], B[0] = 100, B[128] = -100, else 0: the 6-bit
 * weights are 63 at row 0 and -63 at row 128 (scale 0.63), one in each row block. RequantShift mul 1, add 0, div 16,
 * uint8 (a ReLU). No inputs.npz beside it: the input's range is uint8's.
 */
function model(): string {
  const dir = join(work, 'm');
  mkdirSync(dir, { recursive: true });
  const w = new Array<number>(130).fill(0);
  w[0] = 100;
  w[128] = -100;
  const b = new OnnxBuilder('bss2_samples').input('x', 'uint8', [1, 130])
    .initializer('w', 'int8', [130, 1], w)
    .node('Gemm', ['x', 'w'], ['acc'])
    .initializer('m', 'int32', [1], [1])
    .initializer('a', 'int32', [1], [0])
    .node('RequantShift', ['acc', 'm', 'a'], ['y'], { div: float(16), n_levels: float(256), signed: float(0) })
    .output('y', 'float32');
  const file = join(dir, 'model.onnx');
  writeFileSync(file, b.bytes());
  return file;
}

/** Samples [count, 130]: each sets x[0] and x[128] (bytes) and leaves the rest 0. */
function samples(pairs: [number, number, number][]): ReturnType<typeof ndarray> {
  const count = pairs.reduce((c, p) => c + p[2], 0);
  const a = ndarray('uint8', [count, 130]);
  let i = 0;
  for (const [x0, x128, times] of pairs) {
    for (let t = 0; t < times; t++, i++) {
      a.data[i * 130] = x0;
      a.data[i * 130 + 128] = x128;
    }
  }
  return a;
}

const sendsOf = (opts: Record<string, unknown>): number => {
  const c = compileModel({ model: model(), platform: 'brainscales2', ...opts });
  const n = referenceGraph(c.platform, c.graph).nodes.find((x) => x.op === 'Bss2Matmul')!;
  return (n.attrs.num_sends as { value: number }).value;
};

test('num_sends from the samples, worked by hand', () => {
  // x5 = (x + 4) >> 3: byte 248 -> 31, 80 -> 10, 32 -> 4. Block sums 63 * x5[0] and -63 * x5[128].
  // Useful interval of the total (uint8 output, mul 1, add 0, shift 4, bias 0, k 3, scale 0.63):
  //   lo = (0 * 16 - 8) * 0.63 / 8 = -0.63, hi = (255 * 16 - 8) * 0.63 / 8 = 320.67.
  // A (1x): 31, 31: blocks 1953 and -1953, total 0 inside: peak 1953 (a block, though the total is 0)
  // B (5x): 0, 10: total -630 below lo: peak 0.63 (a ReLU's negative sum: clipped, it changes nothing)
  // C (15x): 4, 0: total 252 inside: peak 252
  // D (4x): 0, 0: peak 0, left out
  // 21 peaks, floor(21 / 20) = 1 may lie above: rank 20 of [0.63 x5, 252 x15, 1953] = 252 (1953 may clip)
  // spread 252 * 1.1 = 277.2; num_sends = floor(127 / (277.2 * 0.002)) = floor(229.08) = 229
  const x = samples([[248, 248, 1], [0, 80, 5], [32, 0, 15], [0, 0, 4]]);
  assert.is(sendsOf({ analogSamples: [x] }), 229);
  // the same samples from a file
  const file = join(work, 'samples.npz');
  writeFileSync(file, encodeNpz(new Map([['x', x]])));
  assert.is(sendsOf({ analogSamples: file }), 229);
  // without samples: the input-free bound, 3 * 18 * 63 = 3402 per block: floor(127 / (3402 * 0.002)) = 18
  assert.is(sendsOf({}), 18);
});

test('the peaks and the rank rule, by hand', () => {
  // x5 [2, 130]: row 0 sets rows 0 and 128 to 2 and 3; row 1 sets row 1 to 5. w [130, 2]: column 0 has 10 at rows
  // 0 and 1 and -20 at row 128; column 1 has 1 at row 128.
  const x5 = new Array<number>(260).fill(0);
  x5[0] = 2;
  x5[128] = 3;
  x5[130 + 1] = 5;
  const w = new Array<number>(260).fill(0);
  w[0 * 2] = 10;
  w[1 * 2] = 10;
  w[128 * 2] = -20;
  w[128 * 2 + 1] = 1;
  const wide = { lo: [-1e9, -1e9], hi: [1e9, 1e9] };
  // row 0: column 0 blocks 20 and -60, total -40: peak 60; column 1 blocks 0 and 3: peak 3
  // row 1: column 0 block 50, total 50: peak 50; column 1: 0
  assert.equal(Array.from(outputPeaks(x5, 2, w, 130, 2, wide)), [60, 3, 50, 0]);
  // column 0's interval [-30, 45]: row 0's total -40 below: its edge 30; row 1's 50 above: 45
  assert.equal(Array.from(outputPeaks(x5, 2, w, 130, 2, { lo: [-30, -1e9], hi: [45, 1e9] })), [30, 3, 45, 0]);
  // 40 nonzero peaks 1..40 and 20 zeros: floor(40 / 20) = 2 above, rank 38: 38 * 1.1 (zeros counted: 60 peaks,
  // 3 above, rank 57 of [0 x20, 1..40] = 37)
  const peaks = Float64Array.from([...Array.from({ length: 40 }, (_, i) => 40 - i), ...new Array<number>(20).fill(0)]);
  assert.ok(Math.abs(sampleSpread([peaks.subarray(0, 25), peaks.subarray(25)]) - 38 * 1.1) < 1e-9);
  // 19 peaks: none may lie above: the largest
  assert.ok(Math.abs(sampleSpread([Float64Array.from({ length: 19 }, (_, i) => i + 1)]) - 19 * 1.1) < 1e-9);
  assert.is(sampleSpread([new Float64Array(5)]), 0);
});

test('the useful interval and the weights scaled below 6 bits, by hand', () => {
  // int8 output, mul 2, add 16, shift 3, bias 4, k 1, scale 0.5: acc edges (-128 * 8 - 16 - 4) / 2 = -522 and
  // (127 * 8 - 16 - 4) / 2 = 498; dot = (acc - 4) * 0.5 / 2: -131.5 and 123.5
  assert.equal(usefulSums({ mul: [2, 0], add: [16, 16], bias: [4, 4], shift: 3, k: 1, scales: [0.5, 0.5], out: { min: -128, max: 127 } }),
    { lo: [-131.5, 0], hi: [123.5, 0] });
  assert.is(weightShrink(63500, 0.002), 1);
  // 127000 * 0.002 = 254: half the weight scale, one send
  assert.is(weightShrink(127000, 0.002), 0.5);
});

test('the input shift from the samples, by hand: the smallest k at which at most 1 in 1000 nonzero inputs pass 31', () => {
  // (x + 2^(k-1)) >> k: 60 -> k 0: 60, k 1: 30; 63 -> k 1: 32 (past), k 2: 16
  assert.is(sampledInputShift([[0, 60, 12, 0]], 3), 1);
  assert.is(sampledInputShift([[63, 5]], 3), 2);
  assert.is(sampledInputShift([[31, 1]], 3), 0);
  // 2,000 nonzero values of 40 and two of 250: floor(2002 / 1000) = 2 may pass: k 1 (40 -> 20); a third: k 3
  const small = new Array<number>(2000).fill(40);
  assert.is(sampledInputShift([small, [250, 250]], 3), 1);
  assert.is(sampledInputShift([small, [250, 250, 250]], 3), 3);
  // never past the type range's shift; no nonzero value: the range's
  assert.is(sampledInputShift([[255, 255]], 2), 2);
  assert.is(sampledInputShift([[0, 0]], 3), 3);
});

test('inputs that use a small part of their range: the samples choose k 1, and the firmware equals the reference', async () => {
  const x = samples([[60, 40, 10], [20, 0, 10], [0, 50, 10]]);
  const c = compileModel({ model: model(), platform: 'brainscales2', analogSamples: [x] });
  const g = referenceGraph(c.platform, c.graph);
  const to5 = g.nodes.find((n) => n.op === 'RequantShift' && n.name.endsWith('__to_5bit'))!;
  assert.is((to5.attrs.div as { value: number }).value, 2);
  const out = join(work, 'fw-k1');
  const f = generateFirmware({ model: model(), platform: 'brainscales2', out, chipSeed: 2, noiseStd: 0, analogSamples: [x] });
  const fg = referenceGraph(f.platform, f.graph);
  for (const [x0, x128] of [[60, 0], [33, 12], [255, 255]]) {
    const input = ndarray('uint8', [1, 130]);
    input.data[0] = x0;
    input.data[128] = x128;
    const want = runReference(fg, [input]).get(fg.outputs[0])!;
    const got = await runFirmware(out, [input]);
    assert.equal(Array.from(got.outputs[0].data), Array.from(want.data));
  }
});

test('the firmware of a sample-mapped layer equals the reference of the analog model', async () => {
  const x = samples([[248, 248, 1], [0, 80, 5], [32, 0, 15]]);
  const out = join(work, 'fw');
  const opts = { chipSeed: 3, noiseStd: 0, analogSamples: [x] };
  const c = generateFirmware({ model: model(), platform: 'brainscales2', out, ...opts });
  const g = referenceGraph(c.platform, c.graph);
  for (const [x0, x128] of [[248, 0], [40, 8], [0, 200]]) {
    const input = ndarray('uint8', [1, 130]);
    input.data[0] = x0;
    input.data[128] = x128;
    const want = runReference(g, [input]).get(g.outputs[0])!;
    const got = await runFirmware(out, [input]);
    assert.equal(Array.from(got.outputs[0].data), Array.from(want.data));
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
