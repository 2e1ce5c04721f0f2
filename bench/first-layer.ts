/**
 * `npm run bench:first-layer`: what a layer pays for being a run's first. The cost fit measures its fixed costs on
 * calibration runs of one layer, and a network's later layers find some of the cluster's state warm (the runtime's
 * and the tile loop's shared code in the instruction cache); the calibration also runs some of its few-output
 * layers after another (scripts/cost-fit/layers.ts afterAnother). Per such layer, on Siracusa's whole team: the ISS
 * cycles of the layer alone and after another, with core 0's pieces (runtime/node/phases.ts: before the first
 * barrier's release | between the barriers | after) and the lines its cores brought from L2, and the AS cycles of
 * both under the committed table; then the gap each mode sees (docs/timing-journal.md "A run's first layer"). Then the same
 * layer in a network's state: after six calibration layers of six kernels (conv, pool, softmax, norm, depthwise,
 * transpose), whose code far exceeds the instruction cache's 4 KiB shared level, so that the tile loop's shared code
 * goes cold between its uses as in a long network (the decoder step's Transposes: 1,034-1,124 cycles before the first
 * barrier's release, alone 1,758, after the Add 908).
 */
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterLayers, calibrationFor, NETWORK_STATE, type CalibrationLayer } from '../scripts/cost-fit/layers.js';
import { fitTarget } from '../scripts/cost-fit/targets.js';
import { runOnTeam } from '../scripts/cost-fit/measure.js';
import { AFTER_ANOTHER } from '../scripts/cost-fit/fit.js';
import { issPhases } from '../runtime/node/phases.js';

const target = fitTarget('siracusa');
const layers = calibrationFor(target);
const work = mkdtempSync(join(tmpdir(), 'firmgen-first-layer-'));

const layerNamed = (name: string): CalibrationLayer => {
  const l = layers.find((x) => x.name === name);
  if (!l) throw new Error(`no calibration layer '${name}'`);
  return l;
};

/** The run's last layer (the calibration layer itself, after `before`'s layers if given) on both modes. */
async function lastLayer(name: string, dir: string, before?: CalibrationLayer[]) {
  const l = before ? afterLayers(before, layerNamed(name)) : layerNamed(name);
  const { iss, as } = await runOnTeam(l, dir, target);
  const il = iss.layers[iss.layers.length - 1];
  const al = as.layers[as.layers.length - 1];
  return { iss: il.cycles, pieces: issPhases(iss, il), lines: il.icacheMisses?.[1] ?? 0, as: al.cycles };
}

try {
  console.log('layer                                   ISS alone (pieces; L2 lines)        ISS after another (pieces; L2 lines)  AS alone  AS after  ISS gap  AS gap');
  const pairs = layers.filter((l) => l.name.endsWith(AFTER_ANOTHER)).map((l) => [l.name.slice(0, -AFTER_ANOTHER.length), l.name]);
  const fmt = (r: { iss: number; pieces: number[]; lines: number }) => `${r.iss} (${r.pieces.join('/')}; ${r.lines})`;
  for (const [i, [alone, after]] of pairs.entries()) {
    const a = await lastLayer(alone, join(work, `a${i}`));
    const b = await lastLayer(after, join(work, `b${i}`));
    console.log(`${alone.padEnd(40)}${fmt(a).padEnd(36)}${fmt(b).padEnd(38)}${String(a.as).padStart(8)}${String(b.as).padStart(10)}${String(a.iss - b.iss).padStart(9)}${String(a.as - b.as).padStart(8)}`);
  }
  console.log(`\nin a network's state (after ${NETWORK_STATE().map((l) => l.name).join(', ')}):`);
  console.log('layer                                   ISS (pieces; L2 lines)              AS  ISS/AS');
  const network = NETWORK_STATE();
  for (const [i, [alone]] of pairs.entries()) {
    const n = await lastLayer(alone, join(work, `n${i}`), network);
    console.log(`${alone.padEnd(40)}${fmt(n).padEnd(30)}${String(n.as).padStart(8)}${(n.iss / n.as).toFixed(3).padStart(8)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
