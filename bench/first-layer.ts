/**
 * `npm run bench:first-layer`: what a layer pays for being a run's first. The cost fit measures its fixed costs on
 * calibration runs of one layer, and a network's later layers find some of the cluster's state warm (the runtime's
 * and the tile loop's shared code in the instruction cache); the calibration also runs some of its few-output
 * layers after another (scripts/cost-fit/layers.ts afterAnother). Per such layer, on Siracusa's whole team: the ISS
 * cycles of the layer alone and after another, with core 0's pieces (runtime/node/phases.ts: before the first
 * barrier's release | between the barriers | after) and the lines its cores brought from L2, and the AS cycles of
 * both under the committed table; then the gap each mode sees (docs/timing.md "A run's first layer").
 */
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { calibrationFor } from '../scripts/cost-fit/layers.js';
import { fitTarget } from '../scripts/cost-fit/targets.js';
import { runOnTeam } from '../scripts/cost-fit/measure.js';
import { AFTER_ANOTHER } from '../scripts/cost-fit/fit.js';
import { issPhases } from '../runtime/node/phases.js';

const target = fitTarget('siracusa');
const layers = calibrationFor(target);
const work = mkdtempSync(join(tmpdir(), 'firmgen-first-layer-'));

/** The run's last layer (the calibration layer itself) on both modes. */
async function lastLayer(name: string, dir: string) {
  const l = layers.find((x) => x.name === name);
  if (!l) throw new Error(`no calibration layer '${name}'`);
  const { iss, as } = await runOnTeam(l, dir, target);
  const il = iss.layers[iss.layers.length - 1];
  const al = as.layers[as.layers.length - 1];
  return { iss: il.cycles, pieces: issPhases(iss, il), lines: il.icacheMisses?.[1] ?? 0, as: al.cycles };
}

try {
  console.log('layer                                   ISS alone (pieces; L2 lines)        ISS after another (pieces; L2 lines)  AS alone  AS after  ISS gap  AS gap');
  const pairs = layers.filter((l) => l.name.endsWith(AFTER_ANOTHER)).map((l) => [l.name.slice(0, -AFTER_ANOTHER.length), l.name]);
  for (const [i, [alone, after]] of pairs.entries()) {
    const a = await lastLayer(alone, join(work, `a${i}`));
    const b = await lastLayer(after, join(work, `b${i}`));
    const fmt = (r: typeof a) => `${r.iss} (${r.pieces.join('/')}; ${r.lines})`;
    console.log(`${alone.padEnd(40)}${fmt(a).padEnd(36)}${fmt(b).padEnd(38)}${String(a.as).padStart(8)}${String(b.as).padStart(10)}${String(a.iss - b.iss).padStart(9)}${String(a.as - b.as).padStart(8)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
