import { attrInt, attrInts, hasAttr } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { sizeOf, stridesOf, type NDArray } from '../../ir/ndarray.js';
import { normAxis } from '../broadcast.js';
import * as X from '../exact.js';
import {
  constValues, floatArray, intArray, isFloatType, need, rangeOfInfo, scaleRange, type OpSpec, type Operands,
  type TensorInfo,
} from '../op-spec.js';

/*
 * ReduceSum, ReduceMean and IntegerMean. Integer sums are exact; the integer mean rounds as SEMANTICS.md says
 * (a rounding shift when the count L is a power of two, else a rounded truncating division). Float reductions
 * are float32 running sums in row-major order.
 */

const f32 = Math.fround;

interface Reduction { axes: number[]; keep: boolean; outShape: number[]; count: number }

function reduction(node: Node, x: readonly number[], axesInput: number[] | undefined): Reduction {
  const keep = attrInt(node, 'keepdims', 1) !== 0;
  let axes = axesInput ?? (hasAttr(node, 'axes') ? attrInts(node, 'axes') : []);
  if (axes.length === 0) {
    // No axes: reduce everything, unless noop_with_empty_axes asks for the identity.
    axes = attrInt(node, 'noop_with_empty_axes', 0) !== 0 ? [] : x.map((_, i) => i);
  }
  const set = new Set(axes.map((a) => normAxis(a, x.length)));
  const outShape: number[] = [];
  x.forEach((d, i) => {
    if (!set.has(i)) outShape.push(d);
    else if (keep) outShape.push(1);
  });
  const count = [...set].reduce((a, i) => a * x[i], 1);
  return { axes: [...set], keep, outShape, count };
}

function axesFromInfo(node: Node, inputs: Operands<TensorInfo>): number[] | undefined {
  return inputs[1] ? constValues(node, inputs[1], 'reduction axes') : undefined;
}

/** Sums (float32 running sums for float input) of x over the reduced axes, in the output's layout. */
function sums(x: NDArray, r: Reduction, float: boolean): Float64Array {
  const out = new Float64Array(sizeOf(r.outShape));
  const rank = x.shape.length;
  // Output stride of each input axis (0 along reduced axes).
  const keptShape = x.shape.map((d, i) => (r.axes.includes(i) ? 1 : d));
  const keptStrides = stridesOf(keptShape).map((s, i) => (r.axes.includes(i) ? 0 : s));
  const idx = new Array<number>(rank).fill(0);
  let o = 0;
  for (let f = 0; f < x.data.length; f++) {
    out[o] = float ? f32(out[o] + x.data[f]) : out[o] + x.data[f];
    for (let d = rank - 1; d >= 0; d--) {
      idx[d]++;
      o += keptStrides[d];
      if (idx[d] < x.shape[d]) break;
      o -= keptStrides[d] * idx[d];
      idx[d] = 0;
    }
  }
  return out;
}

/** The integer mean of SEMANTICS.md: acc / L rounded, for a sum `acc` of L values. */
export function integerMean(acc: number, count: number): number {
  if ((count & (count - 1)) === 0) {
    const s = Math.log2(count);
    return X.toNumber(X.shr(X.add(acc, s > 0 ? 2 ** (s - 1) : 0), s));
  }
  const sgn = acc >= 0 ? 1 : -1; // sign(0) = +1
  return X.toNumber(X.tdiv(X.add(acc, sgn * Math.floor(count / 2)), count));
}

function reduceOp(ops: string[], kind: 'sum' | 'mean'): OpSpec {
  return {
    ops,
    shape: (node, inputs) => [reduction(node, need(node, inputs, 0).shape, axesFromInfo(node, inputs)).outShape],
    range(node, inputs) {
      const x = need(node, inputs, 0);
      const r = reduction(node, x.shape, axesFromInfo(node, inputs));
      return [kind === 'sum' ? scaleRange(rangeOfInfo(x), r.count) : rangeOfInfo(x)];
    },
    evaluate(node, inputs) {
      const x = need(node, inputs, 0);
      const r = reduction(node, x.shape, inputs[1] ? Array.from(inputs[1].data) : undefined);
      const float = isFloatType(x.dtype);
      const out = float ? floatArray(r.outShape) : intArray(r.outShape);
      const s = sums(x, r, float);
      for (let i = 0; i < s.length; i++) {
        out.data[i] = kind === 'sum' ? s[i] : float ? f32(s[i] / r.count) : integerMean(s[i], r.count);
      }
      return [out];
    },
  };
}

export const reduceSumOp = reduceOp(['ReduceSum'], 'sum');
export const reduceMeanOp = reduceOp(['ReduceMean', 'IntegerMean'], 'mean');
