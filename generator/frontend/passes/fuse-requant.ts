import { broadcastShapes, requantParamShape, varyingAxes } from '../../ir/broadcast.js';
import type { Graph } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { fusedNames, replaceGroups, soleConsumer, type Replacement } from '../edit.js';
import { requantOf } from '../requant.js';

/*
 * Conv / Gemm / MatMul followed by RequantShift becomes one requantized kernel (SEMANTICS.md, fusions): the int32
 * accumulator never goes to memory. Only where the kernel can index the parameters: scalar or per output channel
 * for Conv, scalar, per row or per column for Gemm/MatMul. Otherwise the RequantShift stays a kernel of its own.
 */
const FUSABLE = new Set(['Conv', 'Gemm', 'MatMul']);

function paramAxesAllowed(op: string, axes: number[], rank: number): boolean {
  if (axes.length === 0) return true;
  if (axes.length > 1) return false;
  if (op === 'Conv') return axes[0] === 1;
  return axes[0] === rank - 1 || axes[0] === rank - 2;
}

export function fuseRequant(g: Graph): Graph {
  // One walk: a fusion never makes or unmakes another (the fused node carries a requantization, which no other
  // fusion takes, and keeps every other node's producer and readers), so all are found on the graph as given.
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  const fusions: Replacement[] = [];
  for (const rq of g.nodes) {
    if (rq.op !== 'RequantShift') continue;
    const p = producers.get(rq.inputs[0]);
    if (!p || !FUSABLE.has(p.op) || p.requant || soleConsumer(g, rq.inputs[0], consumers) !== rq) continue;
    const outShape = tensorOf(g, rq.outputs[0]).shape;
    const xShape = tensorOf(g, rq.inputs[0]).shape;
    const requant = requantOf(g, rq);
    const axes = [requant.mul, requant.add].map((t) => {
      const ps = requantParamShape(tensorOf(g, t).shape, xShape);
      if (broadcastShapes([ps, outShape]).length !== outShape.length) return [-1, -2];
      return varyingAxes(ps, outShape);
    });
    if (!axes.every((a) => paramAxesAllowed(p.op, a, outShape.length))) continue;
    if (axes[0].length && axes[1].length && axes[0][0] !== axes[1][0]) continue;
    fusions.push({ remove: [p, rq], add: { ...p, outputs: [...rq.outputs], requant, fusedFrom: fusedNames(p, rq) } });
  }
  return replaceGroups(g, fusions);
}
