import type { DType } from '../ir/dtype.js';
import { consumersOf, type Graph } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { isFloatType, type TensorInfo } from './op-spec.js';
import { opSpec } from './registry.js';

/*
 * Which tensors hold float values and which hold integers. Files of the Deeploy dialect declare every tensor FLOAT
 * while holding integers, and QDQ files declare real floats the same way, so the declared type cannot decide.
 * The rule, shared by the interpreter and inference so that both agree:
 *   - a constant is float when it is declared float and holds a non-integer value;
 *   - a graph input declared float is float when the graph reads it as one: it feeds a float operand
 *     (QuantizeLinear's x, a pool that averages) or meets a float tensor in a generic op (Conv with float
 *     weights, Mul by a float scale);
 *   - an op's output is float when its spec says so (DequantizeLinear) or, for generic ops, when an input is.
 * Everything else holds integers, computed exactly.
 */

/** Operand positions that are float by definition. */
const FLOAT_OPERANDS: Record<string, number[]> = {
  QuantizeLinear: [0],
  DynamicQuantizeLinear: [0],
  AveragePool: [0],
  GlobalAveragePool: [0],
};

export function isIntegral(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isInteger(values[i])) return false;
  return true;
}

export function constantIsFloat(a: NDArray): boolean {
  return isFloatType(a.dtype) && !isIntegral(a.data);
}

/**
 * The array as the reference computes with it: float values rounded to float32; integer values declared float
 * retyped int64 ("exact integer"); integer arrays unchanged (a zero point keeps its declared type).
 */
export function normalizeArray(a: NDArray, float: boolean): NDArray {
  if (float) return { dtype: 'float32', shape: a.shape, data: a.dtype === 'float32' ? a.data : a.data.map(Math.fround) };
  if (isFloatType(a.dtype)) return { dtype: 'int64', shape: a.shape, data: a.data };
  return a;
}

function outputsFloat(g: Graph, floats: Set<string>): Set<string> {
  const f = new Set(floats);
  for (const t of g.tensors.values()) if (t.data && constantIsFloat(t.data)) f.add(t.name);
  for (const node of g.nodes) {
    const spec = opSpec(node.op);
    if (!spec) continue; // unknown ops fail later with a clear error; their outputs count as integers here
    const infos = node.inputs.map((n): TensorInfo | undefined => {
      if (!n) return undefined;
      const dtype: DType = f.has(n) ? 'float32' : 'int64';
      return { shape: [], dtype, data: g.tensors.get(n)?.data };
    });
    let fixed: (DType | undefined)[] | undefined;
    try {
      fixed = spec.dtype?.(node, infos);
    } catch {
      fixed = undefined;
    }
    const anyFloat = node.inputs.some((n) => n && f.has(n));
    node.outputs.forEach((o, i) => {
      const dt = fixed ? fixed[i] : undefined;
      if (dt ? isFloatType(dt) : !spec.dtype && anyFloat) f.add(o);
    });
  }
  return f;
}

/** Names of all float tensors of the graph (see the rule above). */
export function floatTensors(g: Graph): Set<string> {
  const consumers = consumersOf(g);
  const candidates = g.inputs.filter((n) => isFloatType(g.tensors.get(n)?.dtype ?? 'float32'));
  const floatInputs = new Set<string>();
  // Each round can only add inputs, so this ends after at most one round per candidate.
  for (;;) {
    const f = outputsFloat(g, floatInputs);
    let changed = false;
    for (const name of candidates) {
      if (floatInputs.has(name)) continue;
      const readsFloat = (consumers.get(name) ?? []).some((node) => {
        const spec = opSpec(node.op);
        return node.inputs.some((n, p) => n === name && (FLOAT_OPERANDS[node.op]?.includes(p)
          || (spec !== undefined && !spec.dtype && node.inputs.some((m, q) => q !== p && m && f.has(m)))));
      });
      if (readsFloat) {
        floatInputs.add(name);
        changed = true;
      }
    }
    if (!changed) return f;
  }
}
