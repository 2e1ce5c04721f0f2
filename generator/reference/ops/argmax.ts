import { attrInt } from '../../ir/attrs.js';
import { normAxis } from '../broadcast.js';
import { intArray, need, unsupported, type OpSpec } from '../op-spec.js';

/*
 * ArgMax over the last axis (what a decoder's next token needs): the index of the largest entry of each row, the
 * first one among equals (select_last_index 0, ONNX's default); keepdims as ONNX (default 1). Other axes are not
 * supported (no model here needs them).
 */

function lastAxis(node: Parameters<OpSpec['shape']>[0], rank: number): void {
  if (normAxis(attrInt(node, 'axis', 0), rank) !== rank - 1) throw unsupported(node, 'ArgMax over an axis other than the last');
  if (attrInt(node, 'select_last_index', 0) !== 0) throw unsupported(node, 'ArgMax with select_last_index');
}

export const argMaxOp: OpSpec = {
  ops: ['ArgMax'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    lastAxis(node, x.length);
    return [attrInt(node, 'keepdims', 1) !== 0 ? [...x.slice(0, -1), 1] : x.slice(0, -1)];
  },
  dtype: () => [undefined],
  range: (node, inputs) => [{ min: 0, max: Math.max(0, need(node, inputs, 0).shape.at(-1)! - 1) }],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    lastAxis(node, x.shape.length);
    const L = x.shape[x.shape.length - 1];
    const shape = attrInt(node, 'keepdims', 1) !== 0 ? [...x.shape.slice(0, -1), 1] : x.shape.slice(0, -1);
    const out = intArray(shape);
    for (let r = 0; r < out.data.length; r++) {
      let best = 0;
      for (let j = 1; j < L; j++) if (x.data[r * L + j] > x.data[r * L + best]) best = j;
      out.data[r] = best;
    }
    return [out];
  },
};
