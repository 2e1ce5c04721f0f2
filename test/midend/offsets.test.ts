/**
 * Offsets of buffers with lifetimes: the greedy in front, HiGHS behind it. Hand-made lifetime sets where the greedy
 * provably misses the live-set bound (its placement is deterministic: the peak below is what it does) and the
 * integer program reaches it; sets where the greedy is at the bound never start the solver.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Manifest } from '../../generator/backend/manifest.js';
import { liveSetLowerBound } from '../../generator/midend/lifetimes.js';
import { offsetIlp } from '../../generator/midend/offsets-ilp.js';
import { assignOffsets, greedyOffsets, isValidPlacement, peakOf, type Interval } from '../../generator/midend/offsets.js';
import { PLACEMENT_RULES, placeBy } from '../../generator/midend/placement.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { DEEPLOY } from '../helpers/deeploy.js';
import { Rng } from '../helpers/random.js';

/*
 * Greedy (largest first, lowest free offset): B at 0, C at 1200 (both live at step 1), D at 0 (alone at step 4),
 * then A, live with C at step 2 and with D at step 4, fits below neither and lands at 2400: peak 3200. The live set
 * peaks at step 1 with B + C = 2400, and 2400 is reachable: C at 0, B at 1200, A at 1200, D at 0.
 */
const trap: Interval[] = [
  { bytes: 800, first: 2, last: 4 }, // A
  { bytes: 1200, first: 1, last: 1 }, // B
  { bytes: 1200, first: 1, last: 2 }, // C
  { bytes: 1200, first: 4, last: 4 }, // D
];

test('the greedy misses the bound on the hand-made set, exactly as described', () => {
  assert.is(liveSetLowerBound(trap, 4), 2400);
  assert.equal(greedyOffsets(trap, 4), [2400, 0, 1200, 0]);
  assert.is(peakOf(trap, greedyOffsets(trap, 4), 4), 3200);
  assert.ok(isValidPlacement(trap, [1200, 1200, 0, 0]), 'a placement at the bound exists');
  assert.is(peakOf(trap, [1200, 1200, 0, 0], 4), 2400);
});

test('HiGHS closes the gap: final peak = lower bound, a valid placement', () => {
  const { offsets, report } = assignOffsets(trap, 4, { placements: false });
  assert.is(report.greedy, 3200);
  assert.is(report.lowerBound, 2400);
  assert.is(report.solver.status, 'optimal');
  assert.is(report.final, 2400);
  assert.ok(report.solver.ms > 0);
  assert.ok(isValidPlacement(trap, offsets));
  assert.is(peakOf(trap, offsets, 4), 2400);
  for (const o of offsets) assert.is(o % 4, 0, 'aligned');
});

test('a larger trap: two copies of the set side by side in time, plus unaligned sizes', () => {
  const shifted = trap.map((u) => ({ bytes: u.bytes + 3, first: u.first + 6, last: u.last + 6 }));
  const items = [...trap, ...shifted];
  const { offsets, report } = assignOffsets(items, 4);
  assert.ok(report.greedy > report.lowerBound);
  assert.is(report.final, report.lowerBound);
  assert.ok(isValidPlacement(items, offsets));
});

test('greedy at the bound: the solver is not started', () => {
  const chain: Interval[] = [
    { bytes: 1000, first: 0, last: 1 },
    { bytes: 500, first: 1, last: 2 },
    { bytes: 1000, first: 2, last: 3 },
    { bytes: 64, first: 0, last: 3 },
  ];
  const { offsets, report } = assignOffsets(chain, 4);
  assert.is(report.greedy, report.lowerBound);
  assert.is(report.final, report.lowerBound);
  assert.equal(report.solver, { status: 'not-needed', ms: 0 });
  assert.equal(offsets, greedyOffsets(chain, 4));
});

test('too many buffers, or the solver turned off: the greedy plan stays, and the report says why', () => {
  const big = assignOffsets(trap, 4, { maxBuffers: 3, placements: false });
  assert.is(big.report.solver.status, 'too-large');
  assert.is(big.report.final, 3200);
  const off = assignOffsets(trap, 4, { enabled: false });
  assert.is(off.report.solver.status, 'disabled');
  assert.equal(off.offsets, greedyOffsets(trap, 4));
});

test('a constructive placement reaches the bound on the hand-made set: the solver is not started', () => {
  const { offsets, report } = assignOffsets(trap, 4);
  assert.is(report.greedy, 3200);
  assert.is(report.final, 2400);
  assert.is(report.solver.status, 'not-needed');
  assert.ok(report.placement, 'the rule that placed it is named');
  assert.is(report.placement!.peak, 2400);
  assert.ok(isValidPlacement(trap, offsets));
});

test('constructive placements on 300 random lifetime sets: valid, aligned, deterministic, never above the greedy', () => {
  const rng = new Rng(5);
  let improved = 0;
  for (let t = 0; t < 300; t++) {
    const items: Interval[] = [];
    const n = rng.ints(1, 4, 40)[0];
    for (let i = 0; i < n; i++) {
      const first = rng.ints(1, 0, 25)[0];
      items.push({ bytes: rng.ints(1, 1, 64)[0] * (t % 2 ? 64 : 7), first, last: first + rng.ints(1, 0, 8)[0] });
    }
    const greedyPeak = peakOf(items, greedyOffsets(items, 4), 4);
    for (const rule of PLACEMENT_RULES) {
      const o = placeBy(items, 4, rule);
      assert.ok(isValidPlacement(items, o), `${rule.name}: overlap on set ${t}`);
      for (const x of o) assert.is(x % 4, 0, 'aligned');
      assert.equal(placeBy(items, 4, rule), o, 'the same placement twice');
    }
    // (No solver: maxBuffers 0 keeps what the placements reach.)
    const { offsets, report } = assignOffsets(items, 4, { maxBuffers: 0 });
    assert.ok(isValidPlacement(items, offsets));
    assert.ok(report.final <= greedyPeak && report.final >= report.lowerBound);
    assert.is(report.final, peakOf(items, offsets, 4));
    if (report.final < greedyPeak) improved++;
  }
  assert.ok(improved > 0, 'some set placed lower than the greedy');
});

test('the LP: one binary per pair of overlapping lifetimes, the greedy as the start, units of the alignment', () => {
  const m = offsetIlp(trap, greedyOffsets(trap, 4), 4, 2400, 3200);
  // Overlapping pairs: A-C (step 2), A-D (step 4), B-C (step 1).
  assert.equal(Object.keys(m.start).filter((k) => k.startsWith('z')).sort(), ['z0_2', 'z0_3', 'z1_2']);
  assert.match(m.lp, / 600 <= P <= 800/);
  assert.is(m.start.P, 800);
  assert.is(m.start.o0, 600);
  assert.is(m.start.z1_2, 1, 'B lies below C in the greedy plan');
});

test('firmware.json and the plan report the bound, the greedy, the final peak and the solver', () => {
  const work = mkdtempSync(join(tmpdir(), 'firmgen-offsets-'));
  try {
    const out = join(work, 'out');
    const r = generateFirmware({ model: join(DEEPLOY, 'Models', 'CNN_Linear2', 'network.onnx'), platform: 'siracusa', out });
    const m = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')) as Manifest;
    const a = m.memory.activations;
    assert.is(m.memory.used, m.memory.constants + a.final);
    assert.is(m.memory.lowerBound, m.memory.constants + a.lowerBound);
    assert.is(m.memory.distance, m.memory.used - m.memory.lowerBound);
    assert.ok(a.greedy >= a.final && a.final >= a.lowerBound);
    assert.is(a.buffers, [...new Set(m.tensors.filter((t) => t.role !== 'const').map((t) => t.symbol))].length);
    assert.type(a.solver.status, 'string');
    const { ms, ...solver } = r.plan.activations.solver;
    assert.type(ms, 'number');
    assert.equal({ ...r.plan.activations, solver }, a, 'the report less its wall time');
    // No wall time in generated files: a second generation writes the same bytes, every file.
    const out2 = join(work, 'out2');
    generateFirmware({ model: join(DEEPLOY, 'Models', 'CNN_Linear2', 'network.onnx'), platform: 'siracusa', out: out2 });
    const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length)).sort();
    assert.equal(files(out2), files(out));
    for (const f of files(out)) assert.ok(readFileSync(join(out, f)).equals(readFileSync(join(out2, f))), `${f} differs between two runs`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a search the node limit stops ends the same way twice: plans are reproducible byte for byte', () => {
  // 40 random lifetimes the greedy places above the live-set bound and 30 nodes cannot close.
  const rng = new Rng(1);
  const items: Interval[] = [];
  for (let i = 0; i < 40; i++) {
    const first = rng.ints(1, 0, 30)[0];
    const last = first + rng.ints(1, 1, 8)[0];
    items.push({ bytes: rng.ints(1, 1, 64)[0] * 64, first, last });
  }
  const a = assignOffsets(items, 4, { maxNodes: 30 });
  const b = assignOffsets(items, 4, { maxNodes: 30 });
  assert.is(a.report.solver.status, 'nodeLimit');
  assert.ok(a.report.greedy > a.report.lowerBound);
  assert.equal(b.offsets, a.offsets);
  assert.ok(isValidPlacement(items, a.offsets));
  assert.ok(a.report.final <= a.report.greedy);
});

test.run();
