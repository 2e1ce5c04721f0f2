import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TANGRAM_DEFAULT, type TangramHardware } from '../../generator/platforms/tangram/hardware.js';
import { conv, eltwise, fc } from '../../generator/platforms/tangram/layers.js';
import { partitionsOf } from '../../generator/platforms/tangram/partition.js';
import { hopsBetween, regionsOf, shareEngines } from '../../generator/platforms/tangram/regions.js';
import { consumersOf, evaluateSegment } from '../../generator/platforms/tangram/segment.js';
import { searchDataflow } from '../../generator/platforms/tangram/search.js';
import { resnet50 } from '../../bench/tangram/networks.js';

/** Regions, partition enumeration, pipeline segments (hand-worked) and the network search (properties). */

const toy: TangramHardware = {
  ...TANGRAM_DEFAULT,
  grid: { rows: 1, cols: 2 },
  array: { rows: 2, cols: 2 },
  bufferBytes: 64,
  noc: { hopCycles: 1, linkWordsPerCycle: 1 },
  dram: { channels: 1, bytesPerCycle: 4 },
  energy: { mac: 1, regf: 1, itcn: 2, buffer: 6, hop: 10, dramWord: 200, idlePerCycle: 0 },
};

test('engines are shared by operations, largest remainder, ties to the earlier layer', () => {
  // ops 3:1 over 4 engines: 1 each, 2 spare split 1.5 : 0.5 -> 1 + 1 and 1 + 0, the last spare to the tie's first.
  assert.equal(shareEngines([3, 1], 4), [3, 1]);
  assert.equal(shareEngines([1, 1, 1], 3), [1, 1, 1]);
  assert.is(shareEngines([1, 1, 1], 2), undefined);
});

test('regions follow the snake; hops between region centres', () => {
  const hw = { ...toy, grid: { rows: 2, cols: 2 } };
  const [a, b] = regionsOf(hw, [1, 3]);
  assert.equal(a.engines, [[0, 0]]);
  assert.equal(b.engines, [[0, 1], [1, 1], [1, 0]]);
  // Each column of a 2-wide grid is next to an edge: 1 hop each.
  assert.is(b.dramHopSum, 3);
  // Centres (0, 0) and (2/3, 2/3): 4/3 hops.
  assert.ok(Math.abs(hopsBetween(a, b) - 4 / 3) < 1e-12);
});

test('partitions: every ordered factorisation within the dimensions', () => {
  // n = 4 over 5 factors: the ordered splits of 2^2 into 5 parts, C(2 + 4, 4) = 15, when no dimension limits them.
  assert.is(partitionsOf(conv('big', 64, 64, 16, 3, 1, []), 8, 4).length, 15);
  // An fc layer (h = w = 1) at batch 1: only po and pi may exceed 1: (1,4), (2,2), (4,1) = 3.
  assert.is(partitionsOf(fc('f', 64, 64, []), 1, 4).length, 3);
});

test('a two-layer pipeline forwards its intermediate map instead of writing it to DRAM', () => {
  // L0: conv 2 -> 2 on 1x1 (network input), L1: conv 2 -> 2 reading L0. Equal ops: one engine each, (0,0), (0,1).
  const layers = [conv('l0', 2, 2, 1, 1, 1, []), conv('l1', 2, 2, 1, 1, 1, [0])];
  const seg = evaluateSegment(layers, consumersOf(layers), 0, 1, toy, 1, { sharing: false, pipelining: 'allo', objective: 'time' })!;
  const [l0, l1] = seg.layers;
  // L0: ifm 2 + filters 4 from DRAM, output forwarded: 6 DRAM words, 6 hops (1 per word to the edge).
  assert.is(l0.ofmOnChip, true);
  assert.is(l0.eval.dramWords, 6);
  assert.is(l0.eval.wordHops, 6);
  // L1: ifm forwarded 1 hop (2 words), filters 4 from DRAM, ofm 2 to DRAM: 6 DRAM words, 2 + 4 + 2 = 8 hops.
  assert.equal(l1.sources, [{ from: 'noc', hops: 1 }]);
  assert.is(l1.eval.dramWords, 6);
  assert.is(l1.eval.wordHops, 8);
  // Steps: batch 1 x 1 row = 1; depth 2: stretch (1 + 1) / 1 = 2. NoC max(14 / 2, 12 / 2) = 7, DRAM 12*2/4 = 6,
  // compute 2 per engine: 7 * 2 = 14 cycles.
  assert.is(seg.stretch, 2);
  assert.is(seg.totals.cycles, 14);
  // Without pipelining the pair is not one segment.
  assert.is(evaluateSegment(layers, consumersOf(layers), 0, 1, toy, 1, { sharing: false, pipelining: 'none', objective: 'time' }), undefined);
});

test('a residual join inside a segment reads both operands from the NoC', () => {
  const layers = [conv('a', 8, 8, 4, 1, 1, []), conv('b', 8, 8, 4, 3, 1, [0]), eltwise('add', 8, 4, [1, 0])];
  const seg = evaluateSegment(layers, consumersOf(layers), 0, 2, { ...TANGRAM_DEFAULT, grid: { rows: 2, cols: 2 } }, 2, { sharing: true, pipelining: 'allo', objective: 'energy' })!;
  assert.ok(seg);
  assert.equal(seg.layers[2].sources.map((s) => s.from), ['noc', 'noc']);
  // 'a' feeds both 'b' and 'add', all inside: nothing of it goes to DRAM.
  assert.is(seg.layers[0].ofmOnChip, true);
});

test('the search is deterministic and never worse than layer-by-layer', () => {
  const layers = resnet50().slice(0, 20).map((l) => ({ ...l, inputs: l.inputs.filter((i) => i < 20) }));
  const strategy = { sharing: true, pipelining: 'allo' as const, objective: 'time' as const };
  const a = searchDataflow(layers, TANGRAM_DEFAULT, { batch: 8, strategy });
  const b = searchDataflow(layers, TANGRAM_DEFAULT, { batch: 8, strategy });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  // Time adds over segments and the DP holds the all-singletons plan among its candidates: it cannot be slower.
  const single = searchDataflow(layers, TANGRAM_DEFAULT, { batch: 8, strategy: { ...strategy, pipelining: 'none' } });
  assert.ok(a.cycles <= single.cycles * (1 + 1e-12), `${a.cycles} <= ${single.cycles}`);
  // Every layer is placed exactly once, in order.
  assert.equal(a.segments.flatMap((s) => s.layers.map((l) => l.index)), layers.map((_, i) => i));
});

test.run();
