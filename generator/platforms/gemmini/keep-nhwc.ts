import { attrInt, attrInts } from '../../ir/attrs.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { ndarray, sizeOf } from '../../ir/ndarray.js';

/*
 * Between two array convolutions the activations can stay NHWC (the array's layout): a chain
 *   Transpose(NHWC -> NCHW) -> Elementwise ... / MaxPool ... -> Transpose(NCHW -> NHWC)
 * in which every node has one reader is rewritten without both Transposes: each Elementwise runs on the NHWC tensor
 * (its per-channel constants, one value per channel, become vectors along the last axis; scalars stay), each 2-D
 * MaxPool becomes a 'GemminiMaxPoolNhwc' (domain firmgen, maxpool-nhwc-kernel.ts) with the same window, each constant
 * Pad (attribute pads, as lower-array.ts writes it) pads the same axes in their NHWC places. Values do
 * not change (the same operations on the same elements, only the layout differs); the host core saves two passes
 * over the tensor per layer. A chain may also end in a Flatten feeding a product by constant weights (a classifier):
 * the Transpose back goes, the Flatten reads the NHWC tensor and the weights' K axis is permuted to that order
 * (nhwcProduct). Chains that end anywhere else (a host conv, a residual Add, a graph output) are kept.
 */

const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];

const permIs = (n: Node, perm: number[]): boolean => n.op === 'Transpose' && attrInts(n, 'perm', []).join() === perm.join();

export function keepNhwc(g: Graph): Graph {
  let out = g;
  for (let guard = 0; guard < g.nodes.length; guard++) {
    const next = rewriteOne(out);
    if (!next) return out;
    out = next;
  }
  return out;
}

/** The NHWC shape of an NCHW one. */
const nhwc = (s: number[]): number[] => [s[0], s[2], s[3], s[1]];

/** A constant operand of an Elementwise on an NCHW tensor, as the same operand on its NHWC twin; undefined if not one. */
function nhwcLeaf(t: Tensor, channels: number): number[] | undefined {
  if (!t.data) return undefined;
  if (sizeOf(t.shape) === 1) return t.shape;
  // One value per channel: every dimension 1 but the channel axis (axis 1 of the rank-4 output, right-aligned).
  const r = t.shape.length;
  if (r < 3 || r > 4) return undefined;
  const ch = r - 3;
  if (t.shape[ch] !== channels || t.shape.some((d, i) => i !== ch && d !== 1)) return undefined;
  return [channels];
}

/**
 * A Flatten (axis 1) of a rank-4 tensor whose one reader is a Gemm (transA 0) or MatMul by constant 2-D weights that
 * it feeds as A: the pair, or undefined.
 */
function flattenProduct(g: Graph, f: Node | undefined, sole: (t: string) => Node | undefined): { flatten: Node; product: Node } | undefined {
  if (!f || f.op !== 'Flatten' || f.domain !== '' || attrInt(f, 'axis', 1) !== 1) return undefined;
  if (tensorOf(g, f.inputs[0]).shape.length !== 4) return undefined;
  const p = sole(f.outputs[0]);
  if (!p || p.domain !== '' || (p.op !== 'Gemm' && p.op !== 'MatMul') || p.inputs[0] !== f.outputs[0]) return undefined;
  if (p.op === 'Gemm' && attrInt(p, 'transA', 0) !== 0) return undefined;
  const b = tensorOf(g, p.inputs[1]);
  return b.data && b.shape.length === 2 ? { flatten: f, product: p } : undefined;
}

/**
 * The product with its weights' K axis in the NHWC order of the flattened elements: element (c, h, w) of the NCHW
 * flatten sits at (c·H + h)·W + w, of the NHWC one at (h·W + w)·C + c; the same sums, in another order.
 */
function nhwcProduct(p: Node, g: Graph, tensors: Map<string, Tensor>, nchw: readonly number[]): Node {
  const [, C, H, W] = nchw;
  const b = tensorOf(g, p.inputs[1]);
  const transB = p.op === 'Gemm' && attrInt(p, 'transB', 0) !== 0;
  const [K, M] = transB ? [b.shape[1], b.shape[0]] : b.shape;
  const from = b.data!.data;
  const to = new Array<number>(from.length);
  for (let c = 0; c < C; c++) {
    for (let h = 0; h < H; h++) {
      for (let w = 0; w < W; w++) {
        const k = (c * H + h) * W + w;
        const k2 = (h * W + w) * C + c;
        for (let m = 0; m < M; m++) to[transB ? m * K + k2 : k2 * M + m] = from[transB ? m * K + k : k * M + m];
      }
    }
  }
  const name = `${b.name}__nhwc`;
  tensors.set(name, { ...b, name, data: ndarray(b.data!.dtype, b.shape, to) });
  return { ...p, inputs: [p.inputs[0], name, ...p.inputs.slice(2)] };
}

function rewriteOne(g: Graph): Graph | undefined {
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  const sole = (t: string): Node | undefined => {
    if (g.outputs.includes(t)) return undefined;
    const list = consumers.get(t) ?? [];
    return list.length === 1 ? list[0] : undefined;
  };
  for (const start of g.nodes) {
    if (!permIs(start, TO_NCHW) || tensorOf(g, start.inputs[0]).shape.length !== 4) continue;
    // Walk the chain of single readers from the NCHW tensor.
    const chain: Node[] = [];
    let t = start.outputs[0];
    let end: Node | undefined;
    for (let n = sole(t); n; n = sole(t)) {
      if (permIs(n, TO_NHWC)) {
        end = n;
        break;
      }
      const channels = tensorOf(g, t).shape[1];
      const fits = n.op === 'Elementwise' && n.domain === 'firmgen'
        ? n.inputs.every((i) => i === t || nhwcLeaf(tensorOf(g, i), channels) !== undefined)
        : n.op === 'MaxPool' ? n.domain === '' && n.outputs.filter((o) => o).length === 1
          : n.op === 'Pad' && n.domain === '' && n.inputs.length === 1 && n.attrs.pads?.kind === 'ints' &&
            (n.attrs.mode === undefined || (n.attrs.mode.kind === 'string' && n.attrs.mode.value === 'constant'));
      if (!fits) break;
      chain.push(n);
      t = n.outputs[0];
    }
    // A chain may also end in a Flatten whose one reader is a product by constant weights (the classifier): the
    // Flatten then reads the NHWC tensor and the weights' rows are permuted to the NHWC order of its elements.
    const flatten = end ? undefined : flattenProduct(g, sole(t), sole);
    if (end ? chain.length === 0 : !flatten) continue;
    const tensors = new Map(g.tensors);
    const renamed = new Map<string, string>([[start.outputs[0], start.inputs[0]]]);
    const rewritten: Node[] = chain.map((n) => {
      const y = tensorOf(g, n.outputs[0]);
      const name = `${y.name}__nhwc`;
      tensors.set(name, { ...y, name, shape: nhwc(y.shape) });
      renamed.set(y.name, name);
      const inputs = n.inputs.map((i) => {
        const mapped = renamed.get(i);
        if (mapped) return mapped;
        const leaf = tensorOf(g, i);
        const shape = nhwcLeaf(leaf, tensorOf(g, n.inputs.find((x) => renamed.has(x))!).shape[1])!;
        if (shape === leaf.shape) return i;
        const leafName = `${i}__nhwc`;
        tensors.set(leafName, { ...leaf, name: leafName, shape, data: ndarray(leaf.data!.dtype, shape, leaf.data!.data) });
        return leafName;
      });
      if (n.op === 'MaxPool') return { ...n, op: 'GemminiMaxPoolNhwc', domain: 'firmgen', inputs, outputs: [name] };
      if (n.op === 'Pad') {
        // ONNX pads: begins then ends, per axis (n, c, h, w) -> (n, h, w, c).
        const q = n.attrs.pads?.kind === 'ints' ? n.attrs.pads.value : [];
        const pads = [q[0], q[2], q[3], q[1], q[4], q[6], q[7], q[5]];
        return { ...n, inputs, outputs: [name], attrs: { ...n.attrs, pads: { kind: 'ints', value: pads } } };
      }
      return { ...n, inputs, outputs: [name] };
    });
    // The chain's last NHWC tensor is what the closing Transpose's readers read (or the Flatten).
    const last = chain.length ? renamed.get(chain[chain.length - 1].outputs[0])! : start.inputs[0];
    const drop = new Set<Node>([start, ...chain, ...(end ? [end] : [])]);
    const nodes: Node[] = [];
    for (const n of g.nodes) {
      if (n === start) nodes.push(...rewritten);
      if (drop.has(n)) continue;
      if (flatten && n === flatten.flatten) nodes.push({ ...n, inputs: [last] });
      else if (flatten && n === flatten.product) nodes.push(nhwcProduct(n, g, tensors, tensorOf(g, flatten.flatten.inputs[0]).shape));
      else nodes.push(end && n.inputs.includes(end.outputs[0]) ? { ...n, inputs: n.inputs.map((i) => (i === end.outputs[0] ? last : i)) } : n);
    }
    // Tensors nobody names any more go.
    const named = new Set<string>([...g.inputs, ...g.outputs]);
    for (const n of nodes) for (const x of [...n.inputs, ...n.outputs]) named.add(x);
    return { ...g, nodes, tensors: new Map([...tensors].filter(([k]) => named.has(k))) };
  }
  return undefined;
}

