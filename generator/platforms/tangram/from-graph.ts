import type { Layer } from '../../frontend/select.js';
import { attrInts } from '../../ir/attrs.js';
import { type Graph, isConstant, tensorOf } from '../../ir/graph.js';
import type { LayerShape } from './layers.js';
import { segmentFunctionOf } from './segment-functions.js';

/**
 * The firmware's layers as the cost model's shapes. The engines take Conv, Gemm/MatMul, MaxPool and the integer
 * dialect's fused element-wise expressions (requantization, ReLU, Add); any other layer (a copy, a softmax, a
 * normalisation) is priced as an element-wise pass over its output (ASSUMPTION: it moves its data once through an
 * engine). The model's batch dimension folds into the map's height (ASSUMPTION: the cost model's batch is 1 for a
 * model's own graph; the bench networks give their batch separately). Alias layers run no code: a reader of an
 * alias reads its source's producer.
 */
export interface GraphLayers {
  shapes: LayerShape[];
  /** The firmware layer id of each shape. */
  ids: number[];
}

const product = (xs: number[]): number => xs.reduce((a, b) => a * b, 1);

/**
 * `layers`: the firmware's (or the nodes with their alias mark: only 'alias' is looked at). `elementwiseOnEngines`:
 * the element-wise layers the engines compute may join segments (the segment programs compute them; the firmware runs its
 * element-wise layers on the control core, so its segments leave them out: segment-functions.ts).
 */
export function layersOfGraph(g: Graph, layers: ReadonlyArray<Pick<Layer, 'id' | 'node'> & { kernel: unknown }>, elementwiseOnEngines = false): GraphLayers {
  const producer = new Map<string, number>();
  const shapes: LayerShape[] = [];
  const ids: number[] = [];
  for (const l of layers) {
    const n = l.node;
    if (l.kernel === 'alias') {
      const src = producer.get(n.inputs[0]);
      for (const o of n.outputs) if (src !== undefined) producer.set(o, src);
      continue;
    }
    const inputs = [...new Set(n.inputs.filter((t) => t !== '' && !isConstant(g, t)).map((t) => producer.get(t)).filter((p): p is number => p !== undefined))];
    const y = tensorOf(g, n.outputs[0]).shape;
    // An empty dimension (a zero-sized tensor) is priced as one: the cost model's splits need at least one of each.
    const raw = shapeOf(g, l, y, inputs);
    const fn = segmentFunctionOf(n, g, elementwiseOnEngines);
    const accumulators = typeof fn !== 'string' && fn.kind === 1 && fn.fn.requant ? fn.fn.n * fn.fn.k * fn.fn.ho * fn.fn.wo : 0;
    const shape: LayerShape = { ...raw, ...(typeof fn === 'string' ? { alone: fn } : {}), ...(accumulators > 0 ? { accumulators } : {}), c: Math.max(1, raw.c), k: Math.max(1, raw.k), h: Math.max(1, raw.h), w: Math.max(1, raw.w), r: Math.max(1, raw.r), s: Math.max(1, raw.s), stride: Math.max(1, raw.stride) };
    producer.set(n.outputs[0], shapes.length);
    for (const o of n.outputs.slice(1)) producer.set(o, shapes.length);
    shapes.push(shape);
    ids.push(l.id);
  }
  return { shapes, ids };
}

function shapeOf(g: Graph, l: Pick<Layer, 'node'>, y: number[], inputs: number[]): LayerShape {
  const n = l.node;
  const name = n.name;
  if (n.op === 'Conv' || n.op === 'MaxPool') {
    const x = tensorOf(g, n.inputs[0]).shape;
    const oneD = y.length === 3;
    const ho = oneD ? 1 : y[2];
    const wo = oneD ? y[2] : y[3];
    const strides = attrInts(n, 'strides', oneD ? [1] : [1, 1]);
    const stride = strides[strides.length - 1];
    const folded = y[0] * ho;
    if (n.op === 'Conv') {
      const w = tensorOf(g, n.inputs[1]).shape;
      const [kh, kw] = oneD ? [1, w[2]] : [w[2], w[3]];
      return { name, kind: 'conv', c: w[1], k: w[0], h: folded, w: wo, r: kh, s: kw, stride, inputs };
    }
    const ks = attrInts(n, 'kernel_shape', oneD ? [1] : [1, 1]);
    const [kh, kw] = oneD ? [1, ks[0]] : [ks[0], ks[1]];
    return { name, kind: 'pool', c: x[1], k: x[1], h: folded, w: wo, r: kh, s: kw, stride, inputs };
  }
  if (n.op === 'Gemm' || n.op === 'MatMul') {
    const a = tensorOf(g, n.inputs[0]).shape;
    const transA = n.op === 'Gemm' && n.attrs.transA?.kind === 'int' && n.attrs.transA.value === 1;
    const kDim = a.length === 1 ? a[0] : transA ? a[a.length - 2] : a[a.length - 1];
    const cols = y.length === 0 ? 1 : y[y.length - 1];
    const rows = product(y) / Math.max(1, cols);
    return { name, kind: 'fc', c: kDim, k: cols, h: rows, w: 1, r: 1, s: 1, stride: 1, inputs };
  }
  // Element-wise (and every other layer, see above): one output element per element, per channel; a map of one
  // sample or a matrix keeps its channels, rows and columns (the layout a segment forwards, forwarding.ts).
  if (y.length === 4 && y[0] === 1) return { name, kind: 'eltwise', c: y[1], k: y[1], h: y[2], w: y[3], r: 1, s: 1, stride: 1, inputs };
  if (y.length === 2) return { name, kind: 'eltwise', c: y[1], k: y[1], h: y[0], w: 1, r: 1, s: 1, stride: 1, inputs };
  return { name, kind: 'eltwise', c: Math.max(1, product(y)), k: Math.max(1, product(y)), h: 1, w: 1, r: 1, s: 1, stride: 1, inputs };
}
