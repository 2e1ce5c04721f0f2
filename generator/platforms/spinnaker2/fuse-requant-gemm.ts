import { broadcastShapes, requantParamShape } from '../../ir/broadcast.js';
import type { Graph, Node } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { shapeEquals } from '../../ir/ndarray.js';
import { fusedNames, replaceNodes, soleConsumer } from '../../frontend/edit.js';
import { requantOf } from '../../frontend/requant.js';

/*
 * Gemm / MatMul followed by RequantShift becomes one requantized GEMM, whatever axes the parameters vary along: the
 * SpiNNaker2 generator writes every epilogue parameter as a table over the output (scalar, per column, per row of the
 * flattened batch x M, or full; gemm-geometry.ts), so per-batch parameters fuse too, where the core platforms'
 * fuse-requant leaves them to an elementwise kernel. Only parameters that do not grow the output fuse.
 */
export function fuseRequantGemm(g: Graph): Graph {
  let out = g;
  for (;;) {
    const producers = producerOf(out);
    const consumers = consumersOf(out);
    const hit = out.nodes.find((rq) => {
      if (rq.op !== 'RequantShift') return false;
      const p = producers.get(rq.inputs[0]);
      if (!p || (p.op !== 'Gemm' && p.op !== 'MatMul') || p.requant) return false;
      if (soleConsumer(out, rq.inputs[0], consumers) !== rq) return false;
      const y = tensorOf(out, rq.outputs[0]).shape;
      const x = tensorOf(out, rq.inputs[0]).shape;
      if (!shapeEquals(x, y) || x.length < 2) return false;
      return rq.inputs.slice(1, 3).every((name) => {
        const t = tensorOf(out, name);
        return t.data !== undefined && shapeEquals(broadcastShapes([requantParamShape(t.shape, x), x]), x);
      });
    });
    if (!hit) return out;
    const p = producers.get(hit.inputs[0]) as Node;
    const fused: Node = { ...p, outputs: [...hit.outputs], requant: requantOf(out, hit), fusedFrom: fusedNames(p, hit) };
    out = replaceNodes(out, [p, hit], fused);
  }
}
