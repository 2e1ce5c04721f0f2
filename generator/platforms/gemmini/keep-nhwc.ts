import { attrInt, attrInts } from '../../ir/attrs.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { ndarray, sizeOf } from '../../ir/ndarray.js';

/*
 * Between array layers the activations can stay NHWC (the array's layout). A region of NCHW tensors that comes only
 * from Transposes of NHWC tensors (NHWC -> NCHW) and goes only to Transposes back (NCHW -> NHWC) or to a classifier's
 * Flatten, through layout-free nodes (Elementwise nodes, residual Adds included, whose constants are one per channel
 * or scalar; 2-D MaxPools; constant Pads), is rewritten without its Transposes: each Elementwise runs on the NHWC
 * tensors (its per-channel constants become vectors along the last axis), each MaxPool becomes a
 * 'GemminiMaxPoolNhwc' (domain firmgen, maxpool-nhwc-kernel.ts) with the same window, each Pad pads the same axes in
 * their NHWC places, and a Flatten whose one reader is a product by constant weights reads the NHWC tensor, the
 * weights' K axis permuted to that order (nhwcProduct). Values do not change (the same operations on the same
 * elements, only the layout differs); the host core saves a pass over the tensor per Transpose. A region with any
 * other reader or producer (a host conv, a Reshape, a graph output) is kept as it is.
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
 * it feeds as A (directly or through elementwise nodes with scalar constants): the pair, or undefined.
 */
function flattenProduct(g: Graph, f: Node | undefined, sole: (t: string) => Node | undefined): { flatten: Node; product: Node } | undefined {
  if (!f || f.op !== 'Flatten' || f.domain !== '' || attrInt(f, 'axis', 1) !== 1) return undefined;
  if (tensorOf(g, f.inputs[0]).shape.length !== 4) return undefined;
  // through elementwise nodes with scalar constants only (the uint8 offset): position-free, they keep the order
  let t = f.outputs[0];
  let p = sole(t);
  while (p && p.op === 'Elementwise' && p.domain === 'firmgen' && p.inputs.every((i) => i === t || sizeOf(tensorOf(g, i).shape) === 1 && tensorOf(g, i).data)) {
    t = p.outputs[0];
    p = sole(t);
  }
  if (!p || p.domain !== '' || (p.op !== 'Gemm' && p.op !== 'MatMul') || p.inputs[0] !== t) return undefined;
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

/** A node that runs the same on NHWC as on NCHW (after the rewrite below): its NCHW activations and its output. */
function layoutFree(n: Node, g: Graph): boolean {
  if (n.op === 'Elementwise' && n.domain === 'firmgen') {
    const y = tensorOf(g, n.outputs[0]);
    if (y.shape.length !== 4) return false;
    // activations of the output's shape, constants one per channel or scalar
    return n.inputs.every((i) => {
      const t = tensorOf(g, i);
      return t.data ? nhwcLeaf(t, y.shape[1]) !== undefined : t.shape.join() === y.shape.join();
    });
  }
  if (n.op === 'MaxPool') return n.domain === '' && n.outputs.filter((o) => o).length === 1 && tensorOf(g, n.inputs[0]).shape.length === 4;
  return n.op === 'Pad' && n.domain === '' && n.inputs.length === 1 && n.attrs.pads?.kind === 'ints' &&
    (n.attrs.mode === undefined || (n.attrs.mode.kind === 'string' && n.attrs.mode.value === 'constant'));
}

interface Region {
  /** Transposes NHWC -> NCHW whose outputs enter the region. */
  entries: Set<Node>;
  nodes: Set<Node>;
  /** Transposes NCHW -> NHWC that read region tensors. */
  exits: Set<Node>;
  /** Flattens into products by constant weights that read region tensors. */
  flattens: Map<Node, Node>;
}

/**
 * The NCHW region around `start`'s output: the layout-free nodes connected to it through their activations (forward
 * to every reader, backward to every producer), or undefined when any of its tensors is read or produced by anything
 * else (a graph output, a host conv, a Reshape): every NCHW tensor of the region then comes from a Transpose of an
 * NHWC one and goes only to Transposes back or to a classifier's Flatten.
 */
function regionOf(g: Graph, start: Node, producers: Map<string, Node>, consumers: Map<string, Node[]>): Region | undefined {
  const r: Region = { entries: new Set([start]), nodes: new Set(), exits: new Set(), flattens: new Map() };
  const seen = new Set<string>();
  const work: string[] = [];
  const tensor = (t: string): boolean => {
    if (seen.has(t)) return true;
    if (g.outputs.includes(t)) return false;
    const p = producers.get(t);
    if (!p) return false;
    if (permIs(p, TO_NCHW) && tensorOf(g, p.inputs[0]).shape.length === 4) r.entries.add(p);
    else if (layoutFree(p, g)) {
      if (!r.nodes.has(p)) {
        r.nodes.add(p);
        seen.add(t);
        work.push(t);
        return p.inputs.every((i) => tensorOf(g, i).data !== undefined || tensor(i));
      }
    } else return false;
    seen.add(t);
    work.push(t);
    return true;
  };
  if (!tensor(start.outputs[0])) return undefined;
  while (work.length) {
    const t = work.pop()!;
    for (const c of consumers.get(t) ?? []) {
      if (permIs(c, TO_NHWC)) r.exits.add(c);
      else if (c.op === 'Flatten') {
        const fp = flattenProduct(g, c, (x) => ((consumers.get(x) ?? []).length === 1 && !g.outputs.includes(x) ? consumers.get(x)![0] : undefined));
        if (!fp) return undefined;
        r.flattens.set(c, fp.product);
      } else if (layoutFree(c, g)) {
        if (!r.nodes.has(c)) {
          r.nodes.add(c);
          if (!c.inputs.every((i) => tensorOf(g, i).data !== undefined || tensor(i))) return undefined;
          for (const o of c.outputs) if (!tensor(o)) return undefined;
        }
      } else return undefined;
    }
  }
  return r.nodes.size > 0 || r.flattens.size > 0 ? r : undefined;
}

function rewriteOne(g: Graph): Graph | undefined {
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  for (const start of g.nodes) {
    if (!permIs(start, TO_NCHW) || tensorOf(g, start.inputs[0]).shape.length !== 4) continue;
    const r = regionOf(g, start, producers, consumers);
    if (!r) continue;
    const tensors = new Map(g.tensors);
    const renamed = new Map<string, string>([...r.entries].map((e) => [e.outputs[0], e.inputs[0]]));
    // region nodes in graph order: each reads what an earlier one (or an entry's NHWC input) wrote
    const rewritten = new Map<Node, Node>();
    for (const n of g.nodes) {
      if (!r.nodes.has(n)) continue;
      const y = tensorOf(g, n.outputs[0]);
      const name = `${y.name}__nhwc`;
      tensors.set(name, { ...y, name, shape: nhwc(y.shape) });
      renamed.set(y.name, name);
      const inputs = n.inputs.map((i) => {
        const mapped = renamed.get(i);
        if (mapped) return mapped;
        const leaf = tensorOf(g, i);
        const shape = nhwcLeaf(leaf, y.shape[1])!;
        if (shape === leaf.shape) return i;
        const leafName = `${i}__nhwc`;
        tensors.set(leafName, { ...leaf, name: leafName, shape, data: ndarray(leaf.data!.dtype, shape, leaf.data!.data) });
        return leafName;
      });
      if (n.op === 'MaxPool') rewritten.set(n, { ...n, op: 'GemminiMaxPoolNhwc', domain: 'firmgen', inputs, outputs: [name] });
      else if (n.op === 'Pad') {
        // ONNX pads: begins then ends, per axis (n, c, h, w) -> (n, h, w, c).
        const q = n.attrs.pads?.kind === 'ints' ? n.attrs.pads.value : [];
        const pads = [q[0], q[2], q[3], q[1], q[4], q[6], q[7], q[5]];
        rewritten.set(n, { ...n, inputs, outputs: [name], attrs: { ...n.attrs, pads: { kind: 'ints', value: pads } } });
      } else rewritten.set(n, { ...n, inputs, outputs: [name] });
    }
    // an exit's readers read the NHWC tensor it transposed back
    const exitOf = new Map([...r.exits].map((x) => [x.outputs[0], renamed.get(x.inputs[0])!]));
    const nodes: Node[] = [];
    for (const n of g.nodes) {
      if (r.entries.has(n) || r.exits.has(n)) continue;
      const done = rewritten.get(n);
      if (done) nodes.push(done);
      else if (r.flattens.has(n)) nodes.push({ ...n, inputs: [renamed.get(n.inputs[0])!] });
      else if ([...r.flattens.values()].includes(n)) {
        const f = [...r.flattens].find(([, p]) => p === n)![0];
        nodes.push(nhwcProduct(n, g, tensors, tensorOf(g, f.inputs[0]).shape));
      } else nodes.push(n.inputs.some((i) => exitOf.has(i)) ? { ...n, inputs: n.inputs.map((i) => exitOf.get(i) ?? i) } : n);
    }
    // Tensors nobody names any more go.
    const named = new Set<string>([...g.inputs, ...g.outputs]);
    for (const n of nodes) for (const x of [...n.inputs, ...n.outputs]) named.add(x);
    return { ...g, nodes, tensors: new Map([...tensors].filter(([k]) => named.has(k))) };
  }
  return undefined;
}
