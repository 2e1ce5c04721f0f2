import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateLayer, type LayerContext, totalsOf } from '../../generator/platforms/tangram/cost.js';
import { TANGRAM_DEFAULT, type TangramHardware } from '../../generator/platforms/tangram/hardware.js';
import { conv, type LayerShape } from '../../generator/platforms/tangram/layers.js';

/**
 * The cost model (platforms/tangram/cost.ts) on small cases worked out by hand. Each expected number is derived in
 * the comment above it from the model's stated rules (docs/tangram.md "Cost model"), not printed by the code.
 */

/** A toy chip: 1x2 engines of 2x2 PEs, 64-byte buffers (32 words of 2 bytes), one DRAM channel of 4 B/cycle. */
function toy(grid: { rows: number; cols: number }, bufferBytes: number): TangramHardware {
  return {
    ...TANGRAM_DEFAULT,
    grid,
    array: { rows: 2, cols: 2 },
    bufferBytes,
    wordBytes: 2,
    noc: { hopCycles: 1, linkWordsPerCycle: 1 },
    dram: { channels: 1, bytesPerCycle: 4 },
    energy: { mac: 1, regf: 1, itcn: 2, buffer: 6, hop: 10, dramWord: 200, idlePerCycle: 0 },
  };
}

function ctx(hw: TangramHardware, over: Partial<LayerContext>): LayerContext {
  return { hw, batch: 1, dramHopSum: 0, sharing: false, sources: [{ from: 'dram' }], ofmOnChip: false, reservedWords: 0, ...over };
}

// conv c=2 -> k=4 on a 2x2 map, 1x1 filters, batch 1, split by output channels over the 2 engines (po = 2).
const small: LayerShape = conv('small', 2, 4, 2, 1, 1, []);
const byOutput = { pb: 1, po: 2, ph: 1, pw: 1, pi: 1 };

test('output split without sharing: every count by hand', () => {
  const hw = toy({ rows: 1, cols: 2 }, 64);
  // Engine tiles: b=1, k=2, c=2, h=w=2: ifm 1*2*2*2 = 8 words, filters 2*2 = 4, ofm 1*2*2*2 = 8. 8 + 4 <= 32: fits.
  // Both engines sit next to an edge (1x2 grid: col 0 -> min(1, 2) = 1 hop, col 1 -> min(2, 1) = 1): hop sum 2.
  const e = evaluateLayer(small, byOutput, 2, ctx(hw, { dramHopSum: 2 }))!;
  assert.is(e.order, 'fits');
  // MACs 1*4*2*2 * 2*1*1 = 32; register file 3 per MAC = 96.
  assert.is(e.ops, 32);
  assert.is(e.regf, 96);
  // Array: ceil(k 2 / rows 2) * ceil(b*h*w 4 / cols 2) * c*r*s 2 = 1 * 2 * 2 = 4 cycles.
  assert.is(e.computeCycles, 4);
  // DRAM: each engine reads its own ifm (duplicated): 2*8 = 16, its filters 2*4 = 8, writes its ofm 2*8 = 16: 40.
  assert.is(e.dramWords, 40);
  // Every DRAM word travels 1 hop: 40 word-hops.
  assert.is(e.wordHops, 40);
  // To the array per engine: ifm 8 * ceil(2/2) + filters 4 * ceil(4/2) = 16; itcn 2 engines * 16 = 32.
  assert.is(e.itcn, 32);
  // Buffer per engine: fills 8 + 4, array reads 16, ofm written and read 2*8: 44; two engines 88.
  assert.is(e.buffer, 88);
  const t = totalsOf(e, hw);
  // Links of a 1x2 mesh: 2 directed. NoC max(40 / (2*1), 40 DRAM words / (2 edge ports * 1)) = 20.
  // DRAM 40 words * 2 B / 4 B per cycle = 20. Time max(4, 20, 20) = 20.
  assert.is(t.cycles, 20);
  // Energy: 32 + 96 + 2*32 + 6*88 + 10*40 + 200*40 = 32 + 96 + 64 + 528 + 400 + 8000 = 9120.
  assert.is(t.energy.total, 9120);
});

test('buffer sharing: the input map is fetched once per group and rotated', () => {
  const hw = toy({ rows: 1, cols: 2 }, 64);
  const e = evaluateLayer(small, byOutput, 2, ctx(hw, { dramHopSum: 2, sharing: true }))!;
  // The two engines differ only in output channels: they share the ifm (group 2). Each fetches half (4 words) and
  // receives the other half by rotation: DRAM ifm 2*4 = 8 (was 16); filters 8, ofm 16 as before: 32.
  assert.is(e.dramWords, 32);
  // Hops: rotation 2 engines * 4 words * 1 hop = 8, DRAM words 32 * 1 hop: 40.
  assert.is(e.wordHops, 40);
  // Serial paths: each engine sends its 4-word half to the other over one link (4 cycles); the 32 DRAM words pass
  // the one row's two edge ports (32 / (2 * 1) = 16 cycles): 16 at the least.
  assert.is(e.criticalNocCycles, 16);
  const t = totalsOf(e, hw);
  // NoC max(40/2, 32/2) = 20, DRAM 32*2/4 = 16, compute 4: 20 cycles.
  assert.is(t.cycles, 20);
  // Energy: 9120 - 200 * 8 DRAM words saved = 7520 (hops unchanged at 40).
  assert.is(t.energy.total, 7520);
});

test('blocking: a buffer too small for both tiles streams the cheaper one again', () => {
  // One engine (no mesh, no hops), 16-byte buffer = 8 words, half = 4. conv c=8 -> k=2, 1x1 map: ifm 8 words,
  // filters 16. Filters resident: ceil(16/4) = 4 chunks, ifm read 4 times: 16 + 4*8 = 48 words.
  // Ifmaps resident: ceil(8/4) = 2 chunks, filters read twice: 8 + 2*16 = 40 words: this order wins.
  const hw = toy({ rows: 1, cols: 1 }, 16);
  const l = conv('fc-like', 8, 2, 1, 1, 1, []);
  const e = evaluateLayer(l, { pb: 1, po: 1, ph: 1, pw: 1, pi: 1 }, 1, ctx(hw, {}))!;
  assert.is(e.order, 'ifmaps-resident');
  // DRAM: 40 + ofm 2 = 42 words; no hops on one engine.
  assert.is(e.dramWords, 42);
  assert.is(e.wordHops, 0);
  // Array: ceil(2/2) * ceil(1/2) * 8 = 8 cycles. To the array: ifm 8 * 1 + filters 32 * ceil(1/2) = 40.
  assert.is(e.computeCycles, 8);
  assert.is(e.itcn, 40);
  // Buffer: fills 8 + 32, reads 40, ofm 2*2: 84.
  assert.is(e.buffer, 84);
  const t = totalsOf(e, hw);
  // No NoC; DRAM 42*2/4 = 21 cycles > compute 8.
  assert.is(t.cycles, 21);
  assert.is(t.nocCycles, 0);
  // Energy: MACs 16 + regf 48 + itcn 80 + buffer 504 + DRAM 8400 = 9048.
  assert.is(t.energy.total, 9048);
});

test('a forwarded input map must stay resident: the order flips', () => {
  // conv c=8 -> k=1 on a 1x2 map: ifm 1*8*1*2 = 16 words, filters 8. Half buffer 4.
  // From DRAM: filters resident 8 + ceil(8/4)=2 * 16 = 40 < ifmaps resident 16 + ceil(16/4)=4 * 8 = 48.
  const hw = toy({ rows: 1, cols: 1 }, 16);
  const l: LayerShape = { ...conv('wide', 8, 1, 1, 1, 1, []), w: 2 };
  const p = { pb: 1, po: 1, ph: 1, pw: 1, pi: 1 };
  const fromDram = evaluateLayer(l, p, 1, ctx(hw, {}))!;
  assert.is(fromDram.order, 'filters-resident');
  // 40 + ofm 1*1*1*2 = 42 DRAM words.
  assert.is(fromDram.dramWords, 42);
  // Forwarded over 3 hops: the ifm (16 words) arrives once, the filters are read 4 times (32 words): DRAM 32 + 2.
  const forwarded = evaluateLayer(l, p, 1, ctx(hw, { sources: [{ from: 'noc', hops: 3 }] }))!;
  assert.is(forwarded.order, 'ifmaps-resident');
  assert.is(forwarded.dramWords, 34);
  // Hops: 16 forwarded words * 3 (one engine: DRAM words travel none).
  assert.is(forwarded.wordHops, 48);
});

test('an input-channel split reduces partial sums over the NoC', () => {
  // conv c=4 -> k=2, 1x1 map, split by input channels over 2 engines (pi = 2): each engine c=2, ofm 2 words.
  // One output group of 2: (2-1) * 2 = 2 words reduced, 1 hop each; the group writes ofm once (2 words).
  const hw = toy({ rows: 1, cols: 2 }, 64);
  const l = conv('red', 4, 2, 1, 1, 1, []);
  const e = evaluateLayer(l, { pb: 1, po: 1, ph: 1, pw: 1, pi: 2 }, 2, ctx(hw, { dramHopSum: 2 }))!;
  // DRAM: ifm 2 engines * 2 words + filters 2 * (2*2) + ofm 2 = 14; hops 14 DRAM words * 1 + 2 reduced = 16.
  assert.is(e.dramWords, 14);
  assert.is(e.wordHops, 16);
  // Serial paths: the reduction tree's log2(2) = 1 level of the 2-word block over a 1-word/cycle link (2 cycles);
  // the 14 DRAM words through the row's 2 edge ports (7 cycles): 7 at the least.
  assert.is(e.criticalNocCycles, 7);
  // A region on fewer rows has fewer ports: the same words in a region said to span 1 of 4 rows of a 4x2 grid.
  const tall = { ...hw, grid: { rows: 4, cols: 2 } };
  const one = evaluateLayer(l, { pb: 1, po: 1, ph: 1, pw: 1, pi: 2 }, 2, ctx(tall, { dramHopSum: 2, regionRows: 1 }))!;
  const all = evaluateLayer(l, { pb: 1, po: 1, ph: 1, pw: 1, pi: 2 }, 2, ctx(tall, { dramHopSum: 2 }))!;
  // 14 / (2 * 1) = 7 against max(2, 14 / (2 * 4)) = 2.
  assert.is(one.criticalNocCycles, 7);
  assert.is(all.criticalNocCycles, 2);
  // A per-channel layer cannot split input channels.
  assert.is(evaluateLayer({ ...l, kind: 'pool', c: 2 }, { pb: 1, po: 1, ph: 1, pw: 1, pi: 2 }, 2, ctx(hw, {})), undefined);
});

test('a partitioning needing more engines than the region has is refused', () => {
  const hw = toy({ rows: 1, cols: 2 }, 64);
  assert.is(evaluateLayer(small, { pb: 1, po: 4, ph: 1, pw: 1, pi: 1 }, 2, ctx(hw, {})), undefined);
});

test.run();
