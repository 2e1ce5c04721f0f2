/**
 * The fit: per-unit costs x >= 0 such that, for every calibration layer, AS's other cycles + units . x = the ISS
 * cycles, in the least-squares sense on relative errors (a small layer counts as much as a large one). Classes the
 * calibration never exercises keep their given value.
 */
import { COST_CLASSES, type CoreCosts, type CostClass } from '../../generator/platforms/types.js';
import type { CalibrationRow, CodeSample } from './measure.js';
import { nnls } from './nnls.js';
import { closeLoop, type RoundCosts } from './settle.js';
import { fixedOnTeam, teamStepOf, transferByDifference, type TeamRun } from './team.js';
import { DW_LOOP, DW_STRIDED_LOOP, type MacShape } from '../../generator/kernels/streams.js';

/**
 * Fitted costs are kept in 1/64 cycle (exact in the emulator's Q16 clocks, finer than the fit's own spread), the MAC
 * classes in whole cycles per iteration of the loop their kernels declare to the bank model (kernels/streams.ts
 * loopOf): 1/32 for the conv's and the GEMM's 4x2 block, 1/8 for the GEMM's k-major loops (8 MACs: the transposed-B
 * path and the scalar loop), 1/4 for depthwise; CALL, a
 * thousand cycles a tile, in whole cycles (finer would follow the DMA overlap of the AS runs, which moves with the table).
 */
export const STEP: Partial<Record<CostClass, number>> = { MAC_CONV: 32, MAC_GEMM: 32, MAC_GEMM_KDOT: 8, MAC_GEMM_SCALAR: 8, MAC_DW: 4, CALL: 1 };
const stepOf = (c: CostClass): number => STEP[c] ?? 64;

export interface Fit {
  costs: Record<CostClass, number>;
  fitted: CostClass[];
  /** Of them, the classes measured apart (measuredByDifference, measuredBetweenLayers), not by the least squares. */
  apart: CostClass[];
  /** Of those, the ones measured between the layers of runs of several (measuredBetweenLayers). */
  betweenLayers: CostClass[];
  /** Of them, the classes measured on the ISS's instruction-cache misses (measuredFromColdLines). */
  fromColdLines: CostClass[];
  /** Of them, the classes measured on the team's cores' waits for the instruction cache (measuredFromWorkerFetch). */
  fromWorkerFetch?: CostClass[];
  /** Compiled bytes per byte of C by code key (codeRatiosOf; Platform.codeRatios). */
  codeRatios?: Record<string, number>;
  /** Of them, the fixed costs measured on the few-output layers (fixedOnFewOutputs). */
  onFewOutputs: CostClass[];
  /** Whether those were measured on the whole team (team.ts), not on one core. */
  onTeam?: boolean;
  /** Of them, the classes measured by difference on the team's pairs of plans (team.ts transferByDifference). */
  fromTransferPairs?: CostClass[];
  /** Of them, the classes measured on the N-EUREKA layers of several tiles on the team (npu-job.ts). */
  fromNpuLayers?: CostClass[];
  /** Per calibration row: the AS prediction with the fitted costs over the ISS cycles. */
  ratios: { name: string; predicted: number; iss: number; ratio: number }[];
}

/**
 * Classes held at their given value whatever the calibration: DIV, the divider's worst case, charged where the AS does
 * not know the divisor (an iSoftmax's row sum past 31 bits, the norms' and reductions' divisions); the iSoftmax's
 * divisions by a known sum are charged at the core's time for it (emulator `divide`), outside the classes.
 */
const HELD: readonly CostClass[] = ['DIV'];

/**
 * The least a MAC class can cost: its loops' word accesses per MAC (the bank model streams them at the class's period,
 * kernels/streams.ts loopOf, one access a cycle at most), rounded up to the class's step. Where two classes count
 * about the same work the least squares may give one all of it: the depthwise row path's words read (ROW_WORD) are
 * its MACs over 3 or 6, and once its edge pairs went (the plane path, 2026-12-02) the fit put MAC_DW at 0.
 */
const FLOOR: Partial<Record<CostClass, number>> = { MAC_DW: floorOf('MAC_DW', [DW_LOOP, DW_STRIDED_LOOP]) };

function floorOf(c: CostClass, loops: MacShape[]): number {
  const least = Math.max(...loops.map((l) => l.accesses / l.macs));
  return Math.ceil(least * stepOf(c)) / stepOf(c);
}

/** Marks a calibration row that runs another row's firmware on inputs of zeros (layers.ts zeroInputs). */
export const ZERO_INPUTS = ', zero inputs';

/**
 * Classes measured apart, by difference: a layer's firmware run on its data and on zeros differs only in the units
 * that follow the data (CLIP_TAKEN: the values a clamp changes), so their cost is the ISS's cycles between the two runs
 * over the units between them, summed over such pairs; not left to the least squares, which would trade it against
 * the per-element classes of the same layers. Classes no pair separates are absent.
 */
export function measuredByDifference(rows: CalibrationRow[]): Map<CostClass, number> {
  const cycles = new Map<number, number>();
  const units = new Map<number, number>();
  for (const z of rows.filter((r) => r.name.endsWith(ZERO_INPUTS))) {
    const d = rows.find((r) => r.name === z.name.slice(0, -ZERO_INPUTS.length));
    if (!d) continue;
    const differ = COST_CLASSES.map((_, k) => k).filter((k) => d.units[k] !== z.units[k]);
    if (differ.length !== 1) continue;
    const k = differ[0];
    cycles.set(k, (cycles.get(k) ?? 0) + d.issCycles - z.issCycles);
    units.set(k, (units.get(k) ?? 0) + d.units[k] - z.units[k]);
  }
  return new Map([...units].map(([k, u]) => [COST_CLASSES[k], Math.round((cycles.get(k)! / u) * 64) / 64]));
}

/** Marks a calibration row that runs another row's layer after a layer of its own (layers.ts afterAnother). */
export const AFTER_ANOTHER = ' after another';
/** Marks a calibration layer run as a network's later layer (layers.ts inNetwork). */
export const IN_A_NETWORK = ', in a network';
const SKELETON_ID = COST_CLASSES.indexOf('SKELETON');

/**
 * The skeleton's work between two layers (SKELETON), measured apart on the rows of several layers: the ISS's cycles
 * between their marks over the boundaries the AS charged. Absent when no row has two layers.
 */
export function measuredBetweenLayers(rows: CalibrationRow[]): Map<CostClass, number> {
  const several = rows.filter((r) => r.units[SKELETON_ID] > 0);
  if (several.length === 0) return new Map();
  const cycles = several.reduce((s, r) => s + r.issBetweenCycles, 0);
  const boundaries = several.reduce((s, r) => s + r.units[SKELETON_ID], 0);
  return new Map([['SKELETON', Math.round((cycles / boundaries) * 64) / 64]]);
}

/** The classes of a layer's cold code (measuredFromColdLines). */
const CODE_CLASSES: readonly CostClass[] = ['CODE_LAYER', 'CODE_BYTE', 'CODE_TILES', 'CODE_NEXT'];

/**
 * The layer's code fetched cold (CODE_LAYER per layer, CODE_BYTE per byte of its C, CODE_TILES per tiled layer,
 * CODE_NEXT per layer of several tiles) from the lines the ISS brought into the shared instruction cache, which each
 * core waits for once (non-negative least squares of their units x costs on those lines' cycles, errors relative to
 * the layer's ISS cycles). Not from the layers' cycles: once per layer like LAYER and CALL, the least squares gave them
 * those classes' cycles (all three at 0, the whole team's small layers at 1.2-1.5 of the ISS), and the fetch stalls of
 * the large layers also count their repeated misses in the private levels (a loop and its output code over 512 bytes),
 * which are per unit of their work: the per-unit classes take those. Absent when no row charged code; 0 when none
 * brought a line in (an ISS without the cache: nothing to charge, and the least squares must not take them).
 */
export function measuredFromColdLines(rows: CalibrationRow[], held: readonly CostClass[] = []): Map<CostClass, number> {
  const classes = CODE_CLASSES.filter((c) => !held.includes(c) && rows.some((r) => r.units[COST_CLASSES.indexOf(c)] > 0));
  if (classes.length === 0) return new Map();
  const ks = classes.map((c) => COST_CLASSES.indexOf(c));
  const used = rows.filter((r) => ks.some((k) => r.units[k] > 0) && r.issColdCycles > 0);
  if (used.length === 0) return new Map(classes.map((c) => [c, 0]));
  // errors relative to the layer's cycles: the cold code matters where it is much of a layer (a small one), not where
  // it is a few per cent of a large one (relative to the cold cycles themselves, the large layers' longer code set
  // CODE_BYTE, and a model's small layers of large C came out 25 % over)
  const x = nnls(used.map((r) => ks.map((k) => r.units[k] / r.issCycles)), used.map((r) => r.issColdCycles / r.issCycles));
  return new Map(classes.map((c, j) => [c, Math.round(x[j] * 64) / 64]));
}

/**
 * The layer's code that every core of a team fetches cold (CODE_LAYER a core, CODE_BYTE a compiled byte), measured on
 * the ISS's waits for the instruction cache of the cores that run the kernel alone (TeamRun.workerFetch; core 0 also
 * drives the tiles), over the few-output layers (non-negative least squares on those cycles): each class from the
 * counter of the work it stands for. Fitted on the layers' cycles instead, they traded with LAYER and the tile's
 * costs (all once a layer on core 0's path) and came out at about half of the cores' waits (376 + 0.047 a byte of C,
 * where the cores waited 650 + 0.096 a byte of C), which priced a layer's kernel phase alike whatever its code. Absent
 * without team runs, or where no core waited (an ISS without the cache).
 */
export function measuredFromWorkerFetch(team: TeamRun[]): Map<CostClass, number> {
  const used = team.filter((r) => r.fewOutputs && r.workerFetch > 0 && r.codeBytes > 0);
  if (used.length === 0) return new Map();
  const x = nnls(used.map((r) => [1, r.codeBytes]), used.map((r) => r.workerFetch));
  return new Map([['CODE_LAYER', Math.round(x[0])], ['CODE_BYTE', Math.round(x[1] * 64) / 64]]);
}

/**
 * The compiled bytes per byte of a layer's C, by code key (backend/c-image.ts codeKey), over the one-layer calibration
 * rows and the code-only layers (measure.ts measureCode): their compiled bytes over their C's, each key's rows summed,
 * and `*` the median of the keys' (for keys the calibration lacks: pooled over all rows, the convs' long C set it at
 * 0.18, and a decoder's untiled Slices and cache writes, 0.27-0.30, came out a third short). A kernel's C holds
 * constant-folded paths and asm text: its bytes compile at 0.12-0.2 (the SIMD convs) to 0.5-0.7 (pools, norms) of the
 * C's, which one CODE_BYTE a byte of C could not price alike. In 1/1024ths.
 */
export function codeRatiosOf(rows: { code?: CodeSample }[]): Record<string, number> {
  const sums = new Map<string, [number, number]>();
  for (const r of rows) {
    if (!r.code || r.code.sourceBytes === 0 || r.code.compiled === 0) continue;
    const [c, s] = sums.get(r.code.key) ?? [0, 0];
    sums.set(r.code.key, [c + r.code.compiled, s + r.code.sourceBytes]);
  }
  const ratios = new Map([...sums].map(([k, [c, s]]) => [k, c / s]));
  const sorted = [...ratios.values()].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length > 0) ratios.set('*', sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2);
  return Object.fromEntries([...ratios].sort(([a], [b]) => a.localeCompare(b)).map(([k, r]) => [k, Math.round(r * 1024) / 1024]));
}

/**
 * What the layers of a network's image compile to against the same layers built alone: the calibration layers of the
 * runs in a network's state (layers.ts inNetwork; TeamRun.image) over their one-layer rows' compiled bytes, summed.
 * The same C compiles larger among other layers: a 2x2 pool of 32 planes 16x16 to 642 bytes after five layers, 528
 * alone, 107 of its 215 instructions 4 bytes long against 75 of 198 (a network's larger arena offsets and constants
 * fit fewer compressed forms); the code ratios of one-layer rows put a network's layers 13-16 % short
 * (docs/timing-journal.md "A network's state for the fixed costs"). 1 without such runs.
 */
export function codeImageFactor(team: { image?: { name: string; compiled: number }[] }[], rows: { name: string; code?: CodeSample }[]): number {
  const alone = new Map(rows.filter((r) => r.code && r.code.compiled > 0).map((r) => [r.name, r.code!.compiled]));
  let inImage = 0;
  let single = 0;
  for (const { name, compiled } of team.flatMap((r) => r.image ?? [])) {
    const a = alone.get(name);
    if (a === undefined || compiled === 0) continue;
    inImage += compiled;
    single += a;
  }
  return single > 0 ? inImage / single : 1;
}

/** `ratios` (codeRatiosOf) times `factor` (codeImageFactor), in 1/1024ths. */
export const scaledRatios = (ratios: Record<string, number>, factor: number): Record<string, number> =>
  Object.fromEntries(Object.entries(ratios).map(([k, r]) => [k, Math.round(r * factor * 1024) / 1024]));

/**
 * A layer's fixed costs: its fork and own set-up (LAYER), a kernel call on each core (CALL, every layer), a tile's
 * driving by core 0 (TILE, a tiled layer's tiles) and, on a team only, a GEMM call's first-unit divisions (GEMM_SPLIT). Measured on the layers of a few outputs (layers.ts fewOutputs), where they are most of the cycles,
 * not by the least squares over all layers: there they took whatever the per-unit classes of the large layers left
 * (with one CALL for both, 846 cycles, which put an untiled reduction of four values at 1.42 of its ISS cycles).
 */
export const FIXED: readonly CostClass[] = ['LAYER', 'CALL', 'TILE', 'GEMM_SPLIT', 'TRANSFER'];
/**
 * Fixed costs measured on the team runs alone, held in the one-core least squares: GEMM_SPLIT and CODE_SHAPE are
 * charged on more than one core only; CODE_RUN on one core too, but there every row is a run's first layer, so the
 * one-core rows cannot tell it from LAYER.
 */
const TEAM_ONLY: readonly CostClass[] = ['GEMM_SPLIT', 'CODE_SHAPE', 'CODE_RUN'];

/**
 * The fixed costs that, with the per-unit classes at `costs`, come closest to the few-output layers' ISS cycles (least
 * squares on cycles, non-negative), in whole cycles; only the classes those layers have.
 */
export function fixedOnFewOutputs(rows: CalibrationRow[], costs: Record<CostClass, number>): Map<CostClass, number> {
  const few = rows.filter((r) => r.fewOutputs);
  const present = FIXED.filter((c) => few.some((r) => r.units[COST_CLASSES.indexOf(c)] > 0));
  const A = few.map((r) => present.map((c) => r.units[COST_CLASSES.indexOf(c)]));
  const b = few.map((r) => r.issCycles - r.asOther - COST_CLASSES.reduce((s, c, k) => s + (FIXED.includes(c) ? 0 : r.units[k] * costs[c]), 0));
  const x = nnls(A, b);
  return new Map(present.map((c, j) => [c, Math.round(x[j])]));
}

/**
 * The fit. With few-output layers among the rows, the fixed costs are measured on them and the per-unit classes fitted
 * with those held, in turn until neither moves (each depends on the other: a few-output layer has some per-unit work,
 * a large layer some fixed; three to five rounds). With `team` (the layers run on the platform's whole team,
 * team.ts), the fixed costs and the cold code's classes are measured on its few-output ones, where users' layers run
 * (the code's from the one-core cold lines at first), and the one-core rows set the per-unit classes only, with the AS
 * runs' bank replay at `bankSkew` (fitted beside the table, skew.ts).
 */
export async function fitCosts(rows: CalibrationRow[], givenCosts: CoreCosts, keepGiven: readonly CostClass[] = [], team: TeamRun[] = [], bankSkew?: number): Promise<Fit> {
  if (!rows.some((r) => r.fewOutputs) || FIXED.some((c) => keepGiven.includes(c))) return fitPerUnit(rows, givenCosts, keepGiven);
  const onTeam = team.some((r) => r.fewOutputs);
  // The code every core of the team fetches, from those cores' waits (measuredFromWorkerFetch): held through the rounds.
  const worker = onTeam ? measuredFromWorkerFetch(team) : new Map<CostClass, number>();
  const given: CoreCosts = { ...givenCosts, ...Object.fromEntries(worker) };
  const keep = [...keepGiven, ...worker.keys()];
  let fixed = new Map<CostClass, number>();
  const history: RoundCosts[] = [];
  for (let round = 0; round < 20; round++) {
    // On the team the rest of the layer's cold code (CODE_*) is measured with the fixed costs: from the cold lines in
    // the first round only, as where the team's fit starts.
    const codeOnTeam = onTeam && round > 0;
    const fit = fitPerUnit(rows, { ...given, ...Object.fromEntries(fixed) }, [...keep, ...FIXED, ...(codeOnTeam ? CODE_CLASSES : [])], !codeOnTeam);
    const onOne = fixedOnFewOutputs(rows, fit.costs);
    // Not CODE_NEXT on the team: with layers in a network's state among its rows (a trial after six small layers) it
    // and CODE_TILES traded places from round to round (41-47 and 122-165 cycles) and did not settle; it stays at its
    // hand count, 0, where the fit on first layers alone had put it.
    const code = CODE_CLASSES.filter((c) => c !== 'CODE_NEXT' && !worker.has(c) && (fit.fromColdLines.includes(c) || fixed.has(c)));
    const start = { ...fit.costs, ...Object.fromEntries(round > 0 ? fixed : onOne) };
    // TRANSFER by difference on the team where the calibration has a pair for it (team.ts transferByDifference),
    // held while the other fixed costs are fitted.
    const transfer = onTeam ? await transferByDifference(team, start, bankSkew) : undefined;
    const apart: CostClass[] = transfer === undefined ? [] : ['TRANSFER'];
    let next = onTeam ? await fixedOnTeam(team, { ...start, ...(transfer === undefined ? {} : { TRANSFER: transfer }) }, [...onOne.keys(), ...TEAM_ONLY, ...code].filter((c) => !apart.includes(c)), givenCosts as Record<CostClass, number>, bankSkew) : onOne;
    if (transfer !== undefined) next.set('TRANSFER', transfer);
    // Classes that stand for about the same work (LAYER, CALL and CODE_LAYER once a layer; TILE and CODE_TILES once
    // a one-tile layer's) can trade places from one round to the next, each round's least squares starting where the
    // last ended: from the fourth round each moves half way, until they stay.
    if (round >= 3) next = new Map([...next].map(([c, v]) => [c, Math.round((((fixed.get(c) ?? v) + v) / 2) * teamStepOf(c)) / teamStepOf(c)]));
    // Halving by whole steps can still close a loop of a few rounds: settled on its mean (settle.ts).
    const loop = closeLoop(history, next, teamStepOf);
    next = loop.costs;
    history.push(next);
    // Settled when no fixed cost moves by more than its step (a cycle; on the team the whole cycles of the AS runs can
    // make one alternate by a step between rounds), or after a loop: the per-unit classes are then fitted once more
    // with the last ones.
    if (round > 0 && (loop.looped || [...next].every(([c, v]) => Math.abs(fixed.get(c)! - v) <= 1 / teamStepOf(c)))) {
      const last = [...next].every(([c, v]) => fixed.get(c) === v) ? fit : fitPerUnit(rows, { ...given, ...Object.fromEntries(next) }, [...keep, ...FIXED, ...(onTeam ? CODE_CLASSES : [])], !onTeam);
      return { ...last, fitted: [...last.fitted, ...next.keys(), ...worker.keys()], onFewOutputs: [...next.keys()].filter((c) => !apart.includes(c)), onTeam, fromWorkerFetch: [...worker.keys()], fromTransferPairs: apart };
    }
    if (process.env.FIRMGEN_FIT_TEAM_LOG) console.log(`round ${round}: ${[...next].map(([c, v]) => `${c} ${v}`).join(', ')}`);
    fixed = next;
  }
  throw new Error(`the fixed costs (${FIXED.join(', ')}) and the per-unit classes did not settle in 20 rounds`);
}

/** `coldLines`: the code classes from the cold lines (measuredFromColdLines); else they are among the given ones. */
function fitPerUnit(rows: CalibrationRow[], givenCosts: CoreCosts, keepGiven: readonly CostClass[], coldLines = true): Fit {
  const between = measuredBetweenLayers(rows);
  const apart = new Map([...measuredByDifference(rows), ...between]);
  // The rows of a layer after another measure the skeleton only (layers.ts afterAnother); the calibration layers that
  // compile to several kernels stay.
  const single = rows.filter((r) => !r.name.endsWith(AFTER_ANOTHER));
  const cold = coldLines ? measuredFromColdLines(single, keepGiven) : new Map<CostClass, number>();
  const given = { ...givenCosts, ...Object.fromEntries(apart), ...Object.fromEntries(cold) };
  const keep = [...keepGiven, ...apart.keys(), ...cold.keys()];
  const fitted = COST_CLASSES.filter((c, k) => !keep.includes(c) && !HELD.includes(c) && !TEAM_ONLY.includes(c) && single.some((r) => r.units[k] > 0));
  const A = single.map((r) => fitted.map((c) => r.units[COST_CLASSES.indexOf(c)] / r.issCycles));
  // A class with a floor is fitted as the floor plus a non-negative rest.
  const floor = (c: CostClass): number => FLOOR[c] ?? 0;
  const b = single.map((r) => {
    const fixed = COST_CLASSES.reduce((s, c, k) => s + (fitted.includes(c) ? floor(c) : given[c]) * r.units[k], 0);
    return (r.issCycles - r.asOther - fixed) / r.issCycles;
  });
  const x = nnls(A, b);
  const costs = Object.fromEntries(COST_CLASSES.map((c) => [c, given[c]])) as Record<CostClass, number>;
  fitted.forEach((c, j) => (costs[c] = Math.round((floor(c) + x[j]) * stepOf(c)) / stepOf(c)));
  fitted.push(...apart.keys(), ...cold.keys());
  const ratios = rows.map((r) => {
    const predicted = r.asOther + COST_CLASSES.reduce((s, c, k) => s + r.units[k] * costs[c], 0);
    return { name: r.name, predicted: Math.round(predicted), iss: r.issCycles, ratio: predicted / r.issCycles };
  });
  return { costs, fitted, apart: [...apart.keys()], betweenLayers: [...between.keys()], fromColdLines: [...cold.keys()], onFewOutputs: [], ratios, codeRatios: codeRatiosOf(rows) };
}
