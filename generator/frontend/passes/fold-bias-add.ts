import { broadcastShapes, } from '../../ir/broadcast.js';
import type { Graph, Node } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { shapeEquals } from '../../ir/ndarray.js';
import { fusedNames, replaceGroups, soleConsumer, type Replacement } from '../edit.js';

/*
 * MatMul followed by Add of a constant becomes a MatMul with a bias input (a third input, added to the int32
 * accumulator like Gemm's C with beta = 1). Exact: integer addition is associative. This lets the requantization
 * that usually follows fuse into the same kernel.
 */
export function foldBiasAdd(g: Graph): Graph {
  // One walk: a fold never makes or unmakes another (the folded MatMul has three inputs, which no other fold takes,
  // and keeps every other node's producer and readers), so all are found on the graph as given and applied at once.
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  const folds: Replacement[] = [];
  for (const add of g.nodes) {
    if (add.op !== 'Add') continue;
    const constIdx = add.inputs.findIndex((i) => tensorOf(g, i).data !== undefined);
    if (constIdx < 0) continue;
    const mm = producers.get(add.inputs[1 - constIdx]);
    if (!mm || mm.op !== 'MatMul' || mm.inputs.length !== 2 || soleConsumer(g, mm.outputs[0], consumers) !== add) continue;
    const mmShape = tensorOf(g, mm.outputs[0]).shape;
    const biasShape = tensorOf(g, add.inputs[constIdx]).shape;
    if (!shapeEquals(broadcastShapes([mmShape, biasShape]), mmShape)) continue;
    const fused: Node = { ...mm, inputs: [...mm.inputs, add.inputs[constIdx]], outputs: [...add.outputs], fusedFrom: fusedNames(mm, add) };
    folds.push({ remove: [mm, add], add: fused });
  }
  return replaceGroups(g, folds);
}
