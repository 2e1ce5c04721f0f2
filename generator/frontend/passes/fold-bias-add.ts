import { broadcastShapes, } from '../../ir/broadcast.js';
import type { Graph, Node } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { shapeEquals } from '../../ir/ndarray.js';
import { fusedNames, replaceNodes, soleConsumer } from '../edit.js';

/*
 * MatMul followed by Add of a constant becomes a MatMul with a bias input (a third input, added to the int32
 * accumulator like Gemm's C with beta = 1). Exact: integer addition is associative. This lets the requantization
 * that usually follows fuse into the same kernel.
 */
export function foldBiasAdd(g: Graph): Graph {
  let out = g;
  for (;;) {
    const producers = producerOf(out);
    const consumers = consumersOf(out);
    const hit = out.nodes.find((add) => {
      if (add.op !== 'Add') return false;
      const constIdx = add.inputs.findIndex((i) => tensorOf(out, i).data !== undefined);
      if (constIdx < 0) return false;
      const mm = producers.get(add.inputs[1 - constIdx]);
      if (!mm || mm.op !== 'MatMul' || mm.inputs.length !== 2 || soleConsumer(out, mm.outputs[0], consumers) !== add) return false;
      const mmShape = tensorOf(out, mm.outputs[0]).shape;
      const biasShape = tensorOf(out, add.inputs[constIdx]).shape;
      return shapeEquals(broadcastShapes([mmShape, biasShape]), mmShape);
    });
    if (!hit) return out;
    const constIdx = hit.inputs.findIndex((i) => tensorOf(out, i).data !== undefined);
    const mm = producers.get(hit.inputs[1 - constIdx]) as Node;
    const fused: Node = { ...mm, inputs: [...mm.inputs, hit.inputs[constIdx]], outputs: [...hit.outputs], fusedFrom: fusedNames(mm, hit) };
    out = replaceNodes(out, [mm, hit], fused);
  }
}
