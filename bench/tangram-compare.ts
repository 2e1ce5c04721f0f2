/**
 * `npm run bench:tangram`: the comparison of Tangram's evaluation (ASPLOS'19 Fig. 9-style) on the cost model, batch
 * 64, 16-bit words, three configurations of the same PEs and SRAM:
 *  - monolithic: one 128x128 array with one 8 MiB buffer, layer after layer;
 *  - tiled baseline: 16x16 engines, per-layer partitioning with duplicated data, naive pipelining;
 *  - tiled optimised: buffer sharing + alternate-loop-ordering pipelining.
 * Each searched for the least energy (Tangram's headline objective). Prints per network and configuration GOPS,
 * GOPS/W and, for the optimised tiled dataflow, its speed-up and energy saving over the tiled baseline; then the
 * averages (geometric mean of the speed-ups, mean of the savings). Figures are the cost model's, not a measurement
 * of silicon: the energy unit is an ASSUMPTION (hardware.ts), ratios do not depend on it. One JSON line each.
 */
import { monolithicOf, TANGRAM_DEFAULT, type TangramHardware } from '../generator/platforms/tangram/hardware.js';
import { type NetworkPlan, searchDataflow } from '../generator/platforms/tangram/search.js';
import type { Strategy } from '../generator/platforms/tangram/segment.js';
import { WORKLOADS } from './tangram/networks.js';

const BATCH = 64;
const objective = (process.argv[2] as Strategy['objective']) ?? 'energy';
const CONFIGS: Array<{ name: string; hw: TangramHardware; strategy: Strategy }> = [
  { name: 'monolithic', hw: monolithicOf(TANGRAM_DEFAULT), strategy: { sharing: false, pipelining: 'none', objective } },
  { name: 'tiled-baseline', hw: TANGRAM_DEFAULT, strategy: { sharing: false, pipelining: 'naive', objective } },
  { name: 'tiled-tangram', hw: TANGRAM_DEFAULT, strategy: { sharing: true, pipelining: 'allo', objective } },
];

function fig(x: number): number {
  return Number(x.toPrecision(4));
}

function rates(plan: NetworkPlan, hw: TangramHardware): { gops: number; gopsPerW: number; seconds: number; joules: number } {
  const seconds = plan.cycles / hw.clockHz;
  const joules = plan.energy * 1e-12;
  // An operation is a multiply or an add: a MAC counts two (the GOPS convention of the accelerator papers).
  const ops = 2 * plan.ops;
  return { gops: ops / seconds / 1e9, gopsPerW: ops / joules / 1e9, seconds, joules };
}

const speedups: number[] = [];
const savings: number[] = [];
for (const w of WORKLOADS) {
  const layers = w.layers();
  const results = CONFIGS.map((c) => {
    const t0 = performance.now();
    const plan = searchDataflow(layers, c.hw, { batch: BATCH, strategy: c.strategy });
    const r = rates(plan, c.hw);
    console.log(JSON.stringify({ name: `${w.name} ${c.name}`, gops: fig(r.gops), gopsPerW: fig(r.gopsPerW), ms: fig(r.seconds * 1e3), mJ: fig(r.joules * 1e3), segments: plan.segments.length, searchSeconds: fig((performance.now() - t0) / 1000), objective }));
    return plan;
  });
  const [, base, opt] = results;
  const speedup = base.cycles / opt.cycles;
  const saving = 1 - opt.energy / base.energy;
  speedups.push(speedup);
  savings.push(saving);
  console.log(JSON.stringify({ name: `${w.name} tangram vs tiled baseline`, speedup: fig(speedup), energySaving: fig(saving), monolithicOverTangramTime: fig(results[0].cycles / opt.cycles), reference: 'Tangram ASPLOS\'19: 2x faster, 45% less energy on average' }));
}
const geo = Math.exp(speedups.reduce((s, x) => s + Math.log(x), 0) / speedups.length);
const mean = savings.reduce((s, x) => s + x, 0) / savings.length;
console.log(JSON.stringify({ name: 'average tangram vs tiled baseline', speedupGeomean: fig(geo), energySavingMean: fig(mean), reference: 'Tangram ASPLOS\'19: 2x, 45%' }));
