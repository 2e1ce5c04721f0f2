import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { forwardsOf, readingOf, windowsIn } from '../../generator/platforms/tangram/forwarding.js';
import { TANGRAM_DEFAULT, type TangramHardware } from '../../generator/platforms/tangram/hardware.js';
import { conv, eltwise, type LayerShape, pool } from '../../generator/platforms/tangram/layers.js';
import { type Functional, planLayer } from '../../generator/platforms/tangram/programs.js';
import { snake } from '../../generator/platforms/tangram/regions.js';
import { consumersOf, evaluateSegment, type SegmentPlan } from '../../generator/platforms/tangram/segment.js';
import { segmentProgram, type SegmentLayerFunction } from '../../generator/platforms/tangram/segment-programs.js';
import { runSegment } from '../helpers/tangram-engines.js';
import { Rng } from '../helpers/random.js';

/**
 * Pipelined segments as one program (segment-programs.ts, forwarding.ts): the rows each producer engine forwards to
 * each consumer engine worked out by hand; a segment of conv (fused requantization) -> ReLU -> max pooling -> conv
 * computed functionally on the engine model against a direct computation, under the searched and under forced
 * partitionings; timing-only runs of the same programs with the same schedule and counters.
 */

const hw: TangramHardware = { ...TANGRAM_DEFAULT, grid: { rows: 4, cols: 4 } };

test('the rows a producer engine forwards to a consumer engine, worked out by hand', () => {
  // P: 2 channels of a 4x1 map split by rows over 2 engines (P0 rows 0-1, P1 rows 2-3). C: a 3x1 conv (pad 1) on it,
  // its 4 output rows split the same way (C0 rows 0-1, C1 rows 2-3). Two steps, each engine's first row then its
  // second: P0 holds row 0 after step 0, row 1 after step 1; P1 rows 2 and 3; C0 computes row 0 then 1, C1 2 then 3.
  // Row 0 reads input rows 0..1, row 1 rows 0..2, row 2 rows 1..3, row 3 rows 2..3. Each message 1 row x 2 channels:
  //  P0 step 0 (row 0): to C0, for its step 0;             P0 step 1 (row 1): to C0 for step 0, to C1 for step 0;
  //  P1 step 0 (row 2): to C0 for its step 1, to C1 for 0; P1 step 1 (row 3): to C1 for step 0 (row 2 reads it).
  const P: LayerShape = { name: 'p', kind: 'conv', c: 1, k: 2, h: 4, w: 1, r: 1, s: 1, stride: 1, inputs: [] };
  const C: LayerShape = { name: 'c', kind: 'conv', c: 2, k: 2, h: 4, w: 1, r: 3, s: 1, stride: 1, inputs: [0] };
  const split = { pb: 1, po: 1, ph: 2, pw: 1, pi: 1 };
  const places = snake(hw);
  const p = planLayer(P, 1, hw, split, false, places, 0, false);
  const c = planLayer(C, 1, hw, split, false, places.slice(2), 2, true);
  const rd = readingOf(P, C);
  assert.equal(forwardsOf(p, c, rd, 2), [
    { from: 0, step: 0, to: 0, at: 0, words: 2 },
    { from: 0, step: 1, to: 0, at: 0, words: 2 },
    { from: 0, step: 1, to: 1, at: 0, words: 2 },
    { from: 1, step: 0, to: 0, at: 1, words: 2 },
    { from: 1, step: 0, to: 1, at: 0, words: 2 },
    { from: 1, step: 1, to: 1, at: 0, words: 2 },
  ]);
  // A 1x1 conv of stride 2 (one engine, its rows 0 and 1 in steps 0 and 1) reads input rows 0 and 2 of the 4: P0
  // sends row 0 after its step 0 (for step 0), P1 row 2 after its step 0 (for step 1); rows 1 and 3 go nowhere.
  const S2: LayerShape = { name: 's', kind: 'conv', c: 2, k: 2, h: 2, w: 1, r: 1, s: 1, stride: 2, inputs: [0] };
  const s2 = planLayer(S2, 1, hw, { pb: 1, po: 1, ph: 1, pw: 1, pi: 1 }, false, places.slice(2), 2, true);
  assert.equal(forwardsOf(p, s2, readingOf(P, S2), 2), [
    { from: 0, step: 0, to: 0, at: 0, words: 2 },
    { from: 1, step: 0, to: 0, at: 1, words: 2 },
  ]);
  // The windows' count: rows 0, 2, 4 of windows 1 long at stride 2; [1, 5) holds 2 and 4.
  assert.is(windowsIn({ origin: 0, count: 3, stride: 2, window: 1, size: 8 }, 1, 5), 2);
});

/** conv 3x3 (pad 1) with a per-channel requantization to int8, ReLU, 2x2 max pooling, conv 3x3 (pad 1) to int32. */
interface Case { layers: LayerShape[]; fns: SegmentLayerFunction[]; operands: Parameters<typeof runSegment>[1]; expect: Uint8Array[] }

function convFn(c: number, k: number, h: number, out: 'int8' | 'int32', batch: number): Functional {
  return {
    n: batch, k, c, ho: h, wo: h, r: 3, s: 3, strideH: 1, strideW: 1, padT: 1, padL: 1, h, w: h,
    xStrides: [c * h * h, h * h, h, 1], wStrides: [c * 9, 9, 3, 1], yStrides: [k * h * h, h * h, h, 1], bias: true,
    xType: 'int8', wType: 'int8', biasType: 'int32', yType: out,
  };
}

function directConv(x: ArrayLike<number>, w: Int8Array, b: Int32Array, batch: number, c: number, k: number, h: number): Int32Array {
  const y = new Int32Array(batch * k * h * h);
  for (let n = 0; n < batch; n++) for (let o = 0; o < k; o++) for (let i = 0; i < h; i++) for (let j = 0; j < h; j++) {
    let acc = b[o];
    for (let q = 0; q < c; q++) for (let r = 0; r < 3; r++) for (let s = 0; s < 3; s++) {
      const ih = i - 1 + r, iw = j - 1 + s;
      if (ih >= 0 && ih < h && iw >= 0 && iw < h) acc += x[((n * c + q) * h + ih) * h + iw] * w[((o * c + q) * 3 + r) * 3 + s];
    }
    y[((n * k + o) * h + i) * h + j] = acc;
  }
  return y;
}

function buildCase(rng: Rng, batch: number): Case {
  const C0 = 3, K = 4, H = 8, H2 = 4, K2 = 5;
  const layers = [conv('a', C0, K, H, 3, 1, []), eltwise('relu', K, H, [0]), pool('max', K, H2, 2, 2, [1]), conv('b', K, K2, H2, 3, 1, [2])];
  const x = Int8Array.from({ length: batch * C0 * H * H }, () => rng.int(-128, 127));
  const wa = Int8Array.from({ length: K * C0 * 9 }, () => rng.int(-128, 127));
  const ba = Int32Array.from({ length: K }, () => rng.int(-5000, 5000));
  const mul = Int32Array.from({ length: K }, () => rng.int(1, 300));
  const add = Int32Array.from({ length: K }, () => rng.int(-20000, 20000));
  const shift = 14;
  const wb = Int8Array.from({ length: K2 * K * 9 }, () => rng.int(-128, 127));
  const bb = Int32Array.from({ length: K2 }, () => rng.int(-5000, 5000));
  // The expected values, directly (SEMANTICS.md: RequantShift clip((acc*mul + add + 2^(s-1)) >> s) to int8).
  const accA = directConv(x, wa, ba, batch, C0, K, H);
  const ya = Int8Array.from(accA, (v, i) => {
    const k = Math.floor(i / (H * H)) % K;
    const r = Number((BigInt(v) * BigInt(mul[k]) + BigInt(add[k]) + (1n << BigInt(shift - 1))) >> BigInt(shift));
    return Math.max(-128, Math.min(127, r));
  });
  const yr = Int8Array.from(ya, (v) => Math.max(0, v));
  const yp = new Int8Array(batch * K * H2 * H2);
  for (let n = 0; n < batch; n++) for (let k = 0; k < K; k++) for (let i = 0; i < H2; i++) for (let j = 0; j < H2; j++) {
    let m = -128;
    for (let r = 0; r < 2; r++) for (let s = 0; s < 2; s++) m = Math.max(m, yr[((n * K + k) * H + 2 * i + r) * H + 2 * j + s]);
    yp[((n * K + k) * H2 + i) * H2 + j] = m;
  }
  const yb = directConv(yp, wb, bb, batch, K, K2, H2);
  const map = (k: number, h: number): Pick<Functional, 'xStrides' | 'yStrides'> => ({ xStrides: [k * h * h, h * h, h, 1], yStrides: [k * h * h, h * h, h, 1] });
  const elt: Functional = {
    ...convFn(K, K, H, 'int8', batch), r: 1, s: 1, padT: 0, padL: 0, bias: false, ...map(K, H), wStrides: [0, 0, 0, 0],
  };
  const poolFn: Functional = {
    ...convFn(K, K, H2, 'int8', batch), r: 2, s: 2, strideH: 2, strideW: 2, padT: 0, padL: 0, h: H, w: H, bias: false,
    xStrides: [K * H * H, H * H, H, 1], wStrides: [0, 0, 0, 0], yStrides: [K * H2 * H2, H2 * H2, H2, 1],
  };
  const fns: SegmentLayerFunction[] = [
    { kind: 1, fn: { ...convFn(C0, K, H, 'int8', batch), requant: { shift, min: -128, max: 127, mulPerChannel: true, addPerChannel: true, mulType: 'int32', addType: 'int32' } } },
    { kind: 3, fn: elt, clip: { min: 0, max: 127 } },
    { kind: 2, fn: poolFn },
    { kind: 1, fn: convFn(K, K2, H2, 'int32', batch) },
  ];
  const bytes = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  return {
    layers, fns,
    operands: [
      { x, w: wa, bias: ba, mul, add, yBytes: ya.byteLength },
      { from: 0, yBytes: yr.byteLength },
      { from: 1, yBytes: yp.byteLength },
      { from: 2, w: wb, bias: bb, yBytes: yb.byteLength },
    ],
    expect: [ya, yr, yp, yb].map(bytes),
  };
}

/** The segment with the given partitionings on consecutive runs of the snake (the search's otherwise). */
function forced(seg: SegmentPlan, splits: Array<{ pb: number; po: number; ph: number; pw: number; pi: number }>): SegmentPlan {
  const places = snake(hw);
  let at = 0;
  return {
    ...seg,
    layers: seg.layers.map((pl, i) => {
      const p = splits[i];
      const n = p.pb * p.po * p.ph * p.pw * p.pi;
      const region = { ...pl.region, engines: places.slice(at, at + n) };
      at += n;
      return { ...pl, region, eval: { ...pl.eval, partition: p } };
    }),
  };
}

test('a segment of conv -> requantization -> ReLU -> max pooling -> conv runs as one program, exact; timing-only agrees', async () => {
  const rng = new Rng(1818);
  const batch = 2;
  const c = buildCase(rng, batch);
  const seg = evaluateSegment(c.layers, consumersOf(c.layers), 0, 3, hw, batch, { sharing: true, pipelining: 'allo', objective: 'time' });
  assert.ok(seg, 'the four layers fit one segment');
  const one = (pb: number, po: number, ph: number, pw: number, pi: number): { pb: number; po: number; ph: number; pw: number; pi: number } => ({ pb, po, ph, pw, pi });
  const plans: Array<[string, SegmentPlan]> = [
    ['searched', seg],
    // Input-channel reductions (the epilogue after the partial-sum tree), rows and batch splits across layers.
    ['forced 1', forced(seg, [one(1, 2, 1, 1, 3), one(1, 1, 2, 1, 1), one(2, 1, 1, 1, 1), one(1, 1, 1, 2, 2)])],
    ['forced 2', forced(seg, [one(2, 1, 2, 1, 1), one(1, 2, 1, 1, 1), one(1, 1, 4, 1, 1), one(1, 5, 1, 1, 1)])],
    ['forced 3', forced(seg, [one(1, 1, 1, 1, 1), one(1, 1, 1, 1, 1), one(1, 1, 1, 1, 1), one(1, 1, 1, 1, 1)])],
  ];
  for (const [name, plan] of plans) {
    const image = segmentProgram(plan, c.layers, batch, hw, true, c.fns);
    const f = await runSegment(image, c.operands);
    f.ys!.forEach((y, i) => assert.equal(Array.from(y), Array.from(c.expect[i]), `${name}: layer ${c.layers[i].name}`));
    const t = await runSegment(image);
    assert.equal([t.cycles, t.dramWords, t.wordHops, t.computeCycles, t.linkWait], [f.cycles, f.dramWords, f.wordHops, f.computeCycles, f.linkWait], name);
  }
});

test('a segment program refuses a one-map function for an element-wise layer of two operands', () => {
  const layers = [conv('a', 4, 4, 4, 1, 1, []), conv('b', 4, 4, 4, 1, 1, [0]), eltwise('add', 4, 4, [1, 0])];
  const seg = evaluateSegment(layers, consumersOf(layers), 0, 2, hw, 1, { sharing: true, pipelining: 'allo', objective: 'time' })!;
  const fn: Functional = { ...convFn(4, 4, 4, 'int8', 1), r: 1, s: 1, padT: 0, padL: 0 };
  assert.throws(() => segmentProgram(seg, layers, 1, hw, true, [{ kind: 1, fn }, { kind: 1, fn }, { kind: 3, fn }]), /an element-wise layer of 2 operands for a function of 1/);
});

test('a layer the engines cannot compute inside a segment is a segment of its own', () => {
  const layers = [conv('a', 4, 4, 4, 1, 1, []), { ...conv('b', 4, 4, 4, 1, 1, [0]), alone: 'runs on the control core' }, conv('c', 4, 4, 4, 1, 1, [1])];
  const strategy = { sharing: true, pipelining: 'allo' as const, objective: 'time' as const };
  const consumers = consumersOf(layers);
  assert.is(evaluateSegment(layers, consumers, 0, 1, hw, 1, strategy), undefined);
  assert.is(evaluateSegment(layers, consumers, 1, 2, hw, 1, strategy), undefined);
  assert.ok(evaluateSegment(layers, consumers, 1, 1, hw, 1, strategy));
  // Without the reason the three pipeline.
  const free = layers.map(({ alone: _, ...l }) => l);
  assert.ok(evaluateSegment(free, consumers, 0, 2, hw, 1, strategy));
});

test.run();
