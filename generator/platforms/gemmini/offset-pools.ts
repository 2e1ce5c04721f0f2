import { referencedTensors } from '../../frontend/edit.js';
import { remap } from '../../frontend/passes/fuse-elementwise.js';
import { consumersOf, producerOf, tensorOf, type Expr, type Graph, type Node } from '../../ir/graph.js';
import { poolOnArrayRefusal } from './maxpool-nhwc-kernel.js';

/*
 * The store unit pools int8 values (maxpool-nhwc-kernel.ts), and a uint8 activation (a ReLU's output, as onnxruntime's
 * quantizer gives it) enters the array offset by 128 anyway (lower-array.ts). A maximum commutes with the offset:
 * max(x) - 128 = max(x - 128). So a uint8 pool whose input comes from an Elementwise node (its requantization, on the
 * host core) read by the pool alone, and whose readers are all Elementwise nodes, is rewritten to pool the offset
 * values: the producer writes x - 128 (int8, at no extra pass), each reader reads the pooled value + 128, which cancels
 * the array's offset where the reader is that offset (the reader then goes: the conv reads the pool directly). Every
 * value the graph computes is unchanged. Only where the offset pool then runs on the store unit (a window reaching the
 * padding needs values >= 0, which the offset ones are not): elsewhere nothing would be gained. Nodes and tensors keep
 * their names; the pool's note says it.
 */

const OFFSET = 128;

const plus = (a: Expr, v: number): Expr => ({ k: 'add', a, b: { k: 'const', v } });

/** The value of a constant operand: a literal, or a leaf that is a one-element constant tensor (lower-array's offset). */
function constant(g: Graph, r: Node, e: Expr): number | undefined {
  if (e.k === 'const') return e.v;
  if (e.k !== 'in') return undefined;
  const t = tensorOf(g, r.inputs[e.i]);
  return t.data && t.data.data.length === 1 ? Number(t.data.data[0]) : undefined;
}

/** Whether reader r's expression, with leaf i read as (y + 128), is y itself: (y + 128) - 128. */
function cancels(g: Graph, r: Node, e: Expr, y: string): boolean {
  return e.k === 'sub' && constant(g, r, e.b) === OFFSET && e.a.k === 'in' && r.inputs[e.a.i] === y;
}

export function offsetPools(g: Graph): Graph {
  let out = g;
  for (const pool of g.nodes) {
    if (pool.op !== 'GemminiMaxPoolNhwc') continue;
    out = offsetOne(out, pool.name) ?? out;
  }
  return out;
}

function offsetOne(g: Graph, name: string): Graph | undefined {
  const pool = g.nodes.find((n) => n.name === name)!;
  const [x, y] = [tensorOf(g, pool.inputs[0]), tensorOf(g, pool.outputs[0])];
  if (x.dtype !== 'uint8' || y.dtype !== 'uint8' || g.outputs.includes(x.name) || g.outputs.includes(y.name)) return undefined;
  const producer = producerOf(g).get(x.name);
  const consumers = consumersOf(g);
  const readers = consumers.get(y.name) ?? [];
  if (!producer || producer.op !== 'Elementwise' || !producer.expr || producer.outputs.length !== 1) return undefined;
  if ((consumers.get(x.name) ?? []).length !== 1 || readers.length === 0) return undefined;
  if (!readers.every((r) => r.op === 'Elementwise' && r.expr && r.outputs.length === 1)) return undefined;

  const shift = (t: typeof x) => ({ ...t, dtype: 'int8' as const, range: t.range && { min: t.range.min - OFFSET, max: t.range.max - OFFSET } });
  const tensors = new Map(g.tensors);
  tensors.set(x.name, shift(x));
  tensors.set(y.name, shift(y));
  const replaced = new Map<Node, Node | undefined>();
  replaced.set(producer, { ...producer, expr: { k: 'sub', a: producer.expr, b: { k: 'const', v: OFFSET } } });
  replaced.set(pool, { ...pool, engineNote: `${pool.engineNote ? `${pool.engineNote}; ` : ''}pools the uint8 input offset by 128 (int8), readers add it back` });
  // A reader that is only the array's offset (y - 128) becomes the pooled tensor itself: its readers read y.
  const renamed = new Map<string, string>();
  for (const r of readers) {
    const o = tensorOf(g, r.outputs[0]);
    if (cancels(g, r, r.expr!, y.name) && o.dtype === 'int8' && !g.outputs.includes(o.name)) {
      renamed.set(o.name, y.name);
      replaced.set(r, undefined);
    } else replaced.set(r, { ...r, expr: remap(r.expr!, (i) => (r.inputs[i] === y.name ? plus({ k: 'in', i }, OFFSET) : { k: 'in', i })) });
  }
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    const next = replaced.has(n) ? replaced.get(n) : n;
    if (!next) continue;
    nodes.push(next.inputs.some((i) => renamed.has(i)) ? { ...next, inputs: next.inputs.map((i) => renamed.get(i) ?? i) } : next);
  }
  const next = { ...g, nodes, tensors };
  return poolOnArrayRefusal(replaced.get(pool)!, next) === null ? { ...next, tensors: referencedTensors(next, nodes) } : undefined;
}
