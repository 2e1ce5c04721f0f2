import { basename } from 'node:path';
import { quoted } from '../../../errors.js';
import type { Graph } from '../../../ir/graph.js';
import { quantizedBoundary, type QuantBoundary } from '../lower-quantized.js';

/*
 * How a user talks to firmware generated from a QDQ or QOperator model: it takes the quantized inputs and gives the
 * quantized outputs. model.quant.json, beside firmware.json, gives each the scale and zero point (the format of
 * `gen quantize`'s sidecar, with zero points that may be non-zero):
 *   input:  q = clamp(round_half_even(x / scale) + zeroPoint, range)     (QuantizeLinear)
 *   output: x = (q - zeroPoint) * scale                                   (DequantizeLinear)
 */

export const SIDECAR_FILE = 'model.quant.json';

export interface Sidecar {
  file: string;
  text: string;
  /** One line per input and output, for the generator's notes. */
  notes: string[];
}

function entry(b: QuantBoundary): Record<string, unknown> {
  return { name: b.name, of: b.of, dtype: b.dtype, scale: b.scale, zeroPoint: b.zeroPoint, range: b.range };
}

export function quantSidecar(g: Graph, model: string): Sidecar | undefined {
  const q = quantizedBoundary(g);
  if (!q) return undefined;
  const doc = { format: 'firmgen-quantization/1', model: basename(model), source: 'standard quantized ONNX (QDQ/QOperator)', inputs: q.inputs.map(entry), outputs: q.outputs.map(entry) };
  const notes = [
    ...q.inputs.filter((b) => b.name !== b.of).map((b) => `input ${quoted(b.of)}: the firmware takes q = clamp(round_half_even(x / ${b.scale}) + ${b.zeroPoint}, ${b.range[0]}, ${b.range[1]}) (${b.dtype}; ${SIDECAR_FILE})`),
    ...q.outputs.map((b) => `output ${quoted(b.of)}: real value = (q - ${b.zeroPoint}) * ${b.scale}`),
  ];
  return { file: SIDECAR_FILE, text: `${JSON.stringify(doc, null, 2)}\n`, notes };
}
