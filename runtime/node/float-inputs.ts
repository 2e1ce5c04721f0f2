/**
 * Float inputs for an integer firmware: `gen run` quantizes them the way the model's quantization says (the sidecar
 * `model.int8.quant.json` that `gen firmware --calibration`, `gen quantize` and the QDQ lowering write), so a user can
 * feed images as they have them. Without a sidecar, float arrays must hold integers (the Deeploy vectors store their
 * integer inputs as floats); anything else is refused with what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenError, quoted } from '../../generator/errors.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { quantizeValue } from '../../generator/reference/ops/quantize.js';
import { SIDECAR_IN_FIRMWARE } from '../../generator/quantize/sidecar-path.js';
import type { Manifest } from './manifest.js';


export interface InputQuant {
  name: string;
  /** QDQ models: the float input this integer input quantizes. */
  of?: string;
  scale: number;
  zeroPoint: number;
  range: [number, number];
}

/** The sidecar's `inputs` (default) or `outputs` list. */
export function readSidecar(file: string, list: 'inputs' | 'outputs' = 'inputs'): InputQuant[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new GenError('input', `cannot read the quantization sidecar: ${(e as Error).message}`, { file });
  }
  const inputs = (doc as Record<string, unknown>)[list];
  if (!Array.isArray(inputs)) throw new GenError('input', `quantization sidecar without an "${list}" list`, { file });
  return inputs.map((x: Record<string, unknown>, i) => {
    const ok = typeof x?.name === 'string' && typeof x.scale === 'number' && x.scale > 0 && Number.isFinite(x.scale) &&
      Number.isInteger(x.zeroPoint ?? 0) && Array.isArray(x.range) && x.range.length === 2 && x.range.every(Number.isInteger);
    if (!ok) throw new GenError('input', `quantization sidecar: ${list}[${i}] needs name, scale > 0, zeroPoint and an integer range`, { file });
    return { name: x.name as string, of: typeof x.of === 'string' ? x.of : undefined, scale: x.scale as number,
      zeroPoint: (x.zeroPoint as number | undefined) ?? 0, range: x.range as [number, number] };
  });
}

const isFloat = (a: NDArray): boolean => a.dtype === 'float32' || a.dtype === 'float64';

/**
 * The arrays as the firmware takes them: float arrays for integer inputs quantized with the sidecar (given, or the
 * firmware folder's own), q = clamp(round_half_even(x / scale) + zero point) in float32 as ONNX QuantizeLinear.
 * Returns a note per quantized input.
 */
export function quantizeFloatInputs(dir: string, m: Manifest, arrays: NDArray[], given?: string): { arrays: NDArray[]; notes: string[] } {
  const own = join(dir, SIDECAR_IN_FIRMWARE);
  const file = given ?? (existsSync(own) ? own : undefined);
  const quant = file ? readSidecar(file) : undefined;
  const notes: string[] = [];
  const out = arrays.map((a, i) => {
    const name = m.inputs[i];
    const t = m.tensors.find((x) => x.name === name);
    if (!t || !isFloat(a) || t.dtype.startsWith('float')) return a;
    const q = quant?.find((x) => x.name === name || x.of === name);
    if (!q) {
      const k = Array.prototype.findIndex.call(a.data, (v: number) => !Number.isInteger(v));
      if (k < 0) return a; // integers stored as floats: taken as they are
      throw new GenError('input', `input ${quoted(name)} holds float values (element ${k}: ${a.data[k]}) and the firmware ` +
        `takes ${t.dtype}: quantize them, or give the model's quantization with --quant <model.quant.json>`);
    }
    const r = { min: q.range[0], max: q.range[1] };
    const scale = Math.fround(q.scale);
    notes.push(`input ${quoted(name)}: float values quantized to ${t.dtype} with scale ${q.scale}, zero point ${q.zeroPoint} (${file})`);
    return ndarray(t.dtype, a.shape, Array.from(a.data, (v) => quantizeValue(v, scale, q.zeroPoint, r)));
  });
  return { arrays: out, notes };
}
