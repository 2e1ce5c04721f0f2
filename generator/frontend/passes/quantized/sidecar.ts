import { basename } from 'node:path';
import { quoted } from '../../../errors.js';
import type { Graph } from '../../../ir/graph.js';
import { encodeModel } from '../../../onnx/save.js';
import { lowerQuantized, isQuantizedModel, type QuantBoundary } from '../lower-quantized.js';

/*
 * How a user talks to firmware generated from a QDQ or QOperator model: it takes the quantized inputs and gives the
 * quantized outputs. Beside firmware.json, as `gen firmware --calibration` leaves its quantization there:
 *   - model.int8.quant.json gives each input and output its scale and zero point (the format of `gen quantize`'s
 *     sidecar, with zero points that may be non-zero):
 *       input:  q = clamp(round_half_even(x / scale) + zeroPoint, range)     (QuantizeLinear)
 *       output: x = (q - zeroPoint) * scale                                   (DequantizeLinear)
 *   - model.int8.onnx is the lowered integer graph (before the fusions), the specification the firmware matches
 *     exactly: the reference interpreter runs it, and `gen firmware` on it gives the same firmware outputs.
 */

export { SIDECAR_IN_FIRMWARE as SIDECAR_FILE } from '../../../quantize/sidecar-path.js';
import { SIDECAR_IN_FIRMWARE as SIDECAR_FILE } from '../../../quantize/sidecar-path.js';
export const INTEGER_MODEL_FILE = 'model.int8.onnx';

export interface Sidecar {
  /** File name -> content, for the output folder. */
  files: Map<string, string | Uint8Array>;
  /** One line per input and output, for the generator's notes. */
  notes: string[];
}

function entry(b: QuantBoundary): Record<string, unknown> {
  return { name: b.name, of: b.of, dtype: b.dtype, scale: b.scale, zeroPoint: b.zeroPoint, range: b.range };
}

export function quantSidecar(g: Graph, model: string): Sidecar | undefined {
  if (!isQuantizedModel(g)) return undefined;
  const q = lowerQuantized(g);
  const doc = { format: 'firmgen-quantization/1', model: basename(model), source: 'standard quantized ONNX (QDQ/QOperator)', inputs: q.inputs.map(entry), outputs: q.outputs.map(entry) };
  const notes = [
    ...q.inputs.filter((b) => b.name !== b.of).map((b) => `input ${quoted(b.of)}: the firmware takes q = clamp(round_half_even(x / ${b.scale}) + ${b.zeroPoint}, ${b.range[0]}, ${b.range[1]}) (${b.dtype}; ${SIDECAR_FILE})`),
    ...q.outputs.map((b) => `output ${quoted(b.of)}: real value = (q - ${b.zeroPoint}) * ${b.scale}`),
  ];
  const files = new Map<string, string | Uint8Array>([
    [SIDECAR_FILE, `${JSON.stringify(doc, null, 2)}\n`],
    [INTEGER_MODEL_FILE, encodeModel(q.graph, { opset: 13, producer: 'firmgen lower-quantized' })],
  ]);
  return { files, notes };
}
