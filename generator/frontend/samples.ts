import { GenError, quoted } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { formatShape, sizeOf, type NDArray } from '../ir/ndarray.js';

/**
 * Sample inputs stand for the graph's inputs: each must hold as many elements as its input declares (its shape may
 * differ, as in `gen run`: the elements in order are the input). Else its value ranges describe some other tensor.
 */
export function checkSampleSizes(graph: Graph, arrays: NDArray[], file: string): void {
  if (arrays.length < graph.inputs.length) {
    throw new GenError('input', `holds ${arrays.length} arrays, the model has ${graph.inputs.length} inputs ` +
      `(${graph.inputs.map((n) => quoted(n)).join(', ')})`, { file });
  }
  graph.inputs.forEach((name, i) => {
    const a = arrays[i];
    const t = graph.tensors.get(name);
    if (!a || !t || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) return;
    if (a.data.length !== sizeOf(t.shape)) {
      throw new GenError('input', `sample array ${i} has shape ${formatShape(a.shape)} (${a.data.length} elements), ` +
        `input ${quoted(name)} declares ${formatShape(t.shape)} (${sizeOf(t.shape)})`, { file });
    }
  });
}
