import { GenError } from '../errors.js';
import { isQuantizedModel } from '../frontend/passes/lower-quantized.js';
import type { Graph } from '../ir/graph.js';

/** What a user with a float model is told to do (select.ts, and the unknown-op errors of a float model). */
export const QUANTIZE_FIRST = 'firmgen runs integer models: quantize it first, e.g. gen firmware --calibration <inputs.npz> ..., or gen quantize';

/**
 * A float model as exporters write it: float weights with fractional values and no standard quantized ops. (The
 * integer dialect declares its tensors FLOAT too, but its constants hold integers.)
 */
export function isFloatModel(g: Graph): boolean {
  if (isQuantizedModel(g)) return false;
  for (const t of g.tensors.values()) {
    const d = t.data;
    if (d && (d.dtype === 'float32' || d.dtype === 'float64') && Array.from(d.data as ArrayLike<number>).some((v) => !Number.isInteger(v))) return true;
  }
  return false;
}

/**
 * An unsupported-op error of a float model names the way out: the op is often one only the quantizer takes apart
 * (an LSTM, the shape arithmetic torch exports around it).
 */
export function withQuantizeHint(g: Graph, e: unknown): unknown {
  if (!(e instanceof GenError) || e.kind !== 'unsupported' || !isFloatModel(g)) return e;
  return new GenError(e.kind, `${e.reason}; the model computes in floating point: ${QUANTIZE_FIRST}`, e.site);
}
