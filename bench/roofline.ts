/**
 * What `npm run bench:plan` measures a schedule against, from the generator's own cost model and the emulator's
 * run. Kept apart from the driver so that each definition is stated once, here:
 *
 * - compute-bound: over every layer that runs a kernel (tiled or not), its work at the platform's per-unit costs
 *   (MACs x MAC cost + outputs x per-output cost, generator/midend/tiling/cost.ts, the costs the emulator charges),
 *   spread perfectly over the cluster cores: no call, fork, join or barrier overhead, no imbalance.
 * - DMA-bound: every byte that must cross between L2 and L1 at least once: for each tiled layer, each of its input
 *   operands (activations, weights, bias, requantization parameters) in once and its output out once, at the
 *   DMA's bytes/cycle per direction (Siracusa 8; the two directions run on separate engines, so the bound is the
 *   larger direction), with no per-transfer latency. Untiled layers work on L2 and move nothing.
 * - roofline = max(compute-bound, DMA-bound); the layer bound (layers run one after another) sums per layer
 *   max(compute, in, out) and is never below it.
 * - DMA wait: in a tiled layer core 0 alternates between a DMA phase (it issues the next transfers and waits for
 *   the ones the next tile needs, the other cores idle at the barrier) and a compute phase (all cores). The even
 *   phases of its fork are the DMA phases (runtime/as/tiles.ts loop); their time, from the emulator's share events,
 *   is the time all cores wait for the DMA. It includes core 0's DMA register writes (1 cycle each, a few per
 *   transfer), which `registerCycles` counts separately.
 */
import type { Manifest } from '../generator/backend/manifest.js';
import { computeCycles } from '../generator/midend/tiling/cost.js';
import type { Compiled } from '../generator/pipeline.js';
import { tensorOf } from '../generator/ir/graph.js';
import { sizeOf } from '../generator/ir/ndarray.js';
import type { RunResult } from '../runtime/node/run.js';

export interface Bounds {
  compute: number;
  dmaIn: number;
  dmaOut: number;
  dma: number;
  roofline: number;
  layerBound: number;
}

export function bounds(c: Compiled, m: Manifest): Bounds {
  const p = c.platform;
  const bpc = p.tiling?.dma.bytesPerCycle ?? 8;
  const bytes = new Map(m.tensors.map((t) => [t.name, t.bytes]));
  let compute = 0;
  let dmaIn = 0;
  let dmaOut = 0;
  let layerBound = 0;
  for (const l of c.layers) {
    if (l.kernel === 'alias') continue;
    const macs = l.kernel.view({ node: l.node, graph: c.lowered, platform: p }).macs;
    const outputs = sizeOf(tensorOf(c.lowered, l.node.outputs[0]).shape);
    // Every core gets exactly 1/cores of the work; then take the per-call overheads back out.
    const work = computeCycles(l.kernel, l.node, { macs, outputs, busiest: 1 / p.cores }, p, c.lowered) - p.costs.CALL - 2 * p.costs.barrier;
    compute += work;
    const t = m.layers.find((x) => x.id === l.id)?.tiling;
    let lin = 0;
    let lout = 0;
    for (const o of t?.operands ?? []) {
      if (o.write) lout += bytes.get(o.tensor) ?? 0;
      else lin += bytes.get(o.tensor) ?? 0;
    }
    dmaIn += lin / bpc;
    dmaOut += lout / bpc;
    layerBound += Math.max(work, lin / bpc, lout / bpc);
  }
  const dma = Math.max(dmaIn, dmaOut);
  return { compute, dmaIn, dmaOut, dma, roofline: Math.max(compute, dma), layerBound };
}

export interface Waits {
  /** Cycles of the DMA phases of every tiled layer (all cores waiting for the DMA; core 0's register writes in it). */
  dmaPhase: number;
  /** Core 0's DMA register writes: copy 3 + 2 per 2-D side, per transfer (docs/timing.md). */
  registerCycles: number;
  /** Cycles the cluster cores are not computing, summed over cores, over their clocks summed (any reason). */
  idleShare: number;
}

export function waits(m: Manifest, r: RunResult): Waits {
  const tiled = new Set(m.layers.filter((l) => l.tiling).map((l) => l.id));
  const core0 = 1;
  let dmaPhase = 0;
  for (const s of r.shares) {
    if (s.agent === core0 && tiled.has(s.layer) && s.phase % 2 === 0) dmaPhase += s.end - s.start;
  }
  const registerCycles = r.dma.reduce((n, d) => n + 3 + (d.ext2d ? 2 : 0) + (d.l12d ? 2 : 0), 0);
  const clocks = r.coreCycles.reduce((a, b) => a + b, 0);
  const busy = r.coreBusy.reduce((a, b) => a + b, 0);
  return { dmaPhase, registerCycles, idleShare: clocks > 0 ? (clocks - busy) / clocks : 0 };
}

/** Per tiled layer: the tiler's estimate against the emulated span of the layer on the master. */
export function estimates(m: Manifest, r: RunResult): { id: number; name: string; op: string; estimate: number; emulated: number }[] {
  return m.layers.filter((l) => l.tiling).map((l) => ({
    id: l.id,
    name: l.name,
    op: l.op,
    estimate: l.tiling!.estimate.cycles,
    emulated: r.layers.filter((x) => x.layer === l.id && x.agent === 0).reduce((n, x) => n + x.cycles, 0),
  }));
}
