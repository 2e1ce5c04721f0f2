import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { quantizeFile } from '../../generator/quantize/files.js';
import { repoRoot } from './paths.js';

/** examples/tiny-llama: the small language model's exported graphs, calibration data and torch reference. */
export const TINY_LLAMA = join(repoRoot, 'examples', 'tiny-llama');

/** The held-out prompt of reference.json (token ids). */
export function heldOutPromptIds(): number[] {
  return JSON.parse(readFileSync(join(TINY_LLAMA, 'reference.json'), 'utf8')).prompt_ids;
}

/**
 * The prompt pass as firmgen runs it: prompt.onnx quantized by `gen quantize` on its calibration windows into
 * `dir`/network.onnx, and the held-out prompt as its one input (int32 ids [1, P]).
 */
export function quantizedPromptPass(dir: string): { model: string; inputs: NDArray[] } {
  const model = join(dir, 'network.onnx');
  quantizeFile({ model: join(TINY_LLAMA, 'prompt.onnx'), calibration: join(TINY_LLAMA, 'calibration.npz'), out: model });
  const ids = heldOutPromptIds();
  return { model, inputs: [ndarray('int32', [1, ids.length], ids)] };
}
