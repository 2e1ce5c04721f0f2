/**
 * Runs the calibration layers on a platform (one core of a cluster), twice: the AS firmware (units of work per cost
 * class, and its cycles) and the rv32-xpulp C on the ISS (the cycles measured on the code a user flashes). Both
 * outputs must be equal before a row counts.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import type { ManifestLayer } from '../../generator/backend/manifest.js';
import { buildC, readImageFile } from '../../runtime/node/c-build.js';
import { layerFunctionBytes } from '../../runtime/node/code-bytes.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { beforeAndAfterFirst, issPhases } from '../../runtime/node/phases.js';
import { STALL } from '../../runtime/node/iss.js';
import { runFirmware } from '../../runtime/node/run.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { forFixedCosts, networkTwins, runInputs, type CalibrationLayer } from './layers.js';
import type { FitTarget } from './targets.js';
import type { TeamRun } from './team.js';

export interface CalibrationRow {
  name: string;
  /** Units of each cost class the AS firmware charged (COST_CLASSES order). */
  units: number[];
  /** AS cycles of the run, and the part of them that is not compute() (DMA waits, fork, join, register writes). */
  asCycles: number;
  asOther: number;
  issCycles: number;
  /** Cycles of the lines the ISS's cores brought into the shared instruction cache from L2 (runIss icacheColdCycles):
   * the layer's code, fetched cold. */
  issColdCycles: number;
  /** The ISS's cycles between its layers' marks (the network's span less its layers'): the skeleton's (SKELETON). */
  issBetweenCycles: number;
  /** A layer of a few outputs (layers.ts fewOutputs). */
  fewOutputs?: boolean;
  /**
   * A row of one layer of one kernel function: its code key and C bytes (the manifest's), and the bytes gcc made of
   * them (compiledBytes): the platform's compiled bytes per byte of C (fit.ts codeRatiosOf).
   */
  code?: CodeSample;
}

/** A layer's code key, its C's bytes (the manifest's) and the bytes gcc made of them. */
export interface CodeSample { key: string; sourceBytes: number; compiled: number }

/**
 * Bytes of the layer functions (the skeleton names them L_<id>_...: a layer's kernel, tile shapes and tile loop) in
 * the C build's ELF under `out`, read from its symbol table (code-bytes.ts layerFunctionBytes, every tile shape's).
 */
export function compiledBytes(out: string, layer?: number): number {
  const bytes = compiledByLayer(out);
  return layer === undefined ? [...bytes.values()].reduce((s, b) => s + b, 0) : bytes.get(layer) ?? 0;
}

/** compiledBytes of every layer of the build under `out`, by layer id: its ELF read once. */
function compiledByLayer(out: string): Map<number, number> {
  const dir = join(out, 'c');
  const elf = readdirSync(dir).find((f) => f.endsWith('.elf'));
  if (!elf) throw new Error(`no ELF in ${dir}`);
  return layerFunctionBytes(join(dir, elf), 'all');
}

/** A row counts only when the AS firmware and the C on the ISS computed the same bytes. */
export function checkSameOutputs(l: CalibrationLayer, as: NDArray[], iss: NDArray[], what: string): void {
  if (as.some((o, k) => Buffer.compare(Buffer.from(o.data.buffer), Buffer.from(iss[k].data.buffer)) !== 0)) {
    throw new Error(`calibration layer ${l.name}: the ISS outputs differ from the AS firmware's${what}`);
  }
}

/** A calibration layer's model and sample inputs written into `dir`, and where its firmware goes. */
export function writeLayer(l: CalibrationLayer, dir: string): { model: string; sample: string; out: string } {
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  const sample = join(dir, 'in.npz');
  writeFileSync(model, l.builder.bytes());
  writeFileSync(sample, encodeNpz(new Map(l.inputs.map((a, k) => [`in${k}`, a]))));
  return { model, sample, out: join(dir, 'out') };
}

/**
 * The table the calibration layers are planned with: the hand counts, with the fixed costs a user's plan sees (the
 * measured table's, rounded: ASSUMPTION, fixed here so that a fit does not depend on the table it replaces). With the
 * hand counts' fixed costs (TILE 0, CALL 34) the planner cut small layers into tiles of one row, code users' plans
 * never run (a depthwise row path's filter words made for every row).
 */
export function planCostsOf(target: FitTarget): FitTarget['hand'] {
  return { ...target.hand, ...(target.planFixed ?? {}) };
}

/** The table a calibration layer is planned with: planCostsOf's, and the layer's own over it (CalibrationLayer.plannedWith). */
const planOf = (l: CalibrationLayer, target: FitTarget): FitTarget['hand'] => ({ ...planCostsOf(target), ...(l.plannedWith ?? {}) });

/** The one-core rows of `layers`; the pairs for TRANSFER (CalibrationLayer.transfers) run on the team only. */
export async function measure(layers: CalibrationLayer[], work: string, target: FitTarget): Promise<CalibrationRow[]> {
  // The AS firmware runs against the hand counts, a table fixed in the code: compute() taken out of its cycles
  // leaves what does not depend on the table, so the fit is a function of the code alone (not of the table it last
  // wrote: against that, rounding of the clock made a class alternate by 1/64 from one fit to the next).
  const costs = target.hand;
  const table = COST_CLASSES.map((c) => costs[c]);
  const rows: CalibrationRow[] = [];
  for (const [i, l] of layers.entries()) {
    if (l.transfers || l.codeOnly) continue;
    const { model, sample, out } = writeLayer(l, join(work, `layer${i}`));
    // Planned with a fixed table (planCostsOf): the tiles (and so the units per class) do not follow the table being fitted.
    const { manifest } = generateFirmware({ model, platform: target.platform, out, ...target.options, ...l.options, sampleInputs: sample, planCosts: planOf(l, target) });
    const inputs = runInputs(l);
    // The ISS first: it builds the C, whose layer functions' sizes then price the AS run's cold code (RunOptions
    // .builtCode): the price of a compiled byte is measured on compiled bytes, not on the estimate of them.
    const iss = await runIss(out, inputs);
    const as = await runFirmware(out, inputs, { costs: table, builtCode: true });
    checkSameOutputs(l, as.outputs, iss.outputs, '');
    // One core: every unit is on the critical path, so compute() accounts for units x cost of the AS cycles.
    const compute = COST_CLASSES.reduce((s, c, k) => s + as.units[k] * costs[c], 0);
    rows.push({
      name: l.name, units: as.units, asCycles: as.cycles, asOther: as.cycles - compute, issCycles: iss.networkCycles,
      issColdCycles: iss.icacheColdCycles, issBetweenCycles: iss.networkCycles - iss.layers.reduce((s, x) => s + x.cycles, 0),
      fewOutputs: l.fewOutputs === true,
      // One layer of one kernel function: a further tile shape's C is not in the cold C (CODE_SHAPE's), but in the ELF.
      ...(manifest.layers.length === 1 ? codeSample(manifest.layers[0], out) : {}),
    });
  }
  return rows;
}

/**
 * A layer's code from its network's built ELF where the layer has one kernel function (a further tile shape's C is not
 * in the cold C, CODE_SHAPE's, but in the ELF); none otherwise.
 */
function codeSample(layer: ManifestLayer, out: string): { code?: CodeSample } {
  if (!layer.code || (layer.tiling?.instances ?? 1) !== 1) return {};
  return { code: { key: layer.code.key, sourceBytes: layer.code.sourceBytes, compiled: compiledBytes(out, layer.id) } };
}

/**
 * The code-only layers' code (CalibrationLayer.codeOnly): generated and built for the ISS (or the plain rv32 build),
 * not run; a sample per layer of the key measured.
 */
export function measureCode(layers: CalibrationLayer[], work: string, target: FitTarget): { name: string; code?: CodeSample }[] {
  return layers.filter((l) => l.codeOnly).flatMap((l, i) => {
    const { model, sample, out } = writeLayer(l, join(work, `code${i}`));
    const { manifest } = generateFirmware({ model, platform: target.platform, out, ...target.options, ...l.options, sampleInputs: sample, planCosts: planOf(l, target) });
    buildC(out, readImageFile(out).rv32?.xpulp ? 'rv32-xpulp' : 'rv32');
    const samples = manifest.layers.filter((m) => m.code?.key === l.codeOnly).map((m) => ({ name: l.name, ...codeSample(m, out) }));
    if (samples.length === 0 || samples.some((s) => !s.code)) throw new Error(`calibration layer ${l.name}: no layer of code key ${l.codeOnly} in one kernel function`);
    return samples;
  });
}

/**
 * One calibration layer generated into `dir` for the platform's whole team (planned with planOf's table), run on the
 * ISS and as the AS firmware (its code priced as built), their outputs checked equal.
 */
export async function runOnTeam(l: CalibrationLayer, dir: string, target: FitTarget) {
  const { model, sample, out } = writeLayer(l, dir);
  const { manifest } = generateFirmware({ model, platform: target.platform, out, ...l.options, sampleInputs: sample, planCosts: planOf(l, target) });
  const inputs = runInputs(l);
  const iss = await runIss(out, inputs);
  const as = await runFirmware(out, inputs, { builtCode: true });
  checkSameOutputs(l, as.outputs, iss.outputs, ' (whole team)');
  return { out, inputs, manifest, iss, as };
}

/**
 * The compiled bytes of each layer of a run of several calibration layers (CalibrationLayer.image), by the calibration
 * layer's name: where each is one layer of one kernel function, as the one-layer rows' code (codeSample).
 */
function imageBytes(l: CalibrationLayer, layers: ManifestLayer[], out: string): { name: string; compiled: number }[] {
  if (!l.image || l.image.length !== layers.length) return [];
  const built = compiledByLayer(out);
  return layers.flatMap((m, k) => (m.code && (m.tiling?.instances ?? 1) === 1 ? [{ name: l.image![k], compiled: built.get(m.id) ?? 0 }] : []));
}

/**
 * The team runs the fixed costs are fitted on (fit.ts fitCosts): the few-output layers and the pairs for TRANSFER
 * (`layers` whole where the skew sweep takes them all), then the few-output layers in a network's state (layers.ts
 * inNetwork), measured after the rest so that the others' directories are as before.
 */
export async function measureFixedCostRuns(layers: CalibrationLayer[], work: string, target: FitTarget, all = false): Promise<TeamRun[]> {
  const team = await measureTeam(all ? layers : layers.filter(forFixedCosts), work, target);
  return [...team, ...(await measureTeam(networkTwins(layers), join(work, 'network'), target))];
}

/**
 * The layers generated for the platform's whole team (planned with planCostsOf's table, as every calibration run) and
 * measured on the ISS once, their AS outputs checked against it: the ISS cycles do not depend on the table being
 * fitted. Read by the fixed costs' fit (the few-output layers, team.ts) and the bank replay's skew (skew.ts).
 */
export async function measureTeam(layers: CalibrationLayer[], work: string, target: FitTarget): Promise<TeamRun[]> {
  const runs: TeamRun[] = [];
  for (const [i, l] of layers.entries()) {
    const { out, inputs, iss, as, manifest } = await runOnTeam(l, join(work, `team${i}`), target);
    // A layer in a network's state (layers.ts inNetwork, the one kind of run with an image): its own pieces only,
    // weighed by its own cycles; no worker's fetch (the run's cores waited for seven layers' code).
    const later = l.image !== undefined;
    const measured = later ? iss.layers.slice(-1) : iss.layers;
    // Harts 1 .. cores are the cluster's cores (hart 0 the fabric controller): core 0 is hart 1.
    const workers = iss.hartStalls.slice(2).map((s) => s[STALL.fetch]);
    const perCore = as.units[COST_CLASSES.indexOf('CODE_LAYER')];
    // The bytes of each layer's code (its functions as built, the AS's measure: code-bytes.ts), whichever core the AS
    // charges each part of it to (cluster.ts layer_code): a worker fetches the tile loop's part before the kernel too,
    // while it waits for core 0 at the first barrier. Averaged over the run's layers.
    const built = as.codeBytesFrom ? [...layerFunctionBytes(as.codeBytesFrom, 'first').values()] : [];
    const codeBytes = perCore > 0 && built.length > 0 ? built.reduce((a, b) => a + b, 0) / built.length : 0;
    runs.push({
      name: l.name, out, inputs, issCycles: iss.networkCycles, fewOutputs: l.fewOutputs === true, transfers: l.transfers,
      transferUnits: as.units[COST_CLASSES.indexOf('TRANSFER')],
      workerFetch: later ? 0 : Math.max(0, ...workers), codeBytes: later ? 0 : codeBytes, ...(later ? { later } : {}),
      ...(later ? { image: imageBytes(l, manifest.layers, out) } : {}),
      issPieces: measured.map((x) => ({ layer: x.layer, pieces: beforeAndAfterFirst(issPhases(iss, x)), ...(later ? { cycles: x.cycles } : {}) })),
    });
  }
  return runs;
}
