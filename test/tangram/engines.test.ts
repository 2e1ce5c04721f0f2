import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateLayer } from '../../generator/platforms/tangram/cost.js';
import { TANGRAM_DEFAULT, type TangramHardware } from '../../generator/platforms/tangram/hardware.js';
import { conv, eltwise, type LayerShape } from '../../generator/platforms/tangram/layers.js';
import { consumersOf, evaluateSegment } from '../../generator/platforms/tangram/segment.js';
import { segmentProgram } from '../../generator/platforms/tangram/segment-programs.js';
import { type Functional, programImage, programsOf } from '../../generator/platforms/tangram/programs.js';
import { runEngines } from '../helpers/tangram-engines.js';
import { Rng } from '../helpers/random.js';

/**
 * The emulator's engine model on generated programs: a schedule worked out by hand, the counters against the cost
 * model, functional results against a direct computation, and timing-only runs equal to functional ones.
 */

const toy: TangramHardware = {
  ...TANGRAM_DEFAULT,
  grid: { rows: 1, cols: 2 },
  array: { rows: 2, cols: 2 },
  bufferBytes: 64,
  wordBytes: 2,
  noc: { hopCycles: 1, linkWordsPerCycle: 1 },
  dram: { channels: 2, bytesPerCycle: 4 },
};

test('a two-engine schedule worked out by hand', async () => {
  // conv 2 -> 4 channels on a 2x2 map, split by output channels (po = 2): per engine ifm 8, filters 4, ofm 8 words,
  // 4 compute cycles; two chunks (double buffering): ifm 4 + filters 2 per chunk. Engine 0 at (0,0) loads from the
  // west channel, engine 1 at (0,1) from the east one: one hop each, no shared resource, the same schedule:
  //  load 4 words: channel 0..2 (4 words * 2 B / 4 B/cycle), port link 0..4 (4 words / 1 word/cycle), done 4 + 1 = 5;
  //  load 2: channel 2..3, link busy until 4 so 4..6 (2 cycles of waiting), done 7; wait: clock 7;
  //  chunk 1 loads issued at 7: 4 words channel 7..9 link 7..11 done 12; 2 words channel 9..10 link 11..13 done 14;
  //  compute 2: clock 9; wait: 14; compute 2: 16; store 8 words: out link 16..24, at the port 17, channel 17..21,
  //  done max(21, 24 + 1) = 25.
  const l = conv('small', 2, 4, 2, 1, 1, []);
  const { engines, messages } = programsOf(l, 1, toy, { pb: 1, po: 2, ph: 1, pw: 1, pi: 1 }, false);
  const r = await runEngines(programImage(toy, engines, messages));
  assert.is(r.cycles, 25);
  // Waiting on links: 2 cycles per engine at the first chunk's filter load, 2 at the second's.
  assert.is(r.linkWait, 8);
  // Counters: the cost model's (cost.test.ts 'output split without sharing': 40 DRAM words, 40 word-hops).
  assert.is(r.dramWords, 40);
  assert.is(r.wordHops, 40);
  assert.is(r.computeCycles, 8);
});

/** A random int8 conv and its direct int32 result (NCHW, OIHW). */
function convCase(rng: Rng, l: LayerShape, batch: number, pad: number): { fn: Functional; x: Int8Array; w: Int8Array; bias: Int32Array; y: Int32Array } {
  const H = (l.h - 1) * l.stride + l.r - 2 * pad;
  const W = (l.w - 1) * l.stride + l.s - 2 * pad;
  const x = Int8Array.from({ length: batch * l.c * H * W }, () => rng.int(-128, 127));
  const w = Int8Array.from({ length: l.k * l.c * l.r * l.s }, () => rng.int(-128, 127));
  const bias = Int32Array.from({ length: l.k }, () => rng.int(-100000, 100000));
  const y = new Int32Array(batch * l.k * l.h * l.w);
  for (let n = 0; n < batch; n++) for (let k = 0; k < l.k; k++) for (let oh = 0; oh < l.h; oh++) for (let ow = 0; ow < l.w; ow++) {
    let acc = bias[k];
    for (let c = 0; c < l.c; c++) for (let r = 0; r < l.r; r++) for (let s = 0; s < l.s; s++) {
      const ih = oh * l.stride - pad + r;
      const iw = ow * l.stride - pad + s;
      if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
      acc += x[((n * l.c + c) * H + ih) * W + iw] * w[((k * l.c + c) * l.r + r) * l.s + s];
    }
    y[((n * l.k + k) * l.h + oh) * l.w + ow] = acc;
  }
  const fn: Functional = {
    n: batch, k: l.k, c: l.c, ho: l.h, wo: l.w, r: l.r, s: l.s, strideH: l.stride, strideW: l.stride, padT: pad, padL: pad, h: H, w: W,
    xStrides: [l.c * H * W, H * W, W, 1], wStrides: [l.c * l.r * l.s, l.r * l.s, l.s, 1], yStrides: [l.k * l.h * l.w, l.h * l.w, l.w, 1], bias: true,
    xType: 'int8', wType: 'int8', biasType: 'int32', yType: 'int32',
  };
  return { fn, x, w, bias, y };
}

test('functional runs are exact under every kind of split, and timing-only runs agree with them', async () => {
  const rng = new Rng(18);
  const hw: TangramHardware = { ...TANGRAM_DEFAULT, grid: { rows: 4, cols: 4 } };
  const l = conv('c', 6, 8, 5, 3, 2, []);
  const cases = [
    { pb: 2, po: 1, ph: 1, pw: 1, pi: 1 }, { pb: 1, po: 4, ph: 1, pw: 1, pi: 1 }, { pb: 1, po: 1, ph: 5, pw: 1, pi: 1 },
    { pb: 1, po: 1, ph: 1, pw: 1, pi: 3 }, { pb: 2, po: 2, ph: 1, pw: 2, pi: 2 }, { pb: 1, po: 8, ph: 1, pw: 1, pi: 2 },
  ];
  for (const sharing of [false, true]) {
    for (const p of cases) {
      const k = convCase(rng, l, 2, 1);
      const { engines, messages } = programsOf(l, 2, hw, p, sharing);
      const image = programImage(hw, engines, messages, k.fn);
      const f = await runEngines(image, { x: k.x, w: k.w, bias: k.bias, yLength: k.y.length });
      assert.equal(Array.from(f.y!), Array.from(k.y), `split ${JSON.stringify(p)} sharing ${sharing}`);
      const t = await runEngines(image);
      assert.equal([t.cycles, t.dramWords, t.wordHops, t.computeCycles, t.linkWait], [f.cycles, f.dramWords, f.wordHops, f.computeCycles, f.linkWait]);
    }
  }
});

test('uint8 inputs and an int16 bias are read as their types', async () => {
  const rng = new Rng(7);
  const hw: TangramHardware = { ...TANGRAM_DEFAULT, grid: { rows: 2, cols: 2 } };
  const l = conv('u', 3, 4, 3, 3, 1, []);
  const k = convCase(rng, l, 1, 1);
  const x = Uint8Array.from(k.x, (v) => v + 128);
  const bias = Int16Array.from(k.bias, (v) => v % 30000);
  // The expected sums again, from the unsigned inputs and the short bias.
  const H = 3, W = 3;
  const y = new Int32Array(k.y.length);
  for (let o = 0; o < 4; o++) for (let oh = 0; oh < 3; oh++) for (let ow = 0; ow < 3; ow++) {
    let acc = bias[o];
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) for (let s = 0; s < 3; s++) {
      const ih = oh - 1 + r, iw = ow - 1 + s;
      if (ih >= 0 && ih < H && iw >= 0 && iw < W) acc += x[(c * H + ih) * W + iw] * k.w[((o * 3 + c) * 3 + r) * 3 + s];
    }
    y[(o * 3 + oh) * 3 + ow] = acc;
  }
  const { engines, messages } = programsOf(l, 1, hw, { pb: 1, po: 2, ph: 1, pw: 1, pi: 2 }, true);
  const image = programImage(hw, engines, messages, { ...k.fn, xType: 'uint8', biasType: 'int16' });
  const f = await runEngines(image, { x, w: k.w, bias, yLength: y.length });
  assert.equal(Array.from(f.y!), Array.from(y));
});

test('DRAM words are the cost model\'s on even splits; sharing cuts them; time is at least the model\'s bound', async () => {
  const hw: TangramHardware = { ...TANGRAM_DEFAULT, grid: { rows: 4, cols: 4 } };
  const l = conv('c', 16, 32, 8, 3, 1, []);
  const p = { pb: 2, po: 4, ph: 2, pw: 1, pi: 1 };
  const runs: number[] = [];
  for (const sharing of [false, true]) {
    const e = evaluateLayer(l, p, 16, { hw, batch: 2, dramHopSum: 0, sharing, sources: [{ from: 'dram' }], ofmOnChip: false, reservedWords: 0 })!;
    const { engines, messages } = programsOf(l, 2, hw, p, sharing);
    const r = await runEngines(programImage(hw, engines, messages));
    assert.is(r.dramWords, e.dramWords, `sharing ${sharing}`);
    // The busiest engine's compute, every engine's, is a lower bound on the layer's time.
    assert.ok(r.cycles >= e.computeCycles);
    runs.push(r.dramWords);
  }
  assert.ok(runs[1] < runs[0], `sharing ${runs[1]} < duplication ${runs[0]}`);
});

test('a bad program is a fault naming what is wrong', async () => {
  const { engines, messages } = programsOf(conv('s', 2, 4, 2, 1, 1, []), 1, toy, { pb: 1, po: 2, ph: 1, pw: 1, pi: 1 }, false);
  const image = programImage(toy, engines, messages);
  const failure = async (p: Int32Array): Promise<string> => {
    try {
      await runEngines(p);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no fault';
  };
  const bad = image.slice();
  bad[0] = 0;
  assert.match(await failure(bad), /tangram: not an engine program/);
  assert.match(await failure(image.slice(0, image.length - 4)), /program size does not match its header/);
  // A functional program whose block leaves the operation (engine 1's output channels to 9 of 4) faults before any
  // arithmetic; a command with a negative word count too.
  const fn = convCase(new Rng(1), conv('s', 2, 4, 2, 1, 1, []), 1, 0);
  const good = programImage(toy, engines, messages, fn.fn);
  const outside = good.slice();
  outside[48 + 14 + 7] = 9;
  const operands = { x: fn.x, w: fn.w, bias: fn.bias, yLength: fn.y.length };
  const run = async (p: Int32Array): Promise<string> => {
    try {
      await runEngines(p, operands);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no fault';
  };
  assert.match(await run(outside), /a block outside the operation, engine 1/);
  const negative = good.slice();
  negative[good[48 + 2] + 2] = -5;
  assert.match(await run(negative), /a negative word count/);
  assert.is(await run(good), 'no fault');
});


test('a pipeline segment as one program: maps forwarded step by step, DRAM words and word-hops as the model counts', async () => {
  // The two-layer segment of search.test.ts (1x2 grid, one engine each): L0 reads 2 + 4 words from DRAM and
  // forwards its 2-word output one hop; L1 reads its 4 filter words and stores 2: 12 DRAM words, 14 word-hops.
  const layers = [conv('l0', 2, 2, 1, 1, 1, []), conv('l1', 2, 2, 1, 1, 1, [0])];
  const seg = evaluateSegment(layers, consumersOf(layers), 0, 1, toy, 1, { sharing: false, pipelining: 'allo', objective: 'time' })!;
  const r = await runEngines(segmentProgram(seg, layers, 1, toy, false));
  assert.is(r.dramWords, 12);
  assert.is(r.wordHops, 14);
  // A residual block (1x1 conv a, 3x3 conv b on a's output, Add of b and a) on a 4x4 grid, batch 4, 16 channels of
  // 8x8: it runs to the end (no engine waits forever), the Add's two operands forwarded, and only the block's input
  // and output and the filters touch DRAM: x 4*16*64 = 4096, a's filters 256, b's 16*16*9 = 2304, the Add's output
  // 4096: 10752 words. (The model counts b's ceil tiles: 13 engines splitting 16 input channels take 2 each.)
  const hw: TangramHardware = { ...TANGRAM_DEFAULT, grid: { rows: 4, cols: 4 } };
  const res = [conv('a', 16, 16, 8, 1, 1, []), conv('b', 16, 16, 8, 3, 1, [0]), eltwise('add', 16, 8, [1, 0])];
  const rs = evaluateSegment(res, consumersOf(res), 0, 2, hw, 4, { sharing: true, pipelining: 'allo', objective: 'time' })!;
  assert.equal(rs.layers[2].sources.map((x) => x.from), ['noc', 'noc']);
  const rr = await runEngines(segmentProgram(rs, res, 4, hw, true));
  assert.is(rr.dramWords, 10752);
  assert.ok(rr.dramWords <= rs.layers.reduce((n, l) => n + l.eval.dramWords, 0));
  assert.ok(rr.cycles >= Math.max(...rs.layers.map((l) => l.eval.computeCycles)));
});

test.run();
