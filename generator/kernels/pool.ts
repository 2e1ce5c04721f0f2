import { GenError } from '../errors.js';
import { attrInts } from '../ir/attrs.js';
import { rangeOf, type IntType } from '../ir/dtype.js';
import { tensorOf, type Node } from '../ir/graph.js';
import { tapsInside, typeNames } from './common.js';
import type { KernelDef } from './types.js';
import { rowAccepts, siteOf } from './words.js';

/** Whether every output position along one axis sees at least one input element (else its max is undefined). */
function everyWindowInside(out: number, inp: number, k: number, s: number, p: number, d: number): boolean {
  for (let o = 0; o < out; o++) if (tapsInside(o, o + 1, s, p, k, d, inp) === 0) return false;
  return true;
}

/**
 * MaxPool, 1-D (as 2-D with H = 1) and 2-D, with pads, strides, dilations and ceil_mode (the output shape comes
 * from inference). Padding never wins: only positions inside the input are compared, which also covers windows
 * that ceil_mode lets run past the padded extent. The work unit is one output row of one (n, c) plane.
 */
export const maxPoolKernel: KernelDef = {
  name: 'maxpool',
  liveCode: true,
  template: 'maxpool',
  engine: 'cores',
  accepts(node, g) {
    const why = rowAccepts(node, g, ['MaxPool'], 'a MaxPool', [node.inputs[0], node.outputs[0]]);
    if (why) return why;
    const rank = tensorOf(g, node.inputs[0]).shape.length;
    if (rank !== 3 && rank !== 4) return 'only 1-D and 2-D pooling';
    if (node.outputs.length > 1 && node.outputs[1]) return 'the Indices output is not supported';
    const autoPad = node.attrs.auto_pad;
    if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value} is not supported (give pads)`;
    return null;
  },
  view({ node, graph, platform }) {
    const x = tensorOf(graph, node.inputs[0]);
    const y = tensorOf(graph, node.outputs[0]);
    const is1d = x.shape.length === 3;
    const [N, C, H, W] = is1d ? [x.shape[0], x.shape[1], 1, x.shape[2]] : x.shape;
    const [HO, WO] = is1d ? [1, y.shape[2]] : [y.shape[2], y.shape[3]];
    const win = maxPoolWindow(node, is1d ? 1 : 2, H, W, HO, WO);
    const { KH, KW, SY, SX, DY, DX, PT, PL } = win;
    const pairs = pairSteps(W, WO);
    const simd = pairedWindow(win) && x.dtype === y.dtype && (x.dtype === 'int8' || x.dtype === 'uint8');
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        N, C, H, W, HO, WO, ...win,
        units: N * C * HO,
        // The C compares only the taps inside the input: a row's columns inside summed over its outputs (all of
        // them, or those after the paired steps); the rows inside are counted per unit by the AS.
        colTaps: tapsInside(0, WO, SX, PL, KW, DX, W),
        // The C kernel's SIMD path (maxpool.c.mustache): 2x2 windows of stride 2 on bytes, no padding.
        // `pairs`: its steps per row (two outputs each), charged as POOL_PAIR; the row's other outputs as taps.
        simd22: simd
          ? {
            fn: x.dtype === 'int8' ? 'fg_max4_s' : 'fg_max4_u', pairs, tailTaps: tapsInside(2 * pairs, WO, SX, PL, KW, DX, W),
            // The portable lane maximum flips int8 sign bits first (LANE_SIGN, two maxima a step).
            signLanes: x.dtype === 'int8' && !platform.image?.xpulp,
          } : false,
        // Every output in pairs (WO even, each pair's words inside the row) and the planes' rows 2 x HO: the C walks
        // the units' input rows at a constant step, with no row/plane odometer (maxpool.c `flat`).
        flat: simd && 2 * HO === H && WO % 2 === 0 && pairs === WO / 2 ? { rowStep: 2 * W } : false,
        lowest: lowestLiteral(x.dtype as IntType),
        x: typeNames(x.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};

/** Whether the window is the 2x2 stride-2 one without padding or dilation that the C pairs outputs of (maxpool.c `simd22`). */
function pairedWindow(w: PoolWindow): boolean {
  return w.KH === 2 && w.KW === 2 && w.SY === 2 && w.SX === 2 && w.DY === 1 && w.DX === 1 && w.PT === 0 && w.PL === 0;
}

/**
 * The planner's view of the same rule from the attributes alone (it prices a tile before the kernel's view exists;
 * operand types are not checked: a quantized pool is on bytes).
 */
export function pooledInPairs(node: Node): boolean {
  const k = attrInts(node, 'kernel_shape', []);
  if (k.length !== 2) return false;
  const [SY, SX] = attrInts(node, 'strides', [1, 1]);
  const [DY, DX] = attrInts(node, 'dilations', [1, 1]);
  const pads = attrInts(node, 'pads', [0, 0, 0, 0]);
  return pads.every((p) => p === 0) && pairedWindow({ KH: k[0], KW: k[1], SY, SX, DY, DX, PT: 0, PL: 0 });
}

/** The C's paired steps per output row (maxpool.c: while both outputs' words lie in the row). */
function pairSteps(W: number, WO: number): number {
  let n = 0;
  for (let ox = 0; ox * 2 + 3 < W && ox + 1 < WO; ox += 2) n++;
  return n;
}

export interface PoolWindow {
  KH: number; KW: number; SY: number; SX: number; DY: number; DX: number; PT: number; PL: number;
}

/**
 * A MaxPool's window on an H x W plane (rank 1: H = 1) with output HO x WO: kernel, strides, dilations and the
 * leading pads, checked against the input rank and so that every window holds an input element. Shared by every
 * MaxPool kernel, whatever its layout.
 */
export function maxPoolWindow(node: Node, r: 1 | 2, H: number, W: number, HO: number, WO: number): PoolWindow {
  const site = siteOf(node);
  const k = attrInts(node, 'kernel_shape');
  const strides = attrInts(node, 'strides', new Array<number>(r).fill(1));
  const dil = attrInts(node, 'dilations', new Array<number>(r).fill(1));
  const pads = attrInts(node, 'pads', new Array<number>(2 * r).fill(0));
  if (k.length !== r || strides.length !== r || dil.length !== r || pads.length !== 2 * r) {
    throw new GenError('model', 'kernel_shape, strides, dilations or pads do not match the input rank', site);
  }
  const is1d = r === 1;
  const [KH, KW] = is1d ? [1, k[0]] : k;
  const [SY, SX] = is1d ? [1, strides[0]] : strides;
  const [DY, DX] = is1d ? [1, dil[0]] : dil;
  const [PT, PL] = is1d ? [0, pads[0]] : [pads[0], pads[1]];
  if (!everyWindowInside(HO, H, KH, SY, PT, DY) || !everyWindowInside(WO, W, KW, SX, PL, DX)) {
    throw new GenError('unsupported', 'a pooling window lies entirely in the padding (its maximum is undefined)', site);
  }
  return { KH, KW, SY, SX, DY, DX, PT, PL };
}

/** The running maximum's start, the input type's minimum (every window holds an input element, which wins), as C/AS. */
export function lowestLiteral(t: IntType): string {
  const lowest = rangeOf(t).min;
  return lowest === -2147483648 ? '(-2147483647 - 1)' : `(${lowest})`;
}
