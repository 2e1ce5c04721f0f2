import { GenError } from '../errors.js';

/** numpy broadcasting of shapes (right-aligned). */
export function broadcastShapes(shapes: readonly (readonly number[])[], site: { node?: string; op?: string } = {}): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i;
      const d = s[i];
      if (d === 1) continue;
      if (out[o] !== 1 && out[o] !== d) {
        throw new GenError('model', `shapes ${shapes.map((x) => `[${x.join(', ')}]`).join(' and ')} do not broadcast`, site);
      }
      out[o] = d;
    }
  }
  return out;
}

/**
 * Element strides of `shape` read as broadcast to `outShape` (0 along broadcast axes), aligned to outShape's rank.
 */
export function broadcastStrides(shape: readonly number[], outShape: readonly number[]): number[] {
  const rank = outShape.length;
  const strides = new Array<number>(rank).fill(0);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const o = rank - shape.length + i;
    strides[o] = shape[i] === 1 && outShape[o] !== 1 ? 0 : acc;
    acc *= shape[i];
  }
  return strides;
}

/**
 * Attributes a GEMM tile instance carries: the axis its requantization's multiplier and offset vary along, counted
 * from the last (0: per column, 1: per row, -1: one value), as read on the whole output (kernels/gemm.ts).
 */
export const GEMM_MUL_AXIS = 'fg_requant_mul_from_end';
export const GEMM_ADD_AXIS = 'fg_requant_add_from_end';

/**
 * RequantShift parameters stored as (C,1,...,1) with the rank of x are per-channel along axis 1
 * (SEMANTICS.md conventions; the peer's exporter writes them that way): the shape they broadcast as.
 */
export function requantParamShape(param: readonly number[], x: readonly number[]): number[] {
  if (param.length === x.length && param.length >= 2 && param[0] === x[1] && param[0] > 1 && param.slice(1).every((d) => d === 1)) {
    return [1, param[0], ...new Array<number>(param.length - 2).fill(1)];
  }
  return [...param];
}

/** The output axes along which a parameter of shape `param` varies when broadcast to `out`. */
export function varyingAxes(param: readonly number[], out: readonly number[]): number[] {
  const axes: number[] = [];
  for (let i = 0; i < param.length; i++) if (param[i] > 1) axes.push(out.length - param.length + i);
  return axes;
}
