import { attrInt, attrInts } from '../../ir/attrs.js';
import { POSITION_BOUND_INPUT, positionBoundOf } from '../../frontend/passes/bound-by-position.js';
import { GEMM_ADD_AXIS, GEMM_MUL_AXIS, requantParamShape, varyingAxes } from '../../ir/broadcast.js';
import type { AttrValue, Graph, Node } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import { broadcastBox, fullBox, type Box } from './box.js';

/*
 * How each tileable op maps a box of its output to the boxes of its operands. A tile is then the same op on
 * smaller tensors (plus adjusted pads), so the kernels and their templates need no tiled variant of their own.
 */
export interface TileGeometry {
  /** Box of every operand (inputs, requantization parameters, the output) by tensor name. */
  boxes: Map<string, Box>;
  /** Attributes the tile's node overrides (a conv tile at the border keeps only its share of the padding). */
  attrs: Record<string, AttrValue>;
}

export interface TilingSpec {
  /** Output axes that may be split, outermost first: tiles are visited in this order, the last axis fastest. */
  axes(node: Node, g: Graph): number[];
  /**
   * Axes along which a window's halo is clipped by the input's edges (and pads): tiles near either edge read
   * boxes of other sizes than the rest, however far the padding reaches. Along the other axes a box is the
   * tile's own range, so only the last tile (a remainder) differs.
   */
  windowAxes?: number[];
  geometry(node: Node, g: Graph, out: Box): TileGeometry;
}

/** The box of a requantization parameter that follows output axis `axis` (or is a scalar). */
function paramBox(shape: readonly number[], out: Box, axis: number): Box {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n === 1) return fullBox(shape);
  const j = shape.findIndex((d) => d > 1);
  return {
    start: shape.map((_, i) => (i === j ? out.start[axis] : 0)),
    size: shape.map((d, i) => (i === j ? out.size[axis] : 1)),
  };
}

function withRequant(node: Node, g: Graph, out: Box, boxes: Map<string, Box>, axisOf: (param: string) => number): void {
  if (!node.requant) return;
  for (const p of [node.requant.mul, node.requant.add]) boxes.set(p, paramBox(tensorOf(g, p).shape, out, axisOf(p)));
}

/** Window ops (Conv, MaxPool): split batch, channels and the first spatial axis (rows; the length of a 1-D op). */
function windowGeometry(node: Node, g: Graph, out: Box, channelsFromWeights: boolean): TileGeometry {
  const x = tensorOf(g, node.inputs[0]);
  const is1d = x.shape.length === 3;
  const k = is1d ? 1 : 2;
  const kernel = node.op === 'Conv' ? tensorOf(g, node.inputs[1]).shape.slice(2) : attrInts(node, 'kernel_shape');
  const pads = attrInts(node, 'pads', new Array<number>(2 * k).fill(0));
  const stride = attrInts(node, 'strides', new Array<number>(k).fill(1))[0];
  const dil = attrInts(node, 'dilations', new Array<number>(k).fill(1))[0];
  const K = kernel[0];
  const H = x.shape[2];
  const [r0, rn] = [out.start[2], out.size[2]];
  const inStart = r0 * stride - pads[0];
  const inEnd = (r0 + rn - 1) * stride - pads[0] + dil * (K - 1) + 1;
  // The input rows the tile reads, clipped to the input; what the clip removes becomes the tile's own padding.
  let a = Math.min(H, Math.max(0, inStart));
  let b = Math.max(a, Math.min(H, inEnd));
  // A conv tile whose windows all lie in the padding (a pad wider than the kernel's reach: 1x1 with pads 2)
  // reads no row: an empty box, nothing fetched, its outputs are the bias. Its padding is all "bottom" so that
  // neither pad goes negative; the kernel reads no tap of an empty tile whatever they are.
  if (b === a) a = b = 0;
  const newPads = [...pads];
  newPads[0] = b > a ? a - inStart : 0;
  newPads[k] = b > a ? inEnd - b : inEnd - inStart;
  const boxes = new Map<string, Box>();
  let c0 = out.start[1];
  let cn = out.size[1];
  if (channelsFromWeights) {
    const w = tensorOf(g, node.inputs[1]);
    const group = attrInt(node, 'group', 1);
    const cog = w.shape[0] / group;
    const cig = w.shape[1];
    const g0 = Math.floor(out.start[1] / cog);
    const g1 = Math.floor((out.start[1] + out.size[1] - 1) / cog);
    c0 = g0 * cig;
    cn = (g1 - g0 + 1) * cig;
    boxes.set(node.inputs[1], { start: [out.start[1], ...w.shape.slice(1).map(() => 0)], size: [out.size[1], ...w.shape.slice(1)] });
    if (node.inputs[2]) boxes.set(node.inputs[2], { start: [out.start[1]], size: [out.size[1]] });
  }
  boxes.set(node.inputs[0], {
    start: [out.start[0], c0, a, ...x.shape.slice(3).map(() => 0)],
    size: [out.size[0], cn, b - a, ...x.shape.slice(3)],
  });
  withRequant(node, g, out, boxes, () => 1);
  boxes.set(node.outputs[0], out);
  const attrs: Record<string, AttrValue> = { pads: { kind: 'ints', value: newPads } };
  if (channelsFromWeights && attrInt(node, 'group', 1) > 1) {
    const w = tensorOf(g, node.inputs[1]);
    const cog = w.shape[0] / attrInt(node, 'group', 1);
    attrs.group = { kind: 'int', value: Math.max(1, out.size[1] / cog) };
  }
  return { boxes, attrs };
}

const convSpec: TilingSpec = {
  axes: () => [0, 1, 2],
  windowAxes: [2],
  geometry: (node, g, out) => windowGeometry(node, g, out, true),
};

const maxPoolSpec: TilingSpec = {
  axes: () => [0, 1, 2],
  windowAxes: [2],
  geometry: (node, g, out) => windowGeometry(node, g, out, false),
};

/** Gemm / MatMul: split batch dims, rows (M) and columns (N); K is never split (the kernel does not accumulate). */
const gemmSpec: TilingSpec = {
  axes: (node, g) => {
    const r = tensorOf(g, node.outputs[0]).shape.length;
    // Columns bounded by a decoder's position count from the tensor's first column: whole rows per tile.
    const n = positionBoundOf(node) === 'n' ? r - 1 : r;
    return Array.from({ length: n }, (_, i) => i);
  },
  geometry: (node, g, out) => {
    const y = tensorOf(g, node.outputs[0]);
    const r = y.shape.length;
    const transA = node.op === 'Gemm' && attrInt(node, 'transA', 0) !== 0;
    const transB = attrInt(node, 'transB', 0) !== 0; // MatMul too: an n-major constant B (frontend/passes/n-major-weights.ts)
    const boxes = new Map<string, Box>();
    const [A, B] = [tensorOf(g, node.inputs[0]), tensorOf(g, node.inputs[1])];
    const matBox = (shape: readonly number[], rows: [number, number] | 'all', cols: [number, number] | 'all'): Box => {
      const batch = broadcastBox(shape.slice(0, -2), { start: out.start.slice(0, r - 2), size: out.size.slice(0, r - 2) });
      const rr = rows === 'all' ? [0, shape[shape.length - 2]] : rows;
      const cc = cols === 'all' ? [0, shape[shape.length - 1]] : cols;
      return { start: [...batch.start, rr[0], cc[0]], size: [...batch.size, rr[1], cc[1]] };
    };
    const m: [number, number] = [out.start[r - 2], out.size[r - 2]];
    const n: [number, number] = [out.start[r - 1], out.size[r - 1]];
    boxes.set(node.inputs[0], transA ? matBox(A.shape, 'all', m) : matBox(A.shape, m, 'all'));
    boxes.set(node.inputs[1], transB ? matBox(B.shape, n, 'all') : matBox(B.shape, 'all', n));
    if (node.inputs[2]) boxes.set(node.inputs[2], broadcastBox(tensorOf(g, node.inputs[2]).shape, out));
    // A decoder's position (frontend/passes/bound-by-position.ts): the whole scalar in every tile.
    const pos = node.inputs[POSITION_BOUND_INPUT];
    if (pos) boxes.set(pos, fullBox(tensorOf(g, pos).shape));
    const axisOf = (p: string): number => varyingAxes(requantParamShape(tensorOf(g, p).shape, y.shape), y.shape)[0];
    withRequant(node, g, out, boxes, axisOf);
    boxes.set(node.outputs[0], out);
    // Whether a requantization parameter is per row or per column is read on the whole output: a tile's shape can make
    // it ambiguous (a per-row (M,1) against a square tile reads as the per-channel (C,1) form, requantParamShape).
    const fromEnd = (p: string): number => {
      const axis = axisOf(p);
      return axis === undefined ? -1 : r - 1 - axis;
    };
    const int = (value: number): AttrValue => ({ kind: 'int', value });
    const attrs: Record<string, AttrValue> = node.requant ? { [GEMM_MUL_AXIS]: int(fromEnd(node.requant.mul)), [GEMM_ADD_AXIS]: int(fromEnd(node.requant.add)) } : {};
    return { boxes, attrs };
  },
};

/** Ops whose operands broadcast against the output: split every axis but `keepLast` trailing ones. */
function broadcastSpec(keepLast: number): TilingSpec {
  return {
    axes: (node, g) => {
      const r = tensorOf(g, node.outputs[0]).shape.length;
      return Array.from({ length: Math.max(0, r - keepLast) }, (_, i) => i);
    },
    geometry: (node, g, out) => {
      const boxes = new Map<string, Box>();
      for (const i of node.inputs) if (i) boxes.set(i, broadcastBox(tensorOf(g, i).shape, out));
      boxes.set(node.outputs[0], out);
      return { boxes, attrs: {} };
    },
  };
}

/**
 * NeurekaConv (NHWC): split output rows, columns and channels. The input tile is the rows and columns the output
 * tile reads (halo included, the tile keeps only its share of the padding) with every input channel (depthwise:
 * the tile's channels); weights, scale and bias follow the output channels (depthwise weights by 28-channel rows).
 */
const neurekaSpec: TilingSpec = {
  axes: () => [1, 2, 3],
  windowAxes: [1, 2],
  geometry: (node, g, out) => {
    const job = node.npu!;
    const x = tensorOf(g, node.inputs[0]);
    const k = job.mode === '1x1' ? 1 : 3;
    const span = (o0: number, n: number, before: number, size: number): [number, number, number, number] => {
      const inStart = o0 - before;
      const inEnd = o0 + n - 1 - before + k;
      const a = Math.max(0, inStart);
      const b = Math.min(size, inEnd);
      return [a, b - a, a - inStart, inEnd - b];
    };
    const [r0, rn, pt, pb] = span(out.start[1], out.size[1], job.pads.top, x.shape[1]);
    const [c0, cn, pl, pr] = span(out.start[2], out.size[2], job.pads.left, x.shape[2]);
    const dw = job.mode === '3x3dw';
    const boxes = new Map<string, Box>();
    const [, w, scale, bias] = node.inputs;
    boxes.set(node.inputs[0], {
      start: [0, r0, c0, dw ? out.start[3] : 0], size: [1, rn, cn, dw ? out.size[3] : x.shape[3]],
    });
    const wt = tensorOf(g, w);
    const rows = dw ? [out.start[3] / 28, Math.ceil(out.size[3] / 28)] : [out.start[3], out.size[3]];
    boxes.set(w, { start: [rows[0], 0], size: [rows[1], wt.shape[1]] });
    for (const p of [scale, bias]) if (p) boxes.set(p, { start: [out.start[3]], size: [out.size[3]] });
    boxes.set(node.outputs[0], out);
    return { boxes, attrs: { pads: { kind: 'ints', value: [pt, pl, pb, pr] } } };
  },
};

/**
 * Transpose: split every output axis; the input tile is the same box with its axes put back (input axis perm[i]
 * takes output axis i). Cores then read and write L1, and the DMA moves the strided boxes: a transpose on L2 would
 * pay L2's latency on every element (docs/timing.md "L2 from the cluster").
 */
const transposeSpec: TilingSpec = {
  axes: (node, g) => tensorOf(g, node.outputs[0]).shape.map((_, i) => i),
  geometry: (node, g, out) => {
    const rank = out.start.length;
    const perm = attrInts(node, 'perm', Array.from({ length: rank }, (_, i) => rank - 1 - i)).map((p) => (p < 0 ? p + rank : p));
    const start = new Array<number>(rank).fill(0);
    const size = new Array<number>(rank).fill(1);
    perm.forEach((j, i) => {
      start[j] = out.start[i];
      size[j] = out.size[i];
    });
    return { boxes: new Map([[node.inputs[0], { start, size }], [node.outputs[0], out]]), attrs: {} };
  },
};

/**
 * A table read by run-time indices (Gather of 1-D data: the quantizer's and the QDQ lowering's 256-entry tables): the
 * output has the indices' shape, so every axis splits; each tile reads the whole table (fetched once, unchanged from
 * tile to tile) and its own box of the indices. Cores then read L1, where on L2 each code, entry and store would pay
 * L2's latency (docs/timing.md "L2 from the cluster").
 */
const tableSpec: TilingSpec = {
  axes: (node, g) => tensorOf(g, node.outputs[0]).shape.map((_, i) => i),
  geometry: (node, g, out) => ({
    boxes: new Map([
      [node.inputs[0], fullBox(tensorOf(g, node.inputs[0]).shape)],
      [node.inputs[1], out],
      [node.outputs[0], out],
    ]),
    attrs: {},
  }),
};

/**
 * TableSoftmax and QLayerNorm: whole rows of x and y (every axis but the last splits); the other operands (the exponent
 * table; the gains and offsets per column) whole in every tile.
 */
const rowsWithConstantsSpec: TilingSpec = {
  axes: (node, g) => tensorOf(g, node.outputs[0]).shape.slice(0, -1).map((_, i) => i),
  geometry: (node, g, out) => ({
    boxes: new Map([
      [node.inputs[0], out],
      ...node.inputs.slice(1).map((i): [string, Box] => [i, fullBox(tensorOf(g, i).shape)]),
      [node.outputs[0], out],
    ]),
    attrs: {},
  }),
};

/** Tables a Gather tiles with: 1-D data of at most this many entries, indices known at run time only (an embedding's
 * rows stay in L2; constant indices are a copy). */
const TABLE_MAX = 1024;

const SPECS: Record<string, TilingSpec> = {
  Transpose: transposeSpec,
  NeurekaConv: neurekaSpec,
  Conv: convSpec,
  MaxPool: maxPoolSpec,
  Gemm: gemmSpec,
  MatMul: gemmSpec,
  Elementwise: broadcastSpec(0),
  // Row-wise ops read whole rows of the last axis.
  iSoftmax: broadcastSpec(1),
  ITAMax: broadcastSpec(1),
  ITAPartialMax: broadcastSpec(1),
  iRMSNorm: broadcastSpec(1),
  iLayerNorm: broadcastSpec(1),
  TableSoftmax: rowsWithConstantsSpec,
  QLayerNorm: rowsWithConstantsSpec,
};

export function tilingSpecOf(node: Node, g: Graph): TilingSpec | undefined {
  if (node.outputs.length !== 1) return undefined;
  if (node.op === 'Gather') {
    const data = tensorOf(g, node.inputs[0]).shape;
    return data.length === 1 && data[0] <= TABLE_MAX && !tensorOf(g, node.inputs[1]).data ? tableSpec : undefined;
  }
  return SPECS[node.op];
}
