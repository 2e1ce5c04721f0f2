import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COST_CLASSES, type CoreCosts, type CostClass } from '../../generator/platforms/types.js';
import { CODE_RATIOS as SIRACUSA_CODE_RATIOS, MEASURED as SIRACUSA_MEASURED } from '../../generator/platforms/siracusa/measured-costs.js';
import { CODE_RATIOS as GENERIC_CODE_RATIOS, MEASURED as GENERIC_MEASURED } from '../../generator/platforms/generic/measured-costs.js';
import { FIT_TARGETS, fitTarget } from '../../scripts/cost-fit/targets.js';
import { createEmulator } from '../../runtime/node/emulator.js';
import { HAND_COUNTS } from '../../generator/platforms/siracusa/hand-costs.js';
import { withNpuClasses } from '../../scripts/cost-fit/npu-job.js';
import { AFTER_ANOTHER, codeImageFactor, codeRatiosOf, fitCosts, measuredBetweenLayers, measuredFromWorkerFetch, scaledRatios } from '../../scripts/cost-fit/fit.js';
import { CALIBRATION, calibrationFor, forFixedCosts, timed } from '../../scripts/cost-fit/layers.js';
import { measure, measureCode, measureFixedCostRuns, measureTeam, type CalibrationRow } from '../../scripts/cost-fit/measure.js';
import { nnls } from '../../scripts/cost-fit/nnls.js';
import { closeLoop } from '../../scripts/cost-fit/settle.js';
import { fitSkew, settleSkew, SKEWS, type SkewFit } from '../../scripts/cost-fit/skew.js';
import { MANY_TRANSFERS, transferByDifference, type TeamRun } from '../../scripts/cost-fit/team.js';
import { readFileSync } from 'node:fs';
import { REPO } from '../helpers/deeploy.js';

/*
 * The cost fit (scripts/fit-costs.ts): the solver, the fit on rows whose answer is known, and the measurement on real
 * calibration layers (the AS firmware's units of work per class, the ISS cycles of the same C).
 */

test('closeLoop: a round met before settles on the mean of the loop since, by steps; a new round stands', () => {
  const step = (c: CostClass): number => (c === 'CODE_TILES' ? 64 : 1);
  const round = (tiles: number, layer = 134): Map<CostClass, number> => new Map<CostClass, number>([['LAYER', layer], ['CODE_TILES', tiles]]);
  // The rounds of a Siracusa fit that did not settle: CODE_TILES 44, 44 + 5/64, 44 + 2/64, then 44 again.
  const history = [round(45), round(44), round(44 + 5 / 64), round(44 + 2 / 64)];
  const closed = closeLoop(history, round(44), step);
  assert.ok(closed.looped);
  // (0 + 5 + 2) / 3 = 2.33 sixty-fourths over 44: two.
  assert.is(closed.costs.get('CODE_TILES'), 44 + 2 / 64);
  assert.is(closed.costs.get('LAYER'), 134);
  const fresh = closeLoop(history, round(44, 135), step);
  assert.not.ok(fresh.looped);
  assert.is(fresh.costs.get('LAYER'), 135);
});

test('nnls: an exactly consistent system is solved; a variable the data wants negative is held at zero', () => {
  const A = [[1, 0, 2], [0, 1, 1], [1, 1, 0], [2, 1, 1]];
  const x = [0.5, 3, 1.25];
  const b = A.map((r) => r.reduce((s, a, j) => s + a * x[j], 0));
  nnls(A, b).forEach((v, j) => assert.ok(Math.abs(v - x[j]) < 1e-9, `x${j} = ${v}, want ${x[j]}`));
  // b = 2 * col0 - 1 * col1: unconstrained least squares would say (2, -1); with x >= 0 the second is 0 and the first
  // is the projection of b on column 0.
  const A2 = [[1, 0], [1, 1], [1, 2]];
  const b2 = [2, 1, 0];
  const y = nnls(A2, b2);
  assert.is(y[1], 0);
  assert.ok(Math.abs(y[0] - 1) < 1e-9, `y0 = ${y[0]}`);
});

test('settleSkew: the skew whose table picks it again; in a cycle, the pair scoring least at its own skew', () => {
  // A sweep under a table: `scores` per skew tried (one layer, so the rows are checked at the skew returned).
  const sweep = (scores: number[]): SkewFit => {
    const score = new Map(scores.map((v, s) => [s, v]));
    const skew = scores.indexOf(Math.min(...scores));
    const runs = [{ name: 'l', iss: 100, as: new Map(scores.map((v, s) => [s, 100 + s])) }];
    return { skew, score, runs, rows: [{ name: 'l', iss: 100, as: 100 + skew }] };
  };
  // From 0: the table at 0 picks 2, the table at 2 picks 2 again: (table at 2, skew 2).
  const fixed = settleSkew(new Map([[0, { fit: 'table0', skew: sweep([3, 2, 1, 4]) }], [2, { fit: 'table2', skew: sweep([3, 2, 1, 4]) }]]));
  assert.is(fixed.fit, 'table2');
  assert.is(fixed.skew.skew, 2);
  // A cycle 1 -> 3 -> 1: the table at 1 scores 0.5 at skew 1, the table at 3 scores 0.7 at skew 3: (table at 1, 1),
  // its rows taken at skew 1 (not at the skew its own sweep preferred).
  const cycle = settleSkew(new Map([[0, { fit: 't0', skew: sweep([9, 1, 9, 9]) }], [1, { fit: 't1', skew: sweep([9, 0.5, 9, 0.4]) }], [3, { fit: 't3', skew: sweep([9, 0.3, 9, 0.7]) }]]));
  assert.is(cycle.fit, 't1');
  assert.is(cycle.skew.skew, 1);
  assert.equal(cycle.skew.rows, [{ name: 'l', iss: 100, as: 101 }]);
});

test('fitCosts recovers the per-unit costs of synthetic rows, holds kept and unexercised classes at their given value', async () => {
  const truth = { MAC_CONV: 0.5, REQUANT: 12.25, COPY_BYTE: 1.5 };
  const k = (c: string) => (COST_CLASSES as readonly string[]).indexOf(c);
  const rows: CalibrationRow[] = [[4096, 64, 512, 2], [9000, 300, 100, 4], [20000, 50, 2000, 8], [100, 400, 7, 1]].map(([mac, rq, cp, call], i) => {
    const units = COST_CLASSES.map(() => 0);
    units[k('MAC_CONV')] = mac;
    units[k('REQUANT')] = rq;
    units[k('COPY_BYTE')] = cp;
    units[k('CALL')] = call;
    const other = 100 + 10 * i;
    const iss = other + mac * truth.MAC_CONV + rq * truth.REQUANT + cp * truth.COPY_BYTE + call * HAND_COUNTS.CALL;
    return { name: `row${i}`, units, asCycles: 0, asOther: other, issCycles: iss, issColdCycles: 0, issBetweenCycles: 0 };
  });
  const fit = await fitCosts(rows, HAND_COUNTS, ['CALL']);
  assert.equal(fit.fitted, ['MAC_CONV', 'REQUANT', 'COPY_BYTE']);
  for (const [c, v] of Object.entries(truth)) assert.is(fit.costs[c as keyof typeof truth], v, c);
  assert.is(fit.costs.CALL, HAND_COUNTS.CALL);
  assert.is(fit.costs.SOFTMAX_ELEM, HAND_COUNTS.SOFTMAX_ELEM);
  for (const r of fit.ratios) assert.ok(Math.abs(r.ratio - 1) < 1e-9, `${r.name}: ${r.ratio}`);
});

test('two-layer rows: the skeleton between their layers measured apart (SKELETON), and kept out of the least squares', async () => {
  const k = (c: string) => (COST_CLASSES as readonly string[]).indexOf(c);
  const row = (name: string, mac: number, skeleton: number, between: number, iss: number): CalibrationRow => {
    const units = COST_CLASSES.map(() => 0);
    units[k('MAC_CONV')] = mac;
    units[k('SKELETON')] = skeleton;
    return { name, units, asCycles: 0, asOther: 0, issCycles: iss, issColdCycles: 0, issBetweenCycles: between };
  };
  const single = [row('a', 1000, 0, 0, 500), row('b', 3000, 0, 0, 1500)];
  // Their second layers far off the single rows' MAC cost: were they in the least squares, MAC_CONV would move.
  const two = [row(`a${AFTER_ANOTHER}`, 2000, 1, 190, 5000), row(`b${AFTER_ANOTHER}`, 4000, 1, 214, 9000)];
  assert.equal(measuredBetweenLayers(single), new Map());
  assert.equal(measuredBetweenLayers([...single, ...two]), new Map([['SKELETON', 202]]));
  const fit = await fitCosts([...single, ...two], HAND_COUNTS, ['CALL']);
  assert.is(fit.costs.MAC_CONV, 0.5);
  assert.is(fit.costs.SKELETON, 202);
  assert.ok(fit.apart.includes('SKELETON'));
  assert.equal(fit.betweenLayers, ['SKELETON'], 'told apart from the classes measured by difference (render.ts)');
});

test('the layer\'s cold code: CODE_LAYER + bytes x CODE_BYTE from the lines the ISS brought in, held in the least squares', async () => {
  const k = (c: string) => (COST_CLASSES as readonly string[]).indexOf(c);
  // Cold code of 1040 cycles a layer + 0.25 a byte: 2000, 6000 and 10000 bytes.
  const rows: CalibrationRow[] = [[2000, 4096], [6000, 9000], [10000, 20000]].map(([code, mac], i) => {
    const units = COST_CLASSES.map(() => 0);
    units[k('MAC_CONV')] = mac;
    units[k('CODE_LAYER')] = 1;
    units[k('CODE_BYTE')] = code;
    const cold = 1040 + code * 0.25;
    return { name: `row${i}`, units, asCycles: 0, asOther: 50, issCycles: 50 + mac * 0.5 + cold, issColdCycles: cold, issBetweenCycles: 0 };
  });
  const fit = await fitCosts(rows, HAND_COUNTS, ['CALL']);
  assert.is(fit.costs.CODE_LAYER, 1040);
  assert.is(fit.costs.CODE_BYTE, 0.25);
  assert.equal(fit.fromColdLines, ['CODE_LAYER', 'CODE_BYTE']);
  assert.is(fit.costs.MAC_CONV, 0.5, 'the rest by the least squares, the code held');
  // a platform whose ISS has no instruction cache brings no line in: both 0, not left to the least squares
  const none = await fitCosts(rows.map((r) => ({ ...r, issColdCycles: 0 })), HAND_COUNTS, ['CALL']);
  assert.equal(none.fromColdLines, ['CODE_LAYER', 'CODE_BYTE']);
  assert.equal([none.costs.CODE_LAYER, none.costs.CODE_BYTE], [0, 0]);
});

test('the code every core of a team fetches: CODE_LAYER + bytes x CODE_BYTE from the waits of the cores that run the kernel alone', () => {
  // Waits of 640 cycles a layer + 3/32 a byte, on few-output layers of 1,700 to 10,000 bytes of C; a large layer's
  // repeated misses (not few outputs) and a run without a wait (no instruction cache) do not count.
  const run = (codeBytes: number, fewOutputs = true, wait = 640 + (codeBytes * 3) / 32) =>
    ({ name: `${codeBytes}`, out: '', inputs: [], issCycles: 0, fewOutputs, workerFetch: wait, codeBytes, issPieces: [] });
  const code = measuredFromWorkerFetch([run(1700), run(3200), run(4600), run(10000), run(9000, false, 12000), run(5000, true, 0)]);
  assert.equal([...code], [['CODE_LAYER', 640], ['CODE_BYTE', 3 / 32]]);
  assert.is(measuredFromWorkerFetch([run(3000, true, 0)]).size, 0);
});

test('TRANSFER by difference: none without pairs; a pair the planner no longer cuts two ways, or without its other half, is an error', async () => {
  const run = (name: string, transfers: 'few' | 'many', transferUnits: number): TeamRun =>
    ({ name, out: '', inputs: [], issCycles: 9000, fewOutputs: false, workerFetch: 0, codeBytes: 0, issPieces: [], transfers, transferUnits });
  const costs = HAND_COUNTS as Record<CostClass, number>;
  assert.is(await transferByDifference([], costs), undefined);
  const alike = [run('t', 'few', 21), run(`t${MANY_TRANSFERS}`, 'many', 21)];
  await transferByDifference(alike, costs).then(() => assert.unreachable('a pair planned alike was accepted'), (e: Error) => assert.match(e.message, /planned with no more transfers than 't' \(21 against 21\)/));
  await transferByDifference([run(`u${MANY_TRANSFERS}`, 'many', 200)], costs).then(() => assert.unreachable('a lone half was accepted'), (e: Error) => assert.match(e.message, /has no layer of few transfers/));
});

test('the calibration\'s pairs for TRANSFER: each a layer of the same name planned with transfers rewarded, run on the team only', () => {
  const pairs = CALIBRATION.filter((l) => l.transfers !== undefined);
  assert.ok(pairs.length >= 2, `${pairs.length} layers`);
  for (const many of pairs.filter((l) => l.transfers === 'many')) {
    const few = pairs.find((l) => l.transfers === 'few' && `${l.name}${MANY_TRANSFERS}` === many.name);
    assert.ok(few, many.name);
    assert.ok((many.plannedWith?.TRANSFER ?? 0) < 0, 'the planner rewards transfers');
    assert.equal(many.options, few!.options, 'the same L1');
    assert.ok(forFixedCosts(many) && forFixedCosts(few!));
  }
});

test('compiled bytes per byte of C: each code key\'s rows summed, `*` the keys\' median; rows of several layers or no ELF left out', () => {
  const row = (key: string, sourceBytes: number, compiled: number): CalibrationRow =>
    ({ name: key, units: [], asCycles: 0, asOther: 0, issCycles: 0, issColdCycles: 0, issBetweenCycles: 0, code: { key, sourceBytes, compiled } });
  const rows = [row('conv2d simd', 10000, 1200), row('conv2d simd', 6000, 1000), row('maxpool', 2000, 1000), row('gemm', 4000, 0),
    { name: 'two layers', units: [], asCycles: 0, asOther: 0, issCycles: 0, issColdCycles: 0, issBetweenCycles: 0 }];
  // 2,200 / 16,000 = 0.1375 (140.8 / 1024), 1,000 / 2,000, and their median (0.1375 + 0.5) / 2 = 0.31875 (326.4 / 1024)
  assert.equal(codeRatiosOf(rows), { '*': 326 / 1024, 'conv2d simd': 141 / 1024, maxpool: 0.5 });
  // an odd number of keys: the middle one
  assert.equal(codeRatiosOf([...rows, row('gather', 1000, 300)])['*'], 307 / 1024);
});

test('a network image\'s code: its layers\' compiled bytes over the same layers\' alone, by name; 1 without such runs', () => {
  const rows = [{ name: 'a', code: { key: 'k', sourceBytes: 1000, compiled: 200 } }, { name: 'b', code: { key: 'k', sourceBytes: 500, compiled: 100 } }, { name: 'c' }];
  assert.is(codeImageFactor([], rows), 1);
  // a and b in two runs (a once in each): (240 + 230 + 120) / (200 + 200 + 100); c (no code alone) and d (no row) left out
  const team = [{ image: [{ name: 'a', compiled: 240 }, { name: 'b', compiled: 120 }, { name: 'c', compiled: 50 }] }, { image: [{ name: 'a', compiled: 230 }, { name: 'd', compiled: 70 }] }, {}];
  assert.ok(Math.abs(codeImageFactor(team, rows) - 590 / 500) < 1e-12);
  assert.equal(scaledRatios({ k: 0.25, j: 0.5 }, 1.18), { k: 0.294921875, j: 0.58984375 });
});

test('measure: a conv layer on one core, the AS units are the layer\'s MACs and outputs, the ISS ran the same C', async () => {
  const work = mkdtempSync(join(tmpdir(), 'firmgen-costfit-'));
  try {
    const conv = CALIBRATION.find((l) => l.name === 'conv3x3/2 8->16 16x16')!;
    const [row] = await measure([conv], work, fitTarget('siracusa'));
    // 16 output channels x 8 x 8 pixels, 8 x 3 x 3 MACs each; one requantized output per output element.
    assert.is(row.units[COST_CLASSES.indexOf('MAC_CONV')], 16 * 8 * 8 * 8 * 9);
    assert.is(row.units[COST_CLASSES.indexOf('REQUANT')], 16 * 8 * 8);
    assert.ok(row.issCycles > 0 && row.asOther > 0 && row.asOther < row.asCycles);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

const MEASURED_TABLES: Record<string, Partial<CoreCosts>> = { siracusa: SIRACUSA_MEASURED, generic: GENERIC_MEASURED };
const CODE_RATIO_TABLES: Record<string, Readonly<Record<string, number>>> = { siracusa: SIRACUSA_CODE_RATIOS, generic: GENERIC_CODE_RATIOS };

for (const t of FIT_TARGETS) {
  test(`${t.platform}: the committed measured table is the fit of this code (every calibration layer rerun)`, async () => {
    const work = mkdtempSync(join(tmpdir(), 'firmgen-costfit-all-'));
    try {
      const all = calibrationFor(t);
      const layers = all.filter(timed);
      const rows = await measure(layers, work, t);
      // The N-EUREKA tile loop's classes as the script measures them, after the rest (npu-job.ts).
      const team = t.fixedOnTeam ? await measureFixedCostRuns(layers, work, t) : [];
      const { fit } = await withNpuClasses(await fitCosts(rows, t.hand, t.held, team), all, work, t);
      const measured = Object.fromEntries(fit.fitted.map((c) => [c, fit.costs[c]]));
      assert.equal(measured, MEASURED_TABLES[t.platform], 'run `npm run fit:costs -- --write` and rebuild: the C or the calibration changed');
      // The compiled bytes per byte of C too, the code-only layers' included (an NPU's driver: layers.ts codeOnly).
      assert.equal(scaledRatios(codeRatiosOf([...rows, ...measureCode(all, work, t)]), codeImageFactor(team, rows)), CODE_RATIO_TABLES[t.platform], 'code ratios: refit');
      // And the emulator charges them (its table is generated from the same fit).
      const emu = await createEmulator(t.platform);
      for (const [c, v] of Object.entries(MEASURED_TABLES[t.platform])) assert.is(emu.cost_cycles(COST_CLASSES.indexOf(c as CostClass)), v, c);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}

test('siracusa: the measured bank replay skew brings the AS closer to the ISS on the whole team than lockstep', async () => {
  // Four calibration layers whose streams the lockstep replay makes collide (a GEMM's A rows 256 bytes apart, an Add's
  // and a transpose's operands, a conv's filters): the committed skew must score better (scripts/cost-fit/skew.ts)
  // than 0 (lockstep) by half.
  const names = ['gemm 64x256x128', 'add 1x32x16x16', 'transpose 4x64x32 [0,2,1]', 'conv3x3/1 16->32 16x16'];
  const work = mkdtempSync(join(tmpdir(), 'firmgen-costfit-skew-'));
  try {
    const fit = await fitSkew(await measureTeam(CALIBRATION.filter((l) => names.includes(l.name)), work, fitTarget('siracusa')));
    const measured = Number(/SIRACUSA_BANK_SKEW: i32 = (\d+);/.exec(readFileSync(join(REPO, 'emulator/assembly/chips/siracusa-measured.ts'), 'utf8'))?.[1]);
    assert.ok(SKEWS.includes(measured), `skew ${measured}`);
    assert.ok(fit.score.get(measured)! < fit.score.get(0)! / 2, `score at ${measured}: ${fit.score.get(measured)}, lockstep ${fit.score.get(0)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
