import type { DType } from '../../generator/ir/dtype.js';
import type { AttrValue, Graph, Node } from '../../generator/ir/graph.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import type { Rng } from '../helpers/random.js';

/*
 * Mutations of a real model: its bytes, its attributes and constants (degenerate and hostile values, wrong kinds,
 * wrong ranks), its wiring, and its names (control characters, comment terminators, path escapes, very long,
 * invalid UTF-8). Each returns the mutated model's bytes, or undefined when it does not apply.
 */

const INT64_MAX = 2 ** 63 - 1;
const HOSTILE_INTS = [0, -1, 1, 2, -(2 ** 31), 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), INT64_MAX, -INT64_MAX, 1e15, 255, 256, 3];
const HOSTILE_FLOATS = [NaN, Infinity, -Infinity, 0, -0, 0.5, -1.5, 1e30, -1e30, 3.4e38, 1e-40, 7];

/** Names a model may carry; none may reach generated code, paths or the terminal raw. */
export const HOSTILE_NAMES = [
  'a\nb', 'line\r\nbreak', '\u001b[31mred\u001b[0m', '\u0007bell', 'q"uote\'s', '*/ int pwned; /*', '// comment', '../../escape',
  '/abs/path', 'a'.repeat(5000), '', ' ', 'x y', '$(touch pwned)', '`id`', '%s%n%x', 'nul\u0000byte', '__proto__',
  'constructor', '名前', 'emoji😀', '\\backslash', '{{mustache}}', '<%= x %>', 'CON', '.', '..', 'a/b', '\u202eRTL',
  'NONUTF8MARKER',
];
/** Bytes written in place of 'NONUTF8MARKER' (the same length, so the protobuf framing stays valid). */
export const NON_UTF8 = [0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80, 0xc3];

const ATTR_NAMES = [
  'pads', 'strides', 'dilations', 'group', 'kernel_shape', 'axis', 'axes', 'perm', 'div', 'n_levels', 'signed', 'transA',
  'transB', 'alpha', 'beta', 'D', 'log2', 'coeffA', 'coeffB', 'coeffC', 'group_width', 'mul', 'one', 'b', 'Delta', 'eps',
  'eta', 'y', 'keepdims', 'ceil_mode', 'auto_pad', 'mode', 'value', 'allowzero', 'count_include_pad', 'n_levels_out',
];

function hostileAttr(rng: Rng, old: AttrValue | undefined): AttrValue {
  const k = rng.int(0, 7);
  const len = old && (old.kind === 'ints' || old.kind === 'floats') ? old.value.length : rng.int(0, 4);
  if (k === 0) return { kind: 'int', value: rng.pick(HOSTILE_INTS) };
  if (k === 1) return { kind: 'float', value: rng.pick(HOSTILE_FLOATS) };
  if (k === 2) return { kind: 'ints', value: Array.from({ length: rng.pick([len, len + 1, Math.max(0, len - 1), 0, 40]) }, () => rng.pick(HOSTILE_INTS)) };
  if (k === 3) return { kind: 'floats', value: Array.from({ length: len }, () => rng.pick(HOSTILE_FLOATS)) };
  if (k === 4) return { kind: 'string', value: rng.pick(['', 'SAME_UPPER', 'VALID', 'reflect', 'edge', 'x\ny']) };
  if (k === 5) return { kind: 'tensor', value: ndarray('float32', [rng.int(0, 2)], [rng.pick(HOSTILE_FLOATS), 1].slice(0, 1)) };
  if (k === 6 && old?.kind === 'ints') return { kind: 'ints', value: old.value.map((v) => (rng.next() < 0.5 ? -v : v * rng.pick([0, 2, 1000]))) };
  if (old?.kind === 'int' || old?.kind === 'float') return { kind: old.kind, value: old.value * rng.pick([-1, 0, 2, 1 << 20]) };
  return { kind: 'int', value: rng.pick(HOSTILE_INTS) };
}

function hostileData(rng: Rng, a: NDArray): NDArray {
  const k = rng.int(0, 5);
  const n = a.data.length;
  if (k === 0) return ndarray(a.dtype, a.shape, new Array(n).fill(rng.pick([0, -1, 1])));
  if (k === 1) return ndarray('int64', a.shape, Array.from({ length: n }, () => rng.pick(HOSTILE_INTS)));
  if (k === 2) return ndarray('float32', a.shape, Array.from({ length: n }, () => rng.pick(HOSTILE_FLOATS)));
  if (k === 3) return ndarray(a.dtype, [...a.shape, 1], a.data); // one more rank
  if (k === 4) return ndarray(a.dtype, [n], a.data); // flattened
  return ndarray(rng.pick<DType>(['int8', 'uint8', 'int16', 'int32', 'float64', 'bool']), a.shape, Array.from(a.data, (v) => (Number.isFinite(v) ? Math.trunc(v) % 2 : 0)));
}

function renameTensor(g: Graph, from: string, to: string): void {
  const t = g.tensors.get(from);
  if (!t) return;
  g.tensors.delete(from);
  g.tensors.set(to, { ...t, name: to });
  const swap = (n: string): string => (n === from ? to : n);
  g.inputs = g.inputs.map(swap);
  g.outputs = g.outputs.map(swap);
  for (const n of g.nodes) {
    n.inputs = n.inputs.map(swap);
    n.outputs = n.outputs.map(swap);
  }
}

function encode(g: Graph): Uint8Array | undefined {
  try {
    return encodeModel(g);
  } catch {
    return undefined; // a value protobuf cannot hold: not a model a file could carry
  }
}

/** A structural mutation: attribute, constant, input declaration or wiring. */
export function mutateStructure(rng: Rng, bytes: Uint8Array): { bytes?: Uint8Array; what: string } {
  const g = loadOnnxBytes(bytes, 'model.onnx');
  const node: Node | undefined = g.nodes.length > 0 ? rng.pick(g.nodes) : undefined;
  const consts = [...g.tensors.values()].filter((t) => t.data);
  const k = rng.int(0, 6);
  let what: string;
  if (k <= 1 && node) {
    const names = Object.keys(node.attrs);
    const name = names.length > 0 && rng.next() < 0.7 ? rng.pick(names) : rng.pick(ATTR_NAMES);
    const v = hostileAttr(rng, node.attrs[name]);
    node.attrs[name] = v;
    what = `attr ${node.op}.${name} = ${JSON.stringify(v.kind === 'tensor' ? 'tensor' : v.value)?.slice(0, 60)}`;
  } else if (k <= 3 && consts.length > 0) {
    const t = rng.pick(consts);
    const data = hostileData(rng, t.data!);
    g.tensors.set(t.name, { ...t, dtype: data.dtype, shape: data.shape, data });
    what = `const ${t.name} -> ${data.dtype}[${data.shape}]`;
  } else if (k === 4 && g.inputs.length > 0) {
    const name = rng.pick(g.inputs);
    const t = g.tensors.get(name)!;
    const shape = rng.pick([[], [0], t.shape.map(() => -1), [...t.shape, 1], t.shape.map((d, i) => (i === 0 ? 1e9 : d)), t.shape.slice(1)]);
    g.tensors.set(name, { ...t, shape, dtype: rng.pick<DType>([t.dtype, 'float64', 'int64', 'bool', 'uint8']) });
    what = `input ${name} declared ${JSON.stringify(shape)}`;
  } else if (k === 5 && node) {
    const m = rng.int(0, 3);
    if (m === 0) node.inputs = node.inputs.slice(0, -1);
    else if (m === 1) node.inputs = [...node.inputs, rng.pick([...g.tensors.keys()])];
    else if (m === 2) node.inputs = node.inputs.map((n, i) => (i === 0 ? 'no_such_tensor' : n));
    else node.inputs = node.inputs.map((n, i) => (i === 0 ? node.outputs[0] : n)); // reads its own output
    what = `wiring of ${node.op} (${m})`;
  } else {
    if (g.nodes.length > 1) g.nodes.reverse();
    else g.outputs = [...g.outputs, ...g.outputs];
    what = 'node order / duplicate output';
  }
  return { bytes: encode(g), what };
}

/** A hostile name for a tensor, a node or the graph. */
export function mutateNames(rng: Rng, bytes: Uint8Array): { bytes?: Uint8Array; what: string; name: string } {
  const g = loadOnnxBytes(bytes, 'model.onnx');
  const name = rng.pick(HOSTILE_NAMES);
  const k = rng.int(0, 3);
  let what: string;
  if (k === 0) {
    const t = rng.pick([...g.inputs, ...g.outputs]);
    renameTensor(g, t, name);
    what = 'graph input/output name';
  } else if (k === 1) {
    const inner = [...g.tensors.keys()];
    renameTensor(g, rng.pick(inner), name);
    what = 'tensor name';
  } else if (k === 2 && g.nodes.length > 0) {
    rng.pick(g.nodes).name = name;
    what = 'node name';
  } else {
    g.name = name;
    what = 'graph name';
  }
  let out = encode(g);
  if (out && name === 'NONUTF8MARKER') out = replaceBytes(out, new TextEncoder().encode(name), NON_UTF8);
  return { bytes: out, what: `${what} ${JSON.stringify(name).slice(0, 40)}`, name };
}

function replaceBytes(b: Uint8Array, from: Uint8Array, to: number[]): Uint8Array {
  const out = new Uint8Array(b);
  for (let i = 0; i + from.length <= out.length; i++) {
    if (from.every((v, j) => out[i + j] === v)) out.set(to, i);
  }
  return out;
}

/** Byte-level damage: flips, truncation, insertion, duplication of a run. */
export function mutateBytes(rng: Rng, bytes: Uint8Array): { bytes: Uint8Array; what: string } {
  const b = new Uint8Array(bytes);
  const k = rng.int(0, 4);
  if (k === 0) {
    const n = rng.int(1, 8);
    for (let i = 0; i < n; i++) b[rng.int(0, b.length - 1)] = rng.int(0, 255);
    return { bytes: b, what: `${n} random bytes` };
  }
  if (k === 1) {
    const at = rng.int(0, b.length - 1);
    return { bytes: b.slice(0, at), what: `truncated at ${at}` };
  }
  if (k === 2) {
    const at = rng.int(0, b.length - 1);
    const ins = Uint8Array.from({ length: rng.int(1, 16) }, () => rng.pick([0, 0xff, 0x80, 0x08, 0x12, rng.int(0, 255)]));
    return { bytes: Uint8Array.from([...b.slice(0, at), ...ins, ...b.slice(at)]), what: `${ins.length} bytes inserted at ${at}` };
  }
  if (k === 3) {
    // Varint bytes of lengths and dims: set a high bit pattern that declares a huge size.
    const at = rng.int(0, b.length - 6);
    b.set([0xff, 0xff, 0xff, 0xff, 0x0f], at);
    return { bytes: b, what: `huge varint at ${at}` };
  }
  const at = rng.int(0, b.length - 1);
  const len = Math.min(b.length - at, rng.int(1, 64));
  return { bytes: Uint8Array.from([...b.slice(0, at + len), ...b.slice(at, at + len), ...b.slice(at + len)]), what: `run of ${len} bytes doubled at ${at}` };
}
