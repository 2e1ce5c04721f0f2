import { enginesOf } from './cost.js';
import type { TangramHardware } from './hardware.js';
import type { LayerShape } from './layers.js';
import { emitLayer, type LayerLinks, type LayerPlan, messageIds, planLayer, programImage } from './programs.js';
import type { SegmentPlan } from './segment.js';

/** Most pipeline steps a segment's program takes (its size grows with them): the dataflow's steps, capped. */
export const MAX_SEGMENT_STEPS = 8;

/**
 * One program for a whole pipeline segment of the dataflow (segment.ts): every layer on its own region with its
 * partitioning, in the same number of steps (the segment's, capped at MAX_SEGMENT_STEPS: coarser than the cost
 * model's row-by-row steps, so the fill and drain weigh more here), the maps between them forwarded step by step over
 * the NoC (programs.ts emitLayer), a consumer's step waiting for its producer's. A one-layer segment is the layer
 * alone. Timing only: the segment's arithmetic is not in the image (the firmware's engine layers run one by one).
 */
export function segmentProgram(seg: SegmentPlan, layers: LayerShape[], batch: number, hw: TangramHardware, sharing: boolean): Int32Array {
  const first = seg.first;
  const inSeg = (i: number): boolean => i >= seg.first && i <= seg.last;
  let base = 0;
  const plans: LayerPlan[] = seg.layers.map((pl) => {
    const plan = planLayer(layers[pl.index], batch, hw, pl.eval.partition, sharing, pl.region.engines, base, pl.sources.some((x) => x.from === 'noc'), pl.reservedWords);
    base += enginesOf(pl.eval.partition);
    return plan;
  });
  const chunks = seg.layers.length > 1 ? Math.max(2, Math.min(MAX_SEGMENT_STEPS, seg.steps)) : undefined;
  const ids = messageIds();
  seg.layers.forEach((pl, at) => {
    const l = layers[pl.index];
    const operandsList = l.inputs.length > 0 ? l.inputs : [-1];
    const links: LayerLinks = {
      from: operandsList.map((p) => (p >= 0 && inSeg(p) ? { plan: plans[p - first], key: `f${p}>${pl.index}` } : undefined)),
      to: [],
      store: !pl.ofmOnChip,
      chunks,
    };
    for (let c = pl.index + 1; c <= seg.last; c++) {
      layers[c].inputs.forEach((p, operand) => {
        if (p === pl.index) links.to.push({ plan: plans[c - first], operands: operand, key: `f${pl.index}>${c}` });
      });
    }
    emitLayer(plans[at], hw, ids.msg, links);
  });
  return programImage(hw, plans.flatMap((p) => p.blocks), ids.count());
}
