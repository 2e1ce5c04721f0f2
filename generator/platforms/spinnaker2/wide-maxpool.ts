import { attrInt, attrInts, hasAttr } from '../../ir/attrs.js';
import { isIntType, rangeOf, type IntType } from '../../ir/dtype.js';
import type { Expr, Graph, Node, Tensor } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { freshTensorName } from '../../frontend/edit.js';
import { eightBit } from './gemm-geometry.js';
import { MAX_LEAVES } from './elementwise.js';

/*
 * The MLA's pool mode (conv-plan.ts) takes 8-bit values. A MaxPool of 16- or 32-bit values becomes data movement
 * and elementwise layers: the input padded with its type's minimum (so padding never wins, SEMANTICS.md MaxPool),
 * one strided Slice per window tap (the tap's value for every output pixel), and the maximum of the taps in
 * elementwise layers of at most MAX_LEAVES operands each. Exact, and every piece is a layer the firmware has.
 */

function int64s(g: Graph, name: string, values: number[]): string {
  const n = freshTensorName(g, name);
  g.tensors.set(n, { name: n, dtype: 'int64', shape: [values.length], data: ndarray('int64', [values.length], values) });
  return n;
}

function fresh(g: Graph, t: Tensor): Tensor {
  const out = { ...t, name: freshTensorName(g, t.name) };
  g.tensors.set(out.name, out);
  return out;
}

/** A MaxPool this pass rewrites: 1-D or 2-D, 16/32-bit values, explicit pads, no ceil_mode, no Indices output. */
function wide(g: Graph, n: Node): boolean {
  if (n.op !== 'MaxPool') return false;
  const x = tensorOf(g, n.inputs[0]);
  if (!isIntType(x.dtype) || eightBit(x) || (x.shape.length !== 3 && x.shape.length !== 4)) return false;
  const autoPad = n.attrs.auto_pad?.kind === 'string' ? n.attrs.auto_pad.value : 'NOTSET';
  return autoPad === 'NOTSET' && attrInt(n, 'ceil_mode', 0) === 0 && !(n.outputs.length > 1 && n.outputs[1]) && hasAttr(n, 'kernel_shape');
}

function lower(g: Graph, n: Node): Node[] {
  const x = tensorOf(g, n.inputs[0]);
  const y = tensorOf(g, n.outputs[0]);
  const k = x.shape.length - 2;
  const ks = attrInts(n, 'kernel_shape');
  const pads = attrInts(n, 'pads', new Array<number>(2 * k).fill(0));
  const strides = attrInts(n, 'strides', new Array<number>(k).fill(1));
  const dil = attrInts(n, 'dilations', new Array<number>(k).fill(1));
  const axes = Array.from({ length: k }, (_, i) => 2 + i);
  const nodes: Node[] = [];
  const site = (what: string): string => `${n.name}__${what}`;
  let src = x;
  if (pads.some((p) => p > 0)) {
    const lowest = rangeOf(x.dtype as IntType).min;
    const shape = x.shape.map((d, i) => (i < 2 ? d : d + pads[i - 2] + pads[i - 2 + k]));
    src = fresh(g, { ...x, name: site('padded'), shape, data: undefined, range: x.range && { min: lowest, max: x.range.max } });
    const p = int64s(g, site('pads'), [0, 0, ...pads.slice(0, k), 0, 0, ...pads.slice(k)]);
    nodes.push({ name: site('pad'), op: 'Pad', domain: '', inputs: [x.name, p], outputs: [src.name], attrs: { mode: { kind: 'string', value: 'constant' }, value: { kind: 'float', value: lowest } } });
  }
  // Every tap of the window, as (offset per spatial axis).
  const taps: number[][] = [[]];
  for (let i = 0; i < k; i++) taps.splice(0, taps.length, ...taps.flatMap((t) => Array.from({ length: ks[i] }, (_, j) => [...t, j * dil[i]])));
  const views = taps.map((off, t) => {
    const out = taps.length === 1 ? y : fresh(g, { ...x, name: site(`tap${t}`), shape: [...y.shape], data: undefined });
    const ends = off.map((o, i) => o + (y.shape[2 + i] - 1) * strides[i] + 1);
    const inputs = [src.name, int64s(g, site(`starts${t}`), off), int64s(g, site(`ends${t}`), ends), int64s(g, site(`axes${t}`), axes), int64s(g, site(`steps${t}`), strides)];
    nodes.push({ name: site(`tap${t}`), op: 'Slice', domain: '', inputs, outputs: [out.name], attrs: {} });
    return out.name;
  });
  if (views.length === 1) return nodes;
  // max(max(in0, in1), in2)...: a stack of two; chunks of MAX_LEAVES, each after the first taking the last result.
  let acc: string | undefined;
  let rest = views;
  for (let c = 0; rest.length > 0; c++) {
    const leaves = [...(acc ? [acc] : []), ...rest.slice(0, MAX_LEAVES - (acc ? 1 : 0))];
    rest = rest.slice(MAX_LEAVES - (acc ? 1 : 0));
    let expr: Expr = { k: 'in', i: 0 };
    for (let i = 1; i < leaves.length; i++) expr = { k: 'max', a: expr, b: { k: 'in', i } };
    const out = rest.length === 0 ? y : fresh(g, { ...y, name: site(`max${c}`), data: undefined });
    nodes.push({ name: site(`max${c}`), op: 'Elementwise', domain: 'firmgen', inputs: leaves, outputs: [out.name], attrs: {}, expr, fusedFrom: [n.name] });
    acc = out.name;
  }
  return nodes;
}

export function lowerWideMaxPool(g: Graph): Graph {
  const out: Graph = { ...g, tensors: new Map(g.tensors) };
  out.nodes = g.nodes.flatMap((n) => (wide(out, n) ? lower(out, n) : [n]));
  return out;
}
