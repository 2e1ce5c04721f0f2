/**
 * `npm run bench:tangram-engines`: the emulator's engine model in timing-only mode on the workloads of Tangram's
 * evaluation (batch 64, 16-bit words), two measurements per network, one JSON line each:
 *  - layer by layer: every layer's per-engine program (its best partitioning alone on the 16x16 grid, programs.ts)
 *    with and without buffer sharing: the event model's cycles and DRAM words beside the cost model's for the same
 *    dataflow (the model assumes perfect overlap and no link contention: the ratio is what they cost), and the
 *    speed-up of sharing as the event model measures it;
 *  - the searched dataflows (least energy) of the tiled baseline and of Tangram's, segment by segment
 *    (segment-programs.ts: pipelined segments as one program): the event model's cycles against the plan's, and
 *    the speed-up of Tangram's dataflow over the baseline as each measures it.
 * The wall seconds of each run are printed with it.
 */
import { evaluateLayer, type LayerContext, totalsOf } from '../generator/platforms/tangram/cost.js';
import { TANGRAM_DEFAULT } from '../generator/platforms/tangram/hardware.js';
import { bestPartition } from '../generator/platforms/tangram/partition.js';
import { programImage, programsOf } from '../generator/platforms/tangram/programs.js';
import { regionsOf } from '../generator/platforms/tangram/regions.js';
import { searchDataflow } from '../generator/platforms/tangram/search.js';
import { segmentProgram } from '../generator/platforms/tangram/segment-programs.js';
import type { Strategy } from '../generator/platforms/tangram/segment.js';
import { runEngines } from '../test/helpers/tangram-engines.js';
import { WORKLOADS } from './tangram/networks.js';

const BATCH = 64;
const hw = TANGRAM_DEFAULT;
const all = hw.grid.rows * hw.grid.cols;
const [region] = regionsOf(hw, [all]);
const only = process.argv[2];

function fig(x: number): number {
  return Number(x.toPrecision(4));
}

for (const w of WORKLOADS) {
  if (only && w.name !== only) continue;
  const t0 = performance.now();
  const sums = { false: { event: 0, model: 0, dramEvent: 0, dramModel: 0 }, true: { event: 0, model: 0, dramEvent: 0, dramModel: 0 } };
  for (const l of w.layers()) {
    for (const sharing of [false, true]) {
      const ctx: LayerContext = { hw, batch: BATCH, dramHopSum: region.dramHopSum, sharing, sources: l.inputs.length > 1 ? l.inputs.map(() => ({ from: 'dram' as const })) : [{ from: 'dram' }], ofmOnChip: false, reservedWords: 0 };
      const best = bestPartition(l, all, ctx, 'time')!;
      const e = evaluateLayer(l, best.partition, all, ctx)!;
      const { engines, messages } = programsOf(l, BATCH, hw, best.partition, sharing);
      const r = await runEngines(programImage(hw, engines, messages));
      const s = sums[String(sharing) as 'false' | 'true'];
      s.event += r.cycles;
      s.model += totalsOf(e, hw).cycles;
      s.dramEvent += r.dramWords;
      s.dramModel += e.dramWords;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({
    name: `${w.name} engine model, layer by layer`,
    eventCyclesDuplicated: Math.round(sums.false.event), modelCyclesDuplicated: Math.round(sums.false.model),
    eventCyclesShared: Math.round(sums.true.event), modelCyclesShared: Math.round(sums.true.model),
    eventOverModelShared: fig(sums.true.event / sums.true.model),
    sharingSpeedupEvent: fig(sums.false.event / sums.true.event), sharingSpeedupModel: fig(sums.false.model / sums.true.model),
    dramWordsEventShared: sums.true.dramEvent, dramWordsModelShared: Math.round(sums.true.dramModel),
    wallSeconds: fig(seconds),
  }));
}

const STRATEGIES: Array<[string, Strategy]> = [
  ['baseline', { sharing: false, pipelining: 'naive', objective: 'energy' }],
  ['tangram', { sharing: true, pipelining: 'allo', objective: 'energy' }],
];
for (const w of WORKLOADS) {
  if (only && w.name !== only) continue;
  const t0 = performance.now();
  const layers = w.layers();
  const got: Record<string, { model: number; event: number; pipelined: number }> = {};
  for (const [name, strategy] of STRATEGIES) {
    const plan = searchDataflow(layers, hw, { batch: BATCH, strategy });
    let event = 0;
    for (const seg of plan.segments) event += (await runEngines(segmentProgram(seg, layers, BATCH, hw, strategy.sharing))).cycles;
    got[name] = { model: plan.cycles, event, pipelined: plan.segments.filter((s) => s.layers.length > 1).length };
  }
  console.log(JSON.stringify({
    name: `${w.name} searched dataflows (least energy), segment by segment`,
    baselineModelCycles: Math.round(got.baseline.model), baselineEventCycles: got.baseline.event,
    tangramModelCycles: Math.round(got.tangram.model), tangramEventCycles: got.tangram.event,
    pipelinedSegments: got.tangram.pipelined,
    eventOverModelTangram: fig(got.tangram.event / got.tangram.model),
    speedupModel: fig(got.baseline.model / got.tangram.model), speedupEvent: fig(got.baseline.event / got.tangram.event),
    wallSeconds: fig((performance.now() - t0) / 1000),
  }));
}
