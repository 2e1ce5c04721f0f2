/**
 * NPU_JOB and NPU_TILE, core 0's programming of an N-EUREKA job beyond its register accesses and its driving of a
 * further tile (runtime/as/cost.ts), measured on the N-EUREKA layers of several tiles (layers.ts npuJob) on the whole
 * team with every other class at the fitted table: the whole cycles whose AS cycles of those layers (the neureka layers
 * alone, not the layout changes and requantizations around them) come closest to the ISS's, least squares on relative
 * errors. The two are told apart by where they lie: a job's programming between two write-backs (int32 outputs,
 * whose write-backs outlast the jobs, pace the layer with it), the next tile's driving after the write-back's issue
 * (with int8 outputs the core's whole loop paces it). The AS cycles grow with each by the tiles on the critical
 * path, which change as one side's work overtakes the other's: not a linear least squares, so the values are searched,
 * one class at a time (a coarse scan, then cycle by cycle around the best) until neither moves.
 */
import { join } from 'node:path';
import { COST_CLASSES, type CostClass } from '../../generator/platforms/types.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runInputs, type CalibrationLayer } from './layers.js';
import { runOnTeam } from './measure.js';
import type { Fit } from './fit.js';
import type { FitTarget } from './targets.js';

interface NpuRun { name: string; out: string; inputs: ReturnType<typeof runInputs>; layers: number[]; iss: number }

const NPU_CLASSES: readonly CostClass[] = ['NPU_JOB', 'NPU_TILE'];

/** The values found, and per layer at them the ISS's cycles of its neureka layers and the AS's. */
export interface NpuFit { costs: Map<CostClass, number>; rows: { name: string; iss: number; as: number }[] }

const COARSE = 16;
const LIMIT = 1024;
const ROUNDS = 8;

/** The neureka layers' AS cycles of each run under `costs`. */
async function asCycles(runs: NpuRun[], costs: Record<CostClass, number>, bankSkew?: number): Promise<number[]> {
  const table = COST_CLASSES.map((c) => costs[c]);
  const out: number[] = [];
  for (const r of runs) {
    const as = await runFirmware(r.out, r.inputs, { costs: table, bankSkew, builtCode: true });
    out.push(as.layers.filter((l) => r.layers.includes(l.layer)).reduce((s, l) => s + l.cycles, 0));
  }
  return out;
}

/** The calibration's N-EUREKA layers on the whole team (measure.ts runOnTeam), with their neureka layers' ISS cycles. */
async function npuRuns(layers: CalibrationLayer[], work: string, target: FitTarget): Promise<NpuRun[]> {
  const runs: NpuRun[] = [];
  for (const [i, l] of layers.entries()) {
    const { out, inputs, manifest, iss } = await runOnTeam(l, join(work, `npu${i}`), target);
    const npu = manifest.layers.filter((m) => m.kernel === 'neureka' && (m.tiling?.tiles ?? 1) > 1).map((m) => m.id);
    if (npu.length === 0) throw new Error(`calibration layer ${l.name}: no N-EUREKA layer of several tiles`);
    runs.push({ name: l.name, out, inputs, layers: npu, iss: iss.layers.filter((x) => npu.includes(x.layer)).reduce((s, x) => s + x.cycles, 0) });
  }
  return runs;
}

export async function npuOnTeam(layers: CalibrationLayer[], work: string, target: FitTarget, fitted: Record<CostClass, number>, bankSkew?: number): Promise<NpuFit> {
  const runs = await npuRuns(layers, work, target);
  const score = async (costs: Record<CostClass, number>): Promise<number> =>
    (await asCycles(runs, costs, bankSkew)).reduce((s, a, i) => s + ((a - runs[i].iss) / runs[i].iss) ** 2, 0);
  let costs: Record<CostClass, number> = { ...fitted, ...Object.fromEntries(NPU_CLASSES.map((c) => [c, 0])) };
  let best = await score(costs);
  // Class c at each of `values` in turn, keeping the best table found.
  const scan = async (c: CostClass, values: number[]): Promise<void> => {
    for (const v of values) {
      const s = await score({ ...costs, [c]: v });
      if (s < best) [best, costs] = [s, { ...costs, [c]: v }];
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const before = { ...costs };
    for (const c of NPU_CLASSES) {
      await scan(c, Array.from({ length: LIMIT / COARSE + 1 }, (_, k) => k * COARSE));
      await scan(c, Array.from({ length: 2 * COARSE - 1 }, (_, k) => costs[c] - COARSE + 1 + k).filter((v) => v >= 0));
    }
    if (NPU_CLASSES.every((c) => costs[c] === before[c])) break;
  }
  const final = await asCycles(runs, costs, bankSkew);
  return { costs: new Map(NPU_CLASSES.map((c) => [c, costs[c]])), rows: runs.map((r, i) => ({ name: r.name, iss: r.iss, as: final[i] })) };
}

/**
 * `fit` with NPU_JOB and NPU_TILE measured on the calibration's N-EUREKA layers among `all` (layers.ts npuJob; none
 * on a target without the engine: `fit` as it is), and the layers' AS and ISS cycles at them.
 */
export async function withNpuClasses(fit: Fit, all: CalibrationLayer[], work: string, target: FitTarget, bankSkew?: number): Promise<{ fit: Fit; rows: NpuFit['rows'] }> {
  const npu = all.filter((l) => l.npuJob);
  if (npu.length === 0) return { fit, rows: [] };
  const n = await npuOnTeam(npu, work, target, fit.costs, bankSkew);
  return {
    fit: { ...fit, costs: { ...fit.costs, ...Object.fromEntries(n.costs) }, fitted: [...fit.fitted, ...NPU_CLASSES], fromNpuLayers: [...NPU_CLASSES] },
    rows: n.rows,
  };
}
