import { attrInt, attrLog2, hasAttr } from '../ir/attrs.js';
import type { Graph, Node, Requant } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { GenError } from '../errors.js';
import { levelsRange } from '../reference/ops/requant-shift.js';

/** Reads a RequantShift node's parameters (SEMANTICS.md section 1) into a Requant. */
export function requantOf(g: Graph, rq: Node): Requant {
  const site = { node: rq.name, op: rq.op };
  const levels = hasAttr(rq, 'n_levels') ? attrInt(rq, 'n_levels') : attrInt(rq, 'n_levels_out');
  const signed = attrInt(rq, 'signed', 1) !== 0;
  const [, mul, add] = rq.inputs;
  for (const p of [mul, add]) {
    if (!p || !tensorOf(g, p).data) throw new GenError('unsupported', `requantization parameter '${p}' must be a constant`, site);
  }
  // The reference's clip bounds, whole numbers for an odd n_levels too (never a fraction in emitted code).
  const { min, max } = levelsRange(levels, signed);
  return { mul, add, shift: attrLog2(rq, 'div'), min, max };
}
