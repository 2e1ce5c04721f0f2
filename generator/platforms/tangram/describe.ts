import { printable } from '../../errors.js';
import type { TangramHardware } from './hardware.js';
import type { LayerShape } from './layers.js';
import type { NetworkPlan } from './search.js';
import { totalsOf } from './cost.js';
import type { PlacedLayer, Strategy } from './segment.js';

/**
 * The searched dataflow as firmware.json's platformData (per segment its layers, per layer its region, partitioning,
 * loop order, sources, time and energy split by level) and as a text picture of the engine grid per segment
 * (dataflow.txt). Layer names are the model's: the JSON keeps them as data (like the manifest's layer table), the
 * picture prints them through printable().
 */
export interface DataflowData {
  hardware: TangramHardware;
  strategy: Strategy;
  batch: number;
  totals: { cycles: number; energyPJ: number; ops: number };
  segments: Array<{
    layers: Array<{
      layer: number;
      name: string;
      engines: number;
      firstEngine: [number, number];
      lastEngine: [number, number];
      partition: { batch: number; outputChannels: number; fmapRows: number; fmapCols: number; inputChannels: number };
      order: string;
      inputs: string[];
      outputOnChip: boolean;
      computeCycles: number;
      dramWords: number;
      nocWordHops: number;
      /** The layer's own time on its region (the segment's is the slowest layer's, stretched by the fill). */
      cycles: number;
      /** pJ by component: MACs, register files, array bus, buffers, NoC, DRAM, idle. */
      energyPJ: Record<string, number>;
      /** Why the layer is a segment of its own (the engines cannot compute it inside a segment program). */
      notPipelined?: string;
    }>;
    cycles: number;
    steps: number;
    stretch: number;
    energyPJ: Record<string, number>;
    /** A segment of more than one layer: how the firmware runs it ('one program', or layer by layer and why). */
    firmware?: string;
  }>;
}

const round = (x: number): number => Number(x.toPrecision(6));

function layerTotals(p: PlacedLayer, hw: TangramHardware): { cycles: number; energyPJ: Record<string, number> } {
  const t = totalsOf(p.eval, hw);
  return { cycles: round(t.cycles), energyPJ: Object.fromEntries(Object.entries(t.energy).map(([k, v]) => [k, round(v)])) };
}

export function dataflowData(plan: NetworkPlan, shapes: LayerShape[], ids: number[], hw: TangramHardware, strategy: Strategy, batch: number, runs: Array<string | undefined> = []): DataflowData {
  return {
    hardware: hw,
    strategy,
    batch,
    totals: { cycles: round(plan.cycles), energyPJ: round(plan.energy), ops: plan.ops },
    segments: plan.segments.map((s, si) => ({
      layers: s.layers.map((p) => ({
        layer: ids[p.index],
        name: shapes[p.index].name,
        engines: p.region.engines.length,
        firstEngine: p.region.engines[0],
        lastEngine: p.region.engines[p.region.engines.length - 1],
        partition: { batch: p.eval.partition.pb, outputChannels: p.eval.partition.po, fmapRows: p.eval.partition.ph, fmapCols: p.eval.partition.pw, inputChannels: p.eval.partition.pi },
        order: p.eval.order,
        inputs: p.sources.map((x) => (x.from === 'dram' ? 'dram' : `noc ${round(x.hops)} hops`)),
        outputOnChip: p.ofmOnChip,
        computeCycles: p.eval.computeCycles,
        dramWords: round(p.eval.dramWords),
        nocWordHops: round(p.eval.wordHops),
        ...layerTotals(p, hw),
        ...(shapes[p.index].alone ? { notPipelined: shapes[p.index].alone } : {}),
      })),
      cycles: round(s.totals.cycles),
      steps: s.steps,
      stretch: round(s.stretch),
      energyPJ: Object.fromEntries(Object.entries(s.totals.energy).map(([k, v]) => [k, round(v)])),
      ...(runs[si] ? { firmware: runs[si] } : {}),
    })),
  };
}

/** The legend's note on a layer that cannot be pipelined. */
function alone(l: LayerShape): string {
  return l.alone ? `; not pipelined: ${printable(l.alone, 100)}` : '';
}

const MARKS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** One block per segment: the grid with a letter per layer's engines, '.' for an idle engine, and the legend. */
export function dataflowPicture(plan: NetworkPlan, shapes: LayerShape[], ids: number[], hw: TangramHardware, runs: Array<string | undefined> = []): string {
  const out: string[] = [`Tangram dataflow: ${hw.grid.rows}x${hw.grid.cols} engines, ${plan.segments.length} segment(s), ${round(plan.cycles)} cycles, ${round(plan.energy)} pJ`];
  plan.segments.forEach((s, si) => {
    const grid = Array.from({ length: hw.grid.rows }, () => Array<string>(hw.grid.cols).fill('.'));
    const legend: string[] = [];
    s.layers.forEach((p, i) => {
      const mark = MARKS[i] ?? '#';
      for (const [r, c] of p.region.engines) grid[r][c] = mark;
      const q = p.eval.partition;
      const t = totalsOf(p.eval, hw);
      legend.push(`  ${mark} layer ${ids[p.index]} ${printable(shapes[p.index].name, 60)}: ${p.region.engines.length} engines, split b${q.pb} o${q.po} h${q.ph} w${q.pw} i${q.pi}, ${p.eval.order}, in ${p.sources.map((x) => x.from).join('+')}, out ${p.ofmOnChip ? 'noc' : 'dram'}, ${round(t.cycles)} cycles, ${round(t.energy.total)} pJ${alone(shapes[p.index])}`);
    });
    out.push('', `segment ${si}: ${round(s.totals.cycles)} cycles (x${round(s.stretch)} fill/drain over ${s.steps} steps)${runs[si] ? `; the firmware runs it ${runs[si] === 'one program' ? 'as one program' : printable(runs[si]!, 200)}` : ''}`);
    for (const row of grid) out.push(`  ${row.join('')}`);
    out.push(...legend);
  });
  return `${out.join('\n')}\n`;
}
