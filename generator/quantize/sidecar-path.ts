/**
 * Where a model's quantization sidecar lives (its own module: the CLI and the runtime need the names without loading
 * the quantizer). Beside an integer model: model.onnx -> model.quant.json; in a firmware folder: model.int8.quant.json.
 */
export function sidecarPath(model: string): string {
  return `${model.replace(/\.onnx$/i, '')}.quant.json`;
}

export const SIDECAR_IN_FIRMWARE = 'model.int8.quant.json';
