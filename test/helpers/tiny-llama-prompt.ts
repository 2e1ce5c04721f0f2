import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { quantizeFile } from '../../generator/quantize/files.js';
import { Rng } from './random.js';
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

/** The step graph's cache length (the context bench:llm and the generation tests quantize it for). */
export const STEP_CONTEXT = 256;

/**
 * One decoder step as firmgen runs it: step.onnx quantized by `gen quantize` (context 256) into `dir`/network.onnx,
 * and the inputs of the step at `position`: the held-out prompt's first token, the caches' rows before `position`
 * filled with int8 values within +-40 (seeded; the rows past it zero, as a generation leaves them) and the other
 * inputs zero. For timing the step's layers at a given attention length; the values are not a real prompt's.
 */
export function quantizedStep(dir: string, position: number): { model: string; inputs: Map<string, NDArray> } {
  const model = join(dir, 'network.onnx');
  quantizeFile({ model: join(TINY_LLAMA, 'step.onnx'), calibration: join(TINY_LLAMA, 'calibration.npz'), out: model, context: STEP_CONTEXT });
  const g = loadOnnxFile(model);
  const rng = new Rng(position);
  const inputs = new Map<string, NDArray>();
  for (const name of g.inputs) {
    const t = g.tensors.get(name)!;
    const a = ndarray(t.dtype, t.shape);
    if (name === 'position') a.data[0] = position;
    else if (name === 'input_ids') a.data[0] = heldOutPromptIds()[0];
    else if (name.startsWith('past.')) {
      // [1, heads, context, d]: rows 0..position-1 of every head.
      const [, heads, rows, d] = t.shape;
      for (let h = 0; h < heads; h++) for (let r = 0; r < Math.min(position, rows); r++) for (let k = 0; k < d; k++) a.data[(h * rows + r) * d + k] = rng.int(-40, 40);
    }
    inputs.set(name, a);
  }
  return { model, inputs };
}
