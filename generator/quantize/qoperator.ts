import type { Graph, Node, Tensor } from '../ir/graph.js';

/*
 * The quantizer's QDQ model (qdq.ts) rewritten in the QOperator format onnxruntime's tools also write: each
 *   DequantizeLinear(x), DequantizeLinear(w) [, DequantizeLinear(int32 bias)] -> Conv | Gemm | MatMul [-> Relu] -> QuantizeLinear
 * becomes QLinearConv / QGemm (com.microsoft) / QLinearMatMul reading the integer x and w and writing the integer
 * output, and DequantizeLinear(a), DequantizeLinear(b) -> Add [-> Relu] -> QuantizeLinear becomes QLinearAdd
 * (com.microsoft). The same numbers: the bias is the int32 the QDQ model stores at scale s_x * s_w (the QLinear ops'
 * bias scale), and a Relu before a QuantizeLinear with zero point 0 into uint8 is that type's clip (the quantizer's
 * outputs after ReLU are uint8 with zero point 0). What matches no pattern stays in QDQ form (a MatMul with its
 * bias Add, pooling, Concat, a layer whose input and output types differ, which onnxruntime's CPU kernels refuse:
 * onnxruntime runs mixed models), and DequantizeLinear nodes no longer read are dropped.
 */

const MS = 'com.microsoft';

export function qoperatorFromQdq(qdq: Graph): Graph {
  const g = integerMovement(qdq);
  const producer = new Map<string, Node>();
  const readers = new Map<string, Node[]>();
  for (const n of g.nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);
  }
  const isConst = (t: string | undefined): boolean => t !== undefined && g.tensors.get(t)?.data !== undefined;
  const dq = (t: string | undefined, constant: boolean): Node | undefined => {
    const p = t ? producer.get(t) : undefined;
    return p?.op === 'DequantizeLinear' && isConst(p.inputs[0]) === constant ? p : undefined;
  };
  const sole = (t: string): Node | undefined => {
    const r = readers.get(t) ?? [];
    return r.length === 1 && !g.outputs.includes(t) ? r[0] : undefined;
  };
  const zeroOf = (q: Node): number => (q.inputs[2] ? g.tensors.get(q.inputs[2])?.data?.data[0] ?? 0 : 0);
  const typeOf = (q: Node): string => (q.inputs[2] ? g.tensors.get(q.inputs[2])!.dtype : 'uint8');
  /** The QuantizeLinear ending t, through a Relu it makes redundant; undefined when there is none. */
  const endOf = (t: string): { q: Node; drop: Node[] } | undefined => {
    const next = sole(t);
    if (next?.op === 'QuantizeLinear') return { q: next, drop: [next] };
    if (next?.op !== 'Relu') return undefined;
    const q = sole(next.outputs[0]);
    if (q?.op !== 'QuantizeLinear' || zeroOf(q) !== 0 || typeOf(q) !== 'uint8') return undefined;
    return { q, drop: [next, q] };
  };
  const operands = (d: Node): string[] => [d.inputs[0], d.inputs[1], d.inputs[2]];
  // onnxruntime-node's CPU kernels bind the integer input(s) and the output to one type ("no implementation" for a
  // uint8 -> int8 QLinearConv or QGemm, a type error for a QLinearAdd of uint8 and int8): such layers stay QDQ.
  const sameType = (ins: Node[], q: Node): boolean => ins.every((d) => g.tensors.get(d.inputs[0])?.dtype === typeOf(q));

  const replaced = new Map<Node, Node | null>();
  for (const n of g.nodes) {
    if (replaced.has(n)) continue;
    let op: { op: string; domain: string; inputs: string[] } | undefined;
    if (n.op === 'Conv' || n.op === 'Gemm' || n.op === 'MatMul') {
      const x = dq(n.inputs[0], false);
      const w = dq(n.inputs[1], true);
      const b = n.inputs[2] ? dq(n.inputs[2], true) : undefined;
      if (!x || !w || (n.inputs[2] && !b) || w.inputs.length < 3 || x.inputs.length < 3) continue;
      if (n.op === 'MatMul' && n.inputs[2]) continue;
      const end = endOf(n.outputs[0]);
      if (!end || !sameType([x], end.q)) continue;
      const y = [end.q.inputs[1], end.q.inputs[2]];
      const bias = b ? [b.inputs[0]] : [];
      if (n.op === 'Conv') op = { op: 'QLinearConv', domain: '', inputs: [...operands(x), ...operands(w), ...y, ...bias] };
      else if (n.op === 'MatMul') op = { op: 'QLinearMatMul', domain: '', inputs: [...operands(x), ...operands(w), ...y] };
      else op = { op: 'QGemm', domain: MS, inputs: [...operands(x), ...operands(w), bias[0] ?? '', ...y] };
      const out = end.q.outputs[0];
      replaced.set(n, { name: n.name, op: op.op, domain: op.domain, inputs: op.inputs, outputs: [out], attrs: { ...n.attrs } });
      for (const m of end.drop) replaced.set(m, null);
    } else if (n.op === 'Add') {
      const [a, c] = [dq(n.inputs[0], false), dq(n.inputs[1], false)];
      const end = endOf(n.outputs[0]);
      if (!a || !c || !end || a.inputs.length < 3 || c.inputs.length < 3 || !sameType([a, c], end.q)) continue;
      replaced.set(n, { name: n.name, op: 'QLinearAdd', domain: MS, inputs: [...operands(a), ...operands(c), end.q.inputs[1], end.q.inputs[2]], outputs: [end.q.outputs[0]], attrs: {} });
      for (const m of end.drop) replaced.set(m, null);
    }
  }

  let nodes = g.nodes.flatMap((n) => {
    const r = replaced.get(n);
    return r === null ? [] : [r ?? n];
  });
  // DequantizeLinear nodes nobody reads any more (weights, biases, activations now read as integers).
  for (let changed = true; changed;) {
    const read = new Set(nodes.flatMap((n) => n.inputs).concat(g.outputs));
    const kept = nodes.filter((n) => n.op !== 'DequantizeLinear' || n.outputs.some((o) => read.has(o)));
    changed = kept.length !== nodes.length;
    nodes = kept;
  }
  const used = new Set([...nodes.flatMap((n) => [...n.inputs, ...n.outputs]), ...g.inputs, ...g.outputs]);
  const tensors = new Map<string, Tensor>([...g.tensors].filter(([name]) => used.has(name)));
  return { ...g, name: g.name.replace(/_qdq$/, '_qop'), nodes, tensors };
}

const MOVES = new Set(['MaxPool', 'Flatten', 'Reshape', 'Transpose', 'Squeeze', 'Unsqueeze']);

/**
 * MaxPool and data movement on a dequantized activation (the QDQ model keeps them float: they stay on the grid)
 * moved onto the integer tensor, with a DequantizeLinear after them: max and copies commute with the monotone
 * dequantization, so the values are the same, and the layer that follows reads a DequantizeLinear it can fuse.
 */
function integerMovement(g: Graph): Graph {
  const producer = new Map<string, Node>();
  for (const n of g.nodes) for (const o of n.outputs) producer.set(o, n);
  const tensors = new Map(g.tensors);
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    const d = producer.get(n.inputs[0]);
    if (!MOVES.has(n.op) || d?.op !== 'DequantizeLinear' || tensors.get(d.inputs[0])?.data || d.inputs.length < 3 || n.outputs.length !== 1) {
      nodes.push(n);
      continue;
    }
    const out = n.outputs[0];
    const q = `${out}_q`;
    tensors.set(q, { name: q, dtype: tensors.get(d.inputs[0])!.dtype, shape: [...(tensors.get(out)?.shape ?? [])] });
    const moved: Node = { ...n, inputs: [d.inputs[0], ...n.inputs.slice(1)], outputs: [q] };
    const back: Node = { name: `${n.name}_dequantize`, op: 'DequantizeLinear', domain: '', inputs: [q, d.inputs[1], d.inputs[2]], outputs: [out], attrs: {} };
    nodes.push(moved, back);
    producer.set(out, back);
  }
  return { ...g, nodes, tensors };
}
