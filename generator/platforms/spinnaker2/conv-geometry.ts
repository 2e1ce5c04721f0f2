import { GenError } from '../../errors.js';
import { attrInt, attrInts } from '../../ir/attrs.js';
import { requantParamShape } from '../../ir/broadcast.js';
import { bytesOf, isSigned, type IntType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node, type Tensor } from '../../ir/graph.js';
import { eightBit, type ParamTable } from './gemm-geometry.js';

/**
 * A Conv (NCHW, groups, pads, strides, dilations; 1-D as 2-D with H = 1) as SpiNNaker2 runs it: per image and
 * group, Y_g[co][p] = W_g[co][k] x col_g[k][p] on the MLA, where col is the im2col of the input patch a worker builds
 * in its SRAM (k = (ci, ky, kx), p = (oh, ow)), then the GEMM epilogue per output channel.
 */
export interface ConvGeometry {
  x: Tensor;
  w: Tensor;
  y: Tensor;
  N: number;
  C: number;
  H: number;
  W: number;
  CO: number;
  G: number;
  /** Input and output channels per group, and K = CIG x KH x KW. */
  CIG: number;
  COG: number;
  K: number;
  KH: number;
  KW: number;
  OH: number;
  OW: number;
  PT: number;
  PL: number;
  SY: number;
  SX: number;
  DY: number;
  DX: number;
  xBytes: number;
  yBytes: number;
  xSigned: boolean;
  wSigned: boolean;
  /** MaxPool: no weights; each channel its own group; the max of the im2col column instead of the MLA. */
  pool: boolean;
  /** Bias and requantization as tables over output channels (mode 'row' = per channel, or 'scalar'). */
  bias: ParamTable;
  requant?: { mul: ParamTable; add: ParamTable; shift: number; min: number; max: number };
}

const NONE: ParamTable = { mode: 'none', scalar: 0, values: new Int32Array(0) };

export function convReason(node: Node, g: Graph): string | null {
  if (node.op !== 'Conv') return 'not a Conv';
  const x = tensorOf(g, node.inputs[0]);
  const w = tensorOf(g, node.inputs[1]);
  if (x.shape.length !== 3 && x.shape.length !== 4) return 'only 1-D and 2-D convolutions';
  if (!eightBit(x) || !eightBit(w)) return `the MLA multiplies 8-bit operands; '${eightBit(x) ? w.name : x.name}' is ${eightBit(x) ? w.dtype : x.dtype}`;
  if (!w.data) return `the weights '${w.name}' are not a constant`;
  const b = node.inputs[2] ? tensorOf(g, node.inputs[2]) : undefined;
  if (b && !b.data) return `the bias '${b.name}' is not a constant`;
  const autoPad = node.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value} is not supported (give pads)`;
  return null;
}

/** MaxPool (ceil_mode 0, NCHW, 1-D or 2-D) as a depthwise window op: the conv layer in its pool mode. */
export function poolReason(node: Node, g: Graph): string | null {
  if (node.op !== 'MaxPool') return 'not a MaxPool';
  const x = tensorOf(g, node.inputs[0]);
  if (x.shape.length !== 3 && x.shape.length !== 4) return 'only 1-D and 2-D pools';
  if (!eightBit(x)) return `the pool runs on 8-bit values; '${x.name}' is ${x.dtype}`;
  if (attrInt(node, 'ceil_mode', 0) !== 0) return 'ceil_mode 1 is not supported';
  if (node.outputs.length > 1 && node.outputs[1]) return 'the Indices output is not supported';
  return null;
}

export function poolGeometry(node: Node, g: Graph): ConvGeometry {
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  const is1d = x.shape.length === 3;
  const [N, C, H, W] = is1d ? [x.shape[0], x.shape[1], 1, x.shape[2]] : x.shape;
  const [OH, OW] = is1d ? [1, y.shape[2]] : [y.shape[2], y.shape[3]];
  const k = is1d ? 1 : 2;
  const ks = attrInts(node, 'kernel_shape');
  const pads = attrInts(node, 'pads', new Array<number>(2 * k).fill(0));
  const strides = attrInts(node, 'strides', new Array<number>(k).fill(1));
  const dil = attrInts(node, 'dilations', new Array<number>(k).fill(1));
  const [KH, KW] = is1d ? [1, ks[0]] : ks;
  return {
    x, w: x, y, N, C, H, W, CO: C, G: C, CIG: 1, COG: 1, K: KH * KW, KH, KW, OH, OW,
    PT: is1d ? 0 : pads[0], PL: is1d ? pads[0] : pads[1],
    SY: is1d ? 1 : strides[0], SX: is1d ? strides[0] : strides[1],
    DY: is1d ? 1 : dil[0], DX: is1d ? dil[0] : dil[1],
    xBytes: 1, yBytes: bytesOf(y.dtype), xSigned: isSigned(x.dtype as IntType), wSigned: false, pool: true, bias: NONE,
  };
}

export function convGeometry(node: Node, g: Graph): ConvGeometry {
  const site = { node: node.name, op: node.op };
  const x = tensorOf(g, node.inputs[0]);
  const w = tensorOf(g, node.inputs[1]);
  const bias = node.inputs[2] ? tensorOf(g, node.inputs[2]) : undefined;
  const y = tensorOf(g, node.outputs[0]);
  const is1d = x.shape.length === 3;
  const [N, C, H, W] = is1d ? [x.shape[0], x.shape[1], 1, x.shape[2]] : x.shape;
  const [CO, CIG, KH, KW] = is1d ? [w.shape[0], w.shape[1], 1, w.shape[2]] : w.shape;
  const [OH, OW] = is1d ? [1, y.shape[2]] : [y.shape[2], y.shape[3]];
  const k = is1d ? 1 : 2;
  const pads = attrInts(node, 'pads', new Array<number>(2 * k).fill(0));
  const strides = attrInts(node, 'strides', new Array<number>(k).fill(1));
  const dil = attrInts(node, 'dilations', new Array<number>(k).fill(1));
  const G = attrInt(node, 'group', 1);
  const perChannel = (t: Tensor, requant: boolean, scale = 1): ParamTable => {
    if (!t.data) throw new GenError('unsupported', `'${t.name}' must be a constant on spinnaker2`, site);
    const shape = requant ? requantParamShape(t.shape, y.shape) : t.shape;
    const n = t.data.data.length;
    const value = (i: number): number => {
      const v = Math.trunc(t.data!.data[i]) * scale;
      if (v < -(2 ** 31) || v >= 2 ** 31) throw new GenError('unsupported', `'${t.name}' holds ${v}, outside int32`, site);
      return v;
    };
    if (n === 1) return { mode: 'scalar', scalar: value(0), values: new Int32Array(0) };
    // Per output channel: the axis 1 of the output (a bias [CO], a parameter [CO,1,...] or [1,CO,1,...]).
    const axis = requant ? shape.findIndex((d) => d > 1) : 0;
    if (n !== CO || (requant && axis !== shape.length - y.shape.length + 1)) {
      throw new GenError('unsupported', `'${t.name}' of shape [${t.shape}] is neither scalar nor per output channel`, site);
    }
    return { mode: 'row', scalar: 0, values: Int32Array.from({ length: CO }, (_, c) => value(c)) };
  };
  const rq = node.requant;
  return {
    x, w, y, N, C, H, W, CO, G, CIG, COG: CO / G, K: CIG * KH * KW, KH, KW, OH, OW,
    PT: is1d ? 0 : pads[0], PL: is1d ? pads[0] : pads[1],
    SY: is1d ? 1 : strides[0], SX: is1d ? strides[0] : strides[1],
    DY: is1d ? 1 : dil[0], DX: is1d ? dil[0] : dil[1],
    xBytes: bytesOf(x.dtype), yBytes: bytesOf(y.dtype),
    xSigned: isSigned(x.dtype as IntType), wSigned: isSigned(w.dtype as IntType), pool: false,
    bias: bias ? perChannel(bias, false) : NONE,
    requant: rq && {
      mul: perChannel(tensorOf(g, rq.mul), true),
      add: perChannel(tensorOf(g, rq.add), true),
      shift: rq.shift, min: rq.min, max: rq.max,
    },
  };
}

/** Input rows output rows oh0 .. oh0+nh-1 read, clamped to the image: [first, first + rows). */
export function patchRows(geo: ConvGeometry, oh0: number, nh: number): { first: number; rows: number } {
  const lo = Math.max(0, oh0 * geo.SY - geo.PT);
  const hi = Math.min(geo.H, (oh0 + nh - 1) * geo.SY - geo.PT + (geo.KH - 1) * geo.DY + 1);
  return { first: lo, rows: Math.max(0, hi - lo) };
}
