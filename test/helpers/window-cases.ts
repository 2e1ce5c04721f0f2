import type { IntType } from '../../generator/ir/dtype.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { OnnxBuilder } from './onnx-builder.js';
import { Rng } from './random.js';
import { randomValues } from './typed-values.js';

/*
 * Window geometries for the tiling sweeps: every combination along one spatial axis of kernel 1..3, stride 1..3,
 * dilation 1..2 and both pads 0..2 (162), for conv, depthwise conv and max-pool. The tiler splits the first
 * spatial axis (rows, or the length of a 1-D op), so that axis takes every geometry; the other axis takes them
 * too, paired off with a different one each (index * 37 mod 162), so kernels, strides and pads are non-square
 * and every side's pad meets every other's over the sweep.
 */

export interface AxisWindow {
  k: number;
  s: number;
  d: number;
  /** Pads before and after along the axis. */
  p0: number;
  p1: number;
}

export const AXIS_WINDOWS: readonly AxisWindow[] = (() => {
  const out: AxisWindow[] = [];
  for (const k of [1, 2, 3]) for (const s of [1, 2, 3]) for (const d of [1, 2]) for (const p0 of [0, 1, 2]) for (const p1 of [0, 1, 2]) out.push({ k, s, d, p0, p1 });
  return out;
})();

export type WindowOp = 'conv' | 'depthwise' | 'maxpool';

/** Input of every case: small enough for tiny tiles, 7 rows so that the windows above give 1 to 10 output rows. */
export const WINDOW_INPUT = { C: 3, H: 7, W: 6, L: 11 };

/** Whether every output position sees an input element (max-pool refuses windows wholly in the padding). */
function everyWindowSeesInput(w: AxisWindow, size: number): boolean {
  const out = Math.floor((size + w.p0 + w.p1 - w.d * (w.k - 1) - 1) / w.s) + 1;
  for (let o = 0; o < out; o++) {
    let seen = false;
    for (let j = 0; j < w.k; j++) {
      const i = o * w.s - w.p0 + j * w.d;
      if (i >= 0 && i < size) seen = true;
    }
    if (!seen) return false;
  }
  return true;
}

export interface WindowModel {
  builder: OnnxBuilder;
  inputs: NDArray[];
  /** One entry per node (its output y<i>): the op and the geometry along each spatial axis. */
  cases: { op: WindowOp; axes: AxisWindow[] }[];
}

/**
 * One model holding a node per (op, geometry) of `indices` (into AXIS_WINDOWS), all reading the same input, each
 * its own graph output: one build covers them all. Max-pool skips geometries with a window wholly in the padding.
 * `oneD` builds 1-D ops on an input of length WINDOW_INPUT.L.
 */
export function windowModel(ops: readonly WindowOp[], indices: readonly number[], opts: { oneD?: boolean; seed?: number; channels?: number } = {}): WindowModel {
  const rng = new Rng(opts.seed ?? 1);
  const { H, W, L } = WINDOW_INPUT;
  const C = opts.channels ?? WINDOW_INPUT.C;
  const spatial = opts.oneD ? [L] : [H, W];
  const xType: IntType = 'int8';
  const b = new OnnxBuilder('windows').input('x', xType, [1, C, ...spatial]);
  const cases: WindowModel['cases'] = [];
  for (const op of ops) {
    for (const i of indices) {
      const geo = opts.oneD ? [AXIS_WINDOWS[i]] : [AXIS_WINDOWS[i], AXIS_WINDOWS[(i * 37 + 5) % AXIS_WINDOWS.length]];
      if (op === 'maxpool' && !geo.every((g, a) => everyWindowSeesInput(g, spatial[a]))) continue;
      const attrs = {
        kernel_shape: geo.map((g) => g.k), strides: geo.map((g) => g.s), dilations: geo.map((g) => g.d),
        pads: [...geo.map((g) => g.p0), ...geo.map((g) => g.p1)],
      };
      const y = `y${cases.length}`;
      if (op === 'maxpool') {
        b.node('MaxPool', ['x'], [y], attrs).output(y, 'float32');
      } else {
        const dw = op === 'depthwise';
        const co = dw ? C : 4;
        const wShape = [co, dw ? 1 : C, ...geo.map((g) => g.k)];
        const w = `w${cases.length}`;
        b.initializer(w, 'int8', wShape, randomValues(rng, 'int8', wShape).data);
        const inputs = ['x', w];
        // A bias on some: an output whose windows all lie in the padding is the bias alone.
        if (cases.length % 2 === 0) {
          b.initializer(`bias${cases.length}`, 'int32', [co], rng.ints(co, -3000, 3000));
          inputs.push(`bias${cases.length}`);
        }
        b.node('Conv', inputs, [y], { ...attrs, group: dw ? C : 1 }).output(y, 'int32');
      }
      cases.push({ op, axes: geo });
    }
  }
  return { builder: b, inputs: [randomValues(rng, xType, [1, C, ...spatial])], cases };
}

/** Every index of AXIS_WINDOWS, or every `step`-th (from `offset`) for the subsets slower checks run. */
export function windowIndices(step = 1, offset = 0): number[] {
  return AXIS_WINDOWS.map((_, i) => i).filter((i) => i % step === offset % step);
}
