import { GenError } from '../errors.js';
import { attrInt, attrNumber, hasAttr } from '../ir/attrs.js';
import { cloneGraph, consumersOf, producerOf, type AttrValue, type Graph, type Node } from '../ir/graph.js';
import { inferGraph } from '../ir/infer.js';
import { ndarray, sizeOf, type NDArray } from '../ir/ndarray.js';
import { foldConstants } from './fold.js';

/*
 * The float model's ONNX LSTM nodes unrolled into primitive ops the quantizer has integer forms for, one cell per
 * time step (ONNX LSTM, default activations f = Sigmoid, g = h = Tanh, gates in W/R/B in the order i, o, f, c):
 *
 *   x_t   = Reshape(Slice(X, t, axis 0), [B, I])
 *   gates = Add(Gemm(x_t, W, Wb + Rb, transB), Gemm(h_{t-1}, R, transB))        [B, 4H]   (no R term while h = 0)
 *   i, o, f, c = Slice(gates) at 0, H, 2H, 3H;  i, o, f = Sigmoid(.);  c = Tanh(.)
 *   C_t   = Add(Mul(f, C_{t-1}), Mul(i, c))                                                  (Mul(i, c) while C = 0)
 *   H_t   = Mul(o, Tanh(C_t))
 *   Y     = Concat(Reshape(H_t, [1, 1, B, H]) over t, axis 0);  Y_h, Y_c = Reshape(H_S, C_S, [1, B, H])
 *
 * The quantizer then reads each Gemm as a linear unit, the Add as an add unit, the Slices as data movement, Sigmoid
 * and Tanh as 256-entry tables and the products as Mul units (analyze.ts, transformer.ts): every time step gets its
 * own calibrated scales. Only the forward, unclipped cell of one direction with no peepholes and the sequence at
 * full length is taken; anything else is a one-line error naming the node. A zero initial state (absent, a constant
 * of zeros, or an Expand/ConstantOfShape of zeros, which is how torch exports an LSTM called without one) drops the
 * terms it would zero; the shape computations left without readers (and any other node nothing reads) are removed.
 */

const unsupported = (n: Node, why: string): GenError => new GenError('unsupported', why, { node: n.name, op: n.op });

export function hasLstm(g: Graph): boolean {
  return g.nodes.some((n) => n.op === 'LSTM' && n.domain === '');
}

/**
 * Refuses an LSTM that reads a graph input whose first axis, the sequence, is dynamic: the quantizer would fix it to 1
 * as it fixes a dynamic batch (call before that).
 */
export function refuseDynamicSequence(g: Graph): void {
  const n = g.nodes.find((m) => m.op === 'LSTM' && g.inputs.includes(m.inputs[0]) && (g.tensors.get(m.inputs[0])?.shape[0] ?? 0) < 0);
  if (n) throw unsupported(n, `LSTM input '${n.inputs[0]}' has a dynamic sequence length; export the model with a fixed one`);
}

/**
 * The float graph with every LSTM node unrolled, the graph itself when it has none. Constants are folded before (the
 * weights must be constants) and after (the unrolled cell's constant parts). Graph inputs need concrete shapes.
 */
export function unrollLstms(g: Graph): Graph {
  return hasLstm(g) ? foldConstants(expandLstm(foldConstants(g))) : g;
}

function expandLstm(g: Graph): Graph {
  let out = cloneGraph(g);
  for (;;) {
    const n = out.nodes.find((m) => m.op === 'LSTM' && m.domain === '');
    if (!n) break;
    const cell = unroll(out, n);
    const at = out.nodes.indexOf(n);
    out.nodes.splice(at, 1, ...cell);
  }
  out = removeUnread(out);
  return out;
}

/** Constant data of a tensor, or undefined. */
function constOf(g: Graph, t: string | undefined): NDArray | undefined {
  return t ? g.tensors.get(t)?.data : undefined;
}

/** Whether an initial state is zero by construction. */
function isZeroState(g: Graph, producers: Map<string, Node>, t: string | undefined): boolean {
  if (!t) return true;
  const c = constOf(g, t);
  if (c) return c.data.every((v) => v === 0);
  const p = producers.get(t);
  if (p?.op === 'Expand') return constOf(g, p.inputs[0])?.data.every((v) => v === 0) ?? false;
  if (p?.op === 'ConstantOfShape') {
    const v = p.attrs.value;
    return v === undefined || (v.kind === 'tensor' && v.value.data.every((x) => x === 0));
  }
  return false;
}

/** The shape of X: declared, or inferred on the nodes it depends on (which run before the LSTM). */
function shapeOfInput(g: Graph, producers: Map<string, Node>, n: Node, x: string): number[] {
  const declared = g.tensors.get(x)?.shape ?? [];
  if (declared.length === 3 && declared.every((d) => d >= 0)) return [...declared];
  const needed = new Set<Node>();
  const visit = (t: string): void => {
    const p = producers.get(t);
    if (!p || needed.has(p)) return;
    needed.add(p);
    for (const i of p.inputs) if (i) visit(i);
  };
  visit(x);
  const prefix = inferGraph({ ...g, nodes: g.nodes.filter((m) => needed.has(m)), outputs: [x] });
  const shape = prefix.tensors.get(x)?.shape ?? [];
  if (shape.length !== 3) throw unsupported(n, `LSTM input X has shape [${shape.join(', ')}]; it needs [seq_length, batch_size, input_size]`);
  return shape;
}

function checkAttributes(n: Node): void {
  const str = (name: string): string | undefined => (n.attrs[name]?.kind === 'string' ? (n.attrs[name].value as string) : undefined);
  const direction = str('direction') ?? 'forward';
  if (direction !== 'forward') throw unsupported(n, `LSTM direction '${direction}': only 'forward' is unrolled`);
  const acts = n.attrs.activations;
  if (acts && !(acts.kind === 'strings' && acts.value.join() === 'Sigmoid,Tanh,Tanh')) {
    throw unsupported(n, `LSTM activations ${acts.kind === 'strings' ? acts.value.join(', ') : '?'}: only the default Sigmoid, Tanh, Tanh are unrolled`);
  }
  for (const a of ['activation_alpha', 'activation_beta', 'clip']) if (hasAttr(n, a)) throw unsupported(n, `LSTM attribute '${a}' is not supported`);
  if (attrInt(n, 'input_forget', 0) !== 0) throw unsupported(n, 'LSTM input_forget (coupled input and forget gates) is not supported');
  if (attrInt(n, 'layout', 0) !== 0) throw unsupported(n, 'LSTM layout 1 (batch first) is not supported: X must be [seq_length, batch_size, input_size]');
}

/** The nodes of one unrolled LSTM, reading and writing the LSTM's own tensors. */
function unroll(g: Graph, n: Node): Node[] {
  checkAttributes(n);
  const producers = producerOf(g);
  const [x, wName, rName, bName, seqLens, h0, c0, pName] = [...n.inputs, '', '', '', '', ''];
  const w = constOf(g, wName);
  const r = constOf(g, rName);
  if (!w || !r) throw unsupported(n, 'LSTM weights W and R must be constants');
  if (w.shape.length !== 3 || w.shape[0] !== 1 || r.shape.length !== 3 || r.shape[0] !== 1) {
    throw unsupported(n, `LSTM W [${w.shape.join(', ')}] and R [${r.shape.join(', ')}] must have one direction`);
  }
  const hidden = r.shape[2];
  const inputSize = w.shape[2];
  if (w.shape[1] !== 4 * hidden || r.shape[1] !== 4 * hidden || attrNumber(n, 'hidden_size', hidden) !== hidden) {
    throw unsupported(n, `LSTM W [${w.shape.join(', ')}], R [${r.shape.join(', ')}] and hidden_size ${attrNumber(n, 'hidden_size', hidden)} disagree`);
  }
  const [steps, batch, xSize] = shapeOfInput(g, producers, n, x);
  if (xSize !== inputSize) throw unsupported(n, `LSTM X has ${xSize} features, W takes ${inputSize}`);
  const bias = new Float64Array(4 * hidden);
  if (bName) {
    const b = constOf(g, bName);
    if (!b || sizeOf(b.shape) !== 8 * hidden) throw unsupported(n, 'LSTM bias B must be a constant [1, 8 * hidden_size]');
    for (let k = 0; k < 4 * hidden; k++) bias[k] = Math.fround(b.data[k] + b.data[4 * hidden + k]);
  }
  if (seqLens) {
    const s = constOf(g, seqLens);
    if (!s || !s.data.every((v) => v === steps)) throw unsupported(n, `LSTM sequence_lens must be a constant equal to the sequence length ${steps} for every batch entry`);
  }
  if (pName && !(constOf(g, pName)?.data.every((v) => v === 0) ?? false)) throw unsupported(n, 'LSTM peepholes P are not supported');

  const cell = new CellWriter(g, n.name);
  const H = hidden;
  const wT = cell.constant('W', 'float32', [4 * H, inputSize], w.data);
  const rT = cell.constant('R', 'float32', [4 * H, H], r.data);
  const bT = cell.constant('B', 'float32', [4 * H], bias);
  const shapeBH = cell.constant('shape_bh', 'int64', [2], [batch, H]);
  const shapeBI = cell.constant('shape_bi', 'int64', [2], [batch, inputSize]);
  const axis = (k: number): string => cell.constant(`axis${k}`, 'int64', [1], [k]);
  const at = (v: number): string => cell.constant(`at${v}`, 'int64', [1], [v]);

  let h = isZeroState(g, producers, h0) ? undefined : cell.reshape(h0, shapeBH, [batch, H], 'h0');
  let c = isZeroState(g, producers, c0) ? undefined : cell.reshape(c0, shapeBH, [batch, H], 'c0');
  const [yName, yhName, ycName] = [n.outputs[0] ?? '', n.outputs[1] ?? '', n.outputs[2] ?? ''];
  const stepsOut: string[] = [];
  for (let t = 0; t < steps; t++) {
    const p = `t${t}_`;
    const xs = cell.node('Slice', `${p}x`, [x, at(t), at(t + 1), axis(0)], [1, batch, inputSize]);
    const xt = cell.reshape(xs, shapeBI, [batch, inputSize], `${p}x2`);
    const gx = cell.node('Gemm', `${p}gx`, [xt, wT, bT], [batch, 4 * H], { transB: { kind: 'int', value: 1 } });
    const gates = h === undefined ? gx
      : cell.node('Add', `${p}gates`, [gx, cell.node('Gemm', `${p}gh`, [h, rT], [batch, 4 * H], { transB: { kind: 'int', value: 1 } })], [batch, 4 * H]);
    const gate = (k: number, op: 'Sigmoid' | 'Tanh', name: string): string =>
      cell.node(op, `${p}${name}`, [cell.node('Slice', `${p}${name}_pre`, [gates, at(k * H), at((k + 1) * H), axis(1)], [batch, H])], [batch, H]);
    const i = gate(0, 'Sigmoid', 'i');
    const o = gate(1, 'Sigmoid', 'o');
    const f = gate(2, 'Sigmoid', 'f');
    const g2 = gate(3, 'Tanh', 'g');
    const ig = cell.node('Mul', `${p}ig`, [i, g2], [batch, H]);
    c = c === undefined ? ig : cell.node('Add', `${p}c`, [cell.node('Mul', `${p}fc`, [f, c], [batch, H]), ig], [batch, H]);
    h = cell.node('Mul', `${p}h`, [o, cell.node('Tanh', `${p}tanh_c`, [c], [batch, H])], [batch, H]);
    if (yName) stepsOut.push(cell.reshape(h, cell.constant('shape_y', 'int64', [4], [1, 1, batch, H]), [1, 1, batch, H], `${p}y`));
  }
  const shapeState = (): string => cell.constant('shape_state', 'int64', [3], [1, batch, H]);
  if (yName) cell.emit('Concat', cell.name('y'), stepsOut, yName, [steps, 1, batch, H], { axis: { kind: 'int', value: 0 } });
  if (yhName) cell.emit('Reshape', cell.name('y_h'), [h!, shapeState()], yhName, [1, batch, H]);
  if (ycName) cell.emit('Reshape', cell.name('y_c'), [c!, shapeState()], ycName, [1, batch, H]);
  return cell.nodes;
}

/** Writes one LSTM's nodes and tensors into the graph under names derived from the LSTM's, never clashing. */
class CellWriter {
  readonly nodes: Node[] = [];
  private readonly made = new Map<string, string>();
  private readonly names: Set<string>;

  constructor(private readonly g: Graph, private readonly prefix: string) {
    this.names = new Set(g.nodes.map((m) => m.name));
  }

  /** `prefix/base` (with a number when taken) among the graph's tensor and node names and this cell's nodes. */
  name(base: string): string {
    const taken = (name: string): boolean => this.g.tensors.has(name) || this.names.has(name);
    let name = `${this.prefix}/${base}`;
    for (let k = 1; taken(name); k++) name = `${this.prefix}/${base}_${k}`;
    this.names.add(name);
    return name;
  }

  /** A constant made once per LSTM under its key. */
  constant(key: string, dtype: 'float32' | 'int64', shape: number[], values: ArrayLike<number>): string {
    const known = this.made.get(key);
    if (known) return known;
    const name = this.name(key);
    this.g.tensors.set(name, { name, dtype, shape, data: ndarray(dtype, shape, values) });
    this.made.set(key, name);
    return name;
  }

  /** A node with one new float output; returns the output's name. */
  node(op: string, base: string, inputs: string[], shape: number[], attrs: Record<string, AttrValue> = {}): string {
    const name = this.name(base);
    return this.emit(op, name, inputs, this.name(`${base}_output_0`), shape, attrs);
  }

  /** A node named `name` writing tensor `out` (a new one, or one of the LSTM's outputs). */
  emit(op: string, name: string, inputs: string[], out: string, shape: number[], attrs: Record<string, AttrValue> = {}): string {
    this.g.tensors.set(out, { name: out, dtype: 'float32', shape });
    this.nodes.push({ name, op, domain: '', inputs, outputs: [out], attrs });
    return out;
  }

  reshape(x: string, shapeConst: string, shape: number[], base: string): string {
    return this.node('Reshape', base, [x, shapeConst], shape);
  }
}

/** Drops nodes none of whose outputs is read or a graph output (the zero states' shape computations). */
function removeUnread(g: Graph): Graph {
  for (;;) {
    const readers = consumersOf(g);
    const live = g.nodes.filter((m) => m.outputs.some((o) => o && (readers.has(o) || g.outputs.includes(o))));
    if (live.length === g.nodes.length) return g;
    g.nodes = live;
  }
}
