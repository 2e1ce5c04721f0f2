import { GenError } from '../errors.js';
import { isFloatType, INT32_RANGE, type TensorInfo } from '../reference/op-spec.js';
import { opSpec } from '../reference/registry.js';
import { constantIsFloat, floatTensors, isIntegral, normalizeArray } from '../reference/value-kind.js';
import { isIntType, narrowestType, rangeOf, rangeOfValues, type DType, type IntRange } from './dtype.js';
import { cloneGraph, type Graph, type Node, type Tensor } from './graph.js';
import { sizeOf, type NDArray } from './ndarray.js';

/*
 * Shape and type inference. Shapes come from the ops' shape functions (ONNX value_info may be missing or partial);
 * integer tensors get a value range and, from it, their device type (the narrowest of int8/uint8/int16/int32).
 * Device arithmetic is int32, so computed ranges are capped there.
 */

const INT8: IntRange = { min: -128, max: 127 };
/** Constant subgraphs (shape computations) are folded when their results are this small. */
const FOLD_LIMIT = 1 << 16;

function cap(r: IntRange): IntRange {
  if (!(r.min <= r.max)) return INT32_RANGE; // NaN from a degenerate interval: nothing is known
  const min = Math.max(Math.floor(r.min), INT32_RANGE.min);
  const max = Math.min(Math.ceil(r.max), INT32_RANGE.max);
  return min <= max ? { min, max } : { min: max, max: max };
}

function intersect(r: IntRange, t: IntRange): IntRange {
  const min = Math.max(r.min, t.min);
  const max = Math.min(r.max, t.max);
  return min <= max ? { min, max } : t;
}

function constantInfo(t: Tensor, data: NDArray): TensorInfo {
  if (constantIsFloat(data)) return { shape: [...data.shape], dtype: 'float32', data: normalizeArray(data, true) };
  const range = rangeOfValues(data.data);
  // Constants hold exact values: they are not capped (a Slice end of INT64_MAX stays int64).
  return { shape: [...data.shape], dtype: narrowestType(range), range, data: normalizeArray(data, false) };
}

/**
 * A copy of the graph with every tensor's shape, dtype and (for integers) range filled in. Integer graph inputs
 * take their range from `inputRanges`, else from an integer type declared in the file, else int8.
 */
export function inferGraph(g: Graph, inputRanges?: Map<string, IntRange>): Graph {
  const out = cloneGraph(g);
  const infos = new Map<string, TensorInfo>();
  const floats = floatTensors(g);
  const set = (t: Tensor, info: TensorInfo): void => {
    t.shape = [...info.shape];
    t.dtype = info.dtype;
    if (info.range) t.range = info.range;
    else delete t.range;
    infos.set(t.name, info);
  };

  for (const t of out.tensors.values()) if (t.data) set(t, constantInfo(t, t.data));
  for (const name of out.inputs) {
    const t = out.tensors.get(name);
    if (!t) throw new GenError('model', `graph input '${name}' is not declared`, { file: g.source });
    if (t.shape.some((d) => d < 0)) {
      throw new GenError('unsupported', 'graph input has a dynamic dimension; the generator needs concrete shapes', { tensor: name, file: g.source });
    }
    if (floats.has(name)) {
      set(t, { shape: t.shape, dtype: 'float32' });
      continue;
    }
    const declared = t.dtype;
    const range = inputRanges?.get(name) ?? (isIntType(declared) ? cap(rangeOf(declared)) : INT8);
    set(t, { shape: t.shape, dtype: narrowestType(cap(range)), range: cap(range) });
  }

  for (const node of out.nodes) {
    const inputs = node.inputs.map((n) => {
      if (!n) return undefined;
      const info = infos.get(n);
      if (!info) throw new GenError('internal', `tensor '${n}' is used before it is inferred`, { node: node.name, op: node.op });
      return info;
    });
    const results = inferNode(node, inputs);
    node.outputs.forEach((o, i) => {
      const t = o ? out.tensors.get(o) : undefined;
      if (t && results[i]) set(t, results[i]);
    });
  }
  return out;
}

function inferNode(node: Node, inputs: (TensorInfo | undefined)[]): TensorInfo[] {
  const spec = opSpec(node.op);
  if (!spec) {
    throw new GenError('unsupported', `op ${node.domain ? `${node.domain}.` : ''}${node.op} is not supported`, { node: node.name, op: node.op });
  }
  try {
    const shapes = spec.shape(node, inputs);
    const anyFloat = inputs.some((i) => i && isFloatType(i.dtype));
    const dtypes: (DType | undefined)[] = spec.dtype?.(node, inputs) ?? shapes.map(() => (anyFloat ? 'float32' : undefined));
    const ranges = spec.range?.(node, inputs);
    const data = fold(node, inputs, shapes);
    return shapes.map((shape, i) => {
      const dt = dtypes[i];
      const values = data?.[i];
      if (dt && isFloatType(dt)) return { shape, dtype: 'float32', data: values };
      let range = values && isIntegral(values.data) ? rangeOfValues(values.data) : ranges?.[i] ?? INT32_RANGE;
      if (dt && isIntType(dt)) return { shape, dtype: dt, range: intersect(cap(range), rangeOf(dt)), data: values };
      range = cap(range);
      return { shape, dtype: narrowestType(range), range, data: values };
    });
  } catch (e) {
    if (e instanceof GenError) throw e;
    throw new GenError('model', (e as Error).message, { node: node.name, op: node.op });
  }
}

/** Evaluates a node whose operands are all constants (shape arithmetic), so later shape functions see values. */
function fold(node: Node, inputs: (TensorInfo | undefined)[], shapes: number[][]): NDArray[] | undefined {
  if (inputs.length === 0 || inputs.some((i) => i !== undefined && !i.data)) return undefined;
  if (shapes.some((s) => sizeOf(s) > FOLD_LIMIT)) return undefined;
  try {
    return opSpec(node.op)?.evaluate(node, inputs.map((i) => i?.data));
  } catch {
    return undefined; // folding is an optimisation: a node that cannot run on its constants keeps its range
  }
}

/** The value ranges of sample inputs, matched to graph.inputs in order (non-integer samples give none). */
export function inputRangesFromArrays(g: Graph, arrays: NDArray[]): Map<string, IntRange> {
  const ranges = new Map<string, IntRange>();
  g.inputs.forEach((name, i) => {
    const a = arrays[i];
    if (a && isIntegral(a.data)) ranges.set(name, rangeOfValues(a.data));
  });
  return ranges;
}
