/**
 * `npm run cost:explain -- <firmware dir> --inputs <npz> [--layers 3,9]`: where a layer's cycles come from, on both
 * run modes, for whoever works on the cost model (docs/timing.md). Per layer (all, or the ids listed):
 * - ISS: cycles, and on a cluster the instructions, stall cycles by kind, L1 bank-conflict cycles and
 *   instruction-cache misses of its cores (summed over them);
 * - AS: cycles, and each cost class's part: how many cycles the layer loses when that class costs nothing (one AS run
 *   per class the run charges; the classes' parts need not add up to the whole, as a critical path runs through
 *   whichever core ends last).
 * - on a cluster, both modes' time on core 0 cut where the team's barriers released it (its driving before the first,
 *   the kernel between them, the write-back and the join after): which phase of a layer a difference lies in.
 * The table is the platform's own (the generator's and the emulator's agree: test/platforms/emulator-agrees).
 */
import { GenError } from '../generator/errors.js';
import { readManifest } from '../runtime/node/manifest.js';
import { readNpz } from '../generator/onnx/npy.js';
import { PLATFORMS } from '../generator/platforms/index.js';
import { COST_CLASSES } from '../generator/platforms/types.js';
import { runIss } from '../runtime/node/iss-run.js';
import { STALL } from '../runtime/node/iss.js';
import { runFirmware } from '../runtime/node/run.js';
import { asPhases, issPhases } from '../runtime/node/phases.js';

const USAGE = 'usage: explain-layers <firmware dir> --inputs <npz> [--layers <id,id,...>]';

function option(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const out = process.argv[2];
const inputsFile = option('--inputs');
if (!out || out.startsWith('--') || !inputsFile) {
  console.error(USAGE);
  process.exit(2);
}
/** Reads the firmware and its inputs, runs both modes and prints each layer's account. */
async function main(out: string, inputsFile: string): Promise<void> {
  const wanted = option('--layers')?.split(',').map(Number);
  const manifest = readManifest(out);
  const platform = PLATFORMS[manifest.platform];
  const inputs = [...readNpz(inputsFile).values()];
  const table = COST_CLASSES.map((c) => platform.costs[c]);

  const as = await runFirmware(out, inputs);
  const iss = await runIss(out, inputs);
  const asCycles = new Map(as.layers.map((l) => [l.layer, l.cycles]));
  const layers = iss.layers.filter((l) => !wanted || wanted.includes(l.layer));
  const missing = wanted?.filter((id) => !layers.some((l) => l.layer === id)) ?? [];
  if (missing.length > 0) throw new GenError('run', `--layers: no layer ${missing.join(', ')} (the firmware's layers are ${iss.layers.map((l) => l.layer).join(', ')})`, { file: out });

  // Each class the run charged at a cost of 0, the rest as they are: the layers' cycles that class was worth.
  const parts = new Map<number, [string, number][]>(layers.map((l) => [l.layer, []]));
  for (const [k, c] of COST_CLASSES.entries()) {
    if (as.units[k] === 0 || table[k] === 0) continue;
    const without = await runFirmware(out, inputs, { costs: table.map((v, j) => (j === k ? 0 : v)) });
    const cycles = new Map(without.layers.map((l) => [l.layer, l.cycles]));
    for (const l of layers) {
      const part = (asCycles.get(l.layer) ?? 0) - (cycles.get(l.layer) ?? 0);
      if (part !== 0) parts.get(l.layer)!.push([c, part]);
    }
  }

  const stallNames = Object.entries(STALL).sort((a, b) => a[1] - b[1]).map(([name]) => name);
  for (const l of layers) {
    const a = asCycles.get(l.layer) ?? 0;
    console.log(`layer ${l.layer} ${l.name}: ISS ${l.cycles}, AS ${a}, ISS/AS ${a > 0 ? (l.cycles / a).toFixed(3) : '-'}`);
    if (l.instructions !== undefined) {
      console.log(`  ISS: ${l.instructions} instructions, bank conflicts ${l.bankConflicts}, instruction-cache misses ${l.icacheMisses?.join(' (private levels), ')} (lines from L2)`);
      console.log(`  ISS stalls: ${stallNames.map((n, k) => `${n} ${l.stalls?.[k] ?? 0}`).join(', ')}`);
    }
    const asPieces = asPhases(as, l.layer);
    if (iss.harts > 1 && asPieces) {
      console.log(`  core 0 between barriers: ISS ${issPhases(iss, l).join(' | ')}; AS ${asPieces.join(' | ')}`);
    }
    const sorted = parts.get(l.layer)!.sort((x, y) => y[1] - x[1]);
    console.log(`  AS by class: ${sorted.map(([c, v]) => `${c} ${v}`).join(', ') || 'none'}; the rest ${a - sorted.reduce((s, [, v]) => s + v, 0)}`);
  }
}

// A firmware folder or inputs that cannot be read, or a layer list that names no layer: one line, exit 2 (as `gen`).
main(out, inputsFile).catch((e: unknown) => {
  if (!(e instanceof GenError)) throw e;
  console.error(`explain-layers: ${e.message}`);
  process.exit(2);
});
