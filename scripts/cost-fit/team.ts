/**
 * The fixed costs (LAYER, CALL, TILE, TRANSFER, GEMM_SPLIT, which only a team has, and the layer's cold code CODE_*:
 * each core's wait for its lines) measured where a user's layers run: the few-output calibration layers on the
 * platform's whole team. On one core a layer's fork, barriers and join are a team of one's, and its share bounds
 * divide by one; on the team the fork wakes seven cores, every barrier waits for the last of eight and the marks and
 * the tile driving sit on core 0's path while the others wait. The per-unit classes stay fitted on one core (every
 * unit on the critical path there); these few layers, mostly fixed cost, set the fixed costs on the team.
 *
 * The AS cycles of a team run are not a sum of units x costs (the critical path runs through whichever core ends a
 * phase last), so the fixed costs are found by Gauss-Newton on the AS runs themselves: the cycles' change per cycle of
 * each fixed cost is measured by running the AS firmware with that cost moved, and the non-negative least squares on
 * relative errors gives the next costs, until they stay.
 */
import { COST_CLASSES, type CostClass } from '../../generator/platforms/types.js';
import { runFirmware } from '../../runtime/node/run.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { nnls } from './nnls.js';
import { asPhases, beforeAndAfterFirst } from '../../runtime/node/phases.js';

/** A calibration layer's firmware for the whole team and its ISS cycles (measure.ts measureTeam). */
export interface TeamRun {
  name: string;
  out: string;
  inputs: NDArray[];
  issCycles: number;
  /** A layer of a few outputs (layers.ts fewOutputs): the fixed costs' rows. */
  fewOutputs: boolean;
  /**
   * A few-output layer run as a network's later layer (layers.ts inNetwork): its pieces are its last layer's, weighed
   * by that layer's cycles. The one-layer runs are each a run's first layer, whose runtime code core 0 fetches cold
   * (CODE_RUN); fitted on those alone, LAYER and the tile's costs took that fetch too and priced a network's later
   * small layers over the ISS.
   */
  later?: true;
  /** A later layer's run: each of its layers' compiled bytes in that network's image, by calibration layer (fit.ts codeImageFactor). */
  image?: { name: string; compiled: number }[];
  /**
   * The ISS's longest wait for the instruction cache among the team's cores but core 0 (which also drives the tiles):
   * a core that runs the layer's kernel and nothing else, its code fetched cold. 0 on a team of one.
   */
  workerFetch: number;
  /** The layer's compiled bytes as built (its functions in the rv32 image; averaged over a run of several layers). */
  codeBytes: number;
  /**
   * Per layer of the run (its id), core 0's ISS cycles before the team's first barrier released it (the tile driving)
   * and after (the kernel, the write-back, the join): runtime/node/phases.ts. The fixed costs are fitted to both
   * pieces, not to their sum: a cost charged in the wrong one (the code a core fetches on its way to the first
   * barrier, charged at its share) fits the totals as well.
   */
  issPieces: { layer: number; pieces: [number, number]; cycles?: number }[];
  /** One of a pair for TRANSFER (layers.ts transferPair), and the transfers the AS charged it (its TRANSFER units). */
  transfers?: 'few' | 'many';
  transferUnits?: number;
}

/** The step by which a fixed cost is moved to measure its effect on the AS cycles: 64 cycles, or a quarter cycle a
 * byte of a layer's C (CODE_BYTE: thousands of bytes a layer, 64 would make the code the whole of every run), or 4 a
 * sixteenth of the tile loop's shared code (CODE_TILES, runtime/as/cluster.ts tilesEvicted). */
const probeOf = (c: CostClass): number => (c === 'CODE_BYTE' ? 0.25 : c === 'CODE_TILES' ? 4 : 64);
/** Fixed costs are kept in whole cycles, CODE_BYTE and CODE_TILES (a sixteenth) in 1/64 cycle (the emulator's table
 * is in 64ths). */
export const teamStepOf = (c: CostClass): number => (c === 'CODE_BYTE' || c === 'CODE_TILES' ? 64 : 1);

/**
 * The weight, per cycle, of each fixed cost's distance from its hand count in the least squares: a tie-break and no
 * more. Some fixed costs stand for about the same work on these layers (LAYER and CODE_TILES once a tiled layer, CALL
 * and TILE once a tile; the untiled layers set LAYER + CALL), so a line of costs fits them about equally well, and the
 * fit ended where its rounds happened to stop (CALL 1 or 269 from one refit to the next, which moved 8 of a decoder
 * step's layers past 10 %). A thousand cycles from the hand count weighs as a 1 % error of one layer: nothing the
 * layers measure moves, and along such a line the costs nearest the hand counts win (CALL's is 34).
 */
const TIE_BREAK = 1e-5;
/** Units a whole charge of a class comes in: CODE_TILES charges sixteenths (runtime/as/cluster.ts TILES_PARTS), so
 * that its tie-break weighs a cycle of the whole as the other classes' does. */
const unitsOf = (c: CostClass): number => (c === 'CODE_TILES' ? 16 : 1);

/**
 * The AS cycles of each run under `costs` and the bank replay's start skew `bankSkew` (the emulator's own where
 * undefined), one run after another (not concurrently: each loads its own emulator).
 */
async function asCycles(runs: TeamRun[], costs: Record<CostClass, number>, bankSkew?: number): Promise<number[]> {
  const cycles: number[] = [];
  for (const run of runs) cycles.push((await runAs(run, costs, bankSkew)).cycles);
  return cycles;
}

/** A team run's AS firmware under `costs`, its code priced as built. */
const runAs = (run: TeamRun, costs: Record<CostClass, number>, bankSkew?: number) =>
  runFirmware(run.out, run.inputs, { costs: COST_CLASSES.map((c) => costs[c]), bankSkew, builtCode: true });

/**
 * The AS's pieces of each run under `costs` (TeamRun.issPieces' layers, each before and after the first barrier's
 * release), flattened in that order; a layer the AS run lacks counts 0 in both.
 */
async function asPieces(runs: TeamRun[], costs: Record<CostClass, number>, bankSkew?: number): Promise<number[][]> {
  const out: number[][] = [];
  for (const run of runs) {
    const r = await runAs(run, costs, bankSkew);
    out.push(run.issPieces.flatMap((p) => beforeAndAfterFirst(asPhases(r, p.layer) ?? [0, 0])));
  }
  return out;
}

/**
 * The fixed costs `classes` that, with the other classes at `costs`, bring the team runs' AS cycles closest to their
 * ISS cycles, each layer's before and after the team's first barrier (least squares on errors relative to the run's
 * cycles, non-negative), in whole cycles; starting from `costs`' own values.
 * `bankSkew`: the bank replay's start skew the AS runs use (skew.ts; fitted beside the table).
 */
export async function fixedOnTeam(team: TeamRun[], costs: Record<CostClass, number>, classes: readonly CostClass[], hand: Record<CostClass, number>, bankSkew?: number): Promise<Map<CostClass, number>> {
  const runs = team.filter((r) => r.fewOutputs);
  let current = { ...costs };
  // One row per piece of each run: its ISS cycles, the run's cycles to weigh it by (a later layer's own).
  const target = runs.flatMap((r) => r.issPieces.flatMap((p) => p.pieces.map((v) => ({ v, scale: p.cycles ?? r.issCycles }))));
  for (let round = 0; round < 8; round++) {
    const base = (await asPieces(runs, current, bankSkew)).flat();
    const slope: number[][] = target.map(() => []);
    for (const c of classes) {
      const moved = (await asPieces(runs, { ...current, [c]: current[c] + probeOf(c) }, bankSkew)).flat();
      moved.forEach((m, i) => slope[i].push((m - base[i]) / probeOf(c)));
    }
    const A = [...target.map((t, i) => slope[i].map((s) => s / t.scale)), ...classes.map((c, j) => classes.map((__, k) => (k === j ? TIE_BREAK * unitsOf(c) : 0)))];
    const b = [...target.map((t, i) => (t.v - base[i] + classes.reduce((s, c, j) => s + slope[i][j] * current[c], 0)) / t.scale), ...classes.map((c) => TIE_BREAK * unitsOf(c) * hand[c])];
    const x = nnls(A, b);
    const next = { ...current };
    classes.forEach((c, j) => (next[c] = Math.round(x[j] * teamStepOf(c)) / teamStepOf(c)));
    if (classes.every((c) => next[c] === current[c])) break;
    current = next;
  }
  if (process.env.FIRMGEN_FIT_TEAM_LOG) {
    const final = await asCycles(runs, current, bankSkew);
    runs.forEach((r, i) => console.log(`team ${r.name}: ISS ${r.issCycles} AS ${final[i]} AS/ISS ${(final[i] / r.issCycles).toFixed(3)}`));
  }
  return new Map(classes.map((c) => [c, current[c]]));
}

/** Marks the calibration layer planned into tiles of many transfers (layers.ts transferPair). */
export const MANY_TRANSFERS = ', many transfers';

/** The step TRANSFER is moved by to measure the AS runs' slope (transferByDifference). */
const TRANSFER_PROBE = 64;

/**
 * TRANSFER, the driving core's programming of a transfer, by difference on the team: each pair (layers.ts
 * transferPair) is one layer planned into tiles of few and of many transfers, and TRANSFER is the cost at which the
 * AS runs' difference between the two equals the ISS's (Newton's steps on the AS runs themselves, the other classes
 * at `costs`), in whole cycles. Among the few-output layers it traded against CALL (those program two to nine
 * transfers a tile, about as many as they call), and at 0 the planner cut layers into tiles of many short transfers
 * again. Undefined without pairs.
 */
export async function transferByDifference(team: TeamRun[], costs: Record<CostClass, number>, bankSkew?: number): Promise<number | undefined> {
  const pairs = team.filter((r) => r.transfers === 'many').map((many): [TeamRun, TeamRun] => {
    const few = team.find((r) => r.transfers === 'few' && r.name === many.name.slice(0, -MANY_TRANSFERS.length));
    if (!few) throw new Error(`calibration layer '${many.name}' has no layer of few transfers beside it`);
    if ((many.transferUnits ?? 0) <= (few.transferUnits ?? 0)) {
      throw new Error(`calibration layer '${many.name}' was planned with no more transfers than '${few.name}' (${many.transferUnits} against ${few.transferUnits}): the planner no longer cuts it two ways`);
    }
    return [few, many];
  });
  if (pairs.length === 0) return undefined;
  const issGap = pairs.reduce((s, [few, many]) => s + many.issCycles - few.issCycles, 0);
  const gapAt = async (transfer: number): Promise<number> => {
    const at = { ...costs, TRANSFER: transfer };
    const few = await asCycles(pairs.map(([f]) => f), at, bankSkew);
    const many = await asCycles(pairs.map(([, m]) => m), at, bankSkew);
    return many.reduce((s, c, i) => s + c - few[i], 0);
  };
  let transfer = costs.TRANSFER;
  let gap = 0;
  for (let round = 0; round < 8; round++) {
    gap = await gapAt(transfer);
    const slope = ((await gapAt(transfer + TRANSFER_PROBE)) - gap) / TRANSFER_PROBE;
    if (slope <= 0) throw new Error(`TRANSFER: the AS runs of its pairs (${pairs.map(([, m]) => m.name).join(', ')}) do not move with it`);
    const next = Math.max(0, Math.round(transfer + (issGap - gap) / slope));
    if (next === transfer) break;
    transfer = next;
  }
  // The AS gap at the last cost measured (the one returned, unless eight steps did not settle).
  if (process.env.FIRMGEN_FIT_TEAM_LOG) console.log(`TRANSFER by difference: ${transfer} (ISS gap ${issGap}, AS gap ${gap})`);
  return transfer;
}
