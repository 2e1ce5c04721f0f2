import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { sizeOf } from '../../generator/ir/ndarray.js';

/*
 * What the mutation fuzzer (and its corpus replay) checks once `gen firmware` accepted a model: no hostile name in
 * the generated code, and the reference interpreter accepts the model too; its outputs go to expected.npz for the
 * `gen run --expect` that follows.
 */

/** The reference's outputs, or why the reference refuses the model. */
export function reference(model: string, inputs: NDArray[]): NDArray[] | string {
  try {
    const g = loadOnnxFile(model);
    // firmgen's contract for inputs (gen firmware's samples, gen run): each array holds the input's elements in order,
    // whatever its shape; one of the declared element count is that input. The reference wants the declared shape.
    const shaped = inputs.map((a, i) => {
      const t = g.tensors.get(g.inputs[i]);
      return t && t.shape.every((d) => d > 0) && sizeOf(t.shape) === a.data.length ? { ...a, shape: [...t.shape] } : a;
    });
    const v = runReference(g, shaped);
    const missing = g.outputs.find((o) => !v.get(o));
    if (missing !== undefined) return `the reference has no value for output ${JSON.stringify(missing)}`;
    return g.outputs.map((o) => v.get(o)!);
  } catch (e) {
    return (e as Error).message.split('\n')[0].replaceAll(model, 'model.onnx');
  }
}

/** Names that would break out of a comment, a string or a line in C or AssemblyScript. */
export function isInjecting(name: string): boolean {
  return /[\n\r\u001b]|\*\//.test(name); // a path such as ../x is harmless in code: the file checks cover paths
}

/** Problems of an accepted model; writes `expected` (a path) when the reference runs it. */
export function checkAccepted(model: string, inputs: NDArray[] | undefined, out: string, expected: string, hostile?: string): string[] {
  const problems: string[] = [];
  if (hostile !== undefined && isInjecting(hostile)) {
    const leaked = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(c|h|ts)$/.test(e.name)) // code: a comment end or newline there is injection
      .filter((e) => readFileSync(join(e.parentPath, e.name), 'utf8').includes(hostile));
    if (leaked.length > 0) problems.push(`name ${JSON.stringify(hostile)} appears raw in ${leaked.map((e) => e.name).slice(0, 3).join(', ')}`);
  }
  if (!inputs) return problems;
  const ref = reference(model, inputs);
  if (typeof ref === 'string') problems.push(`firmware: accepted a model the reference refuses: ${ref.slice(0, 120)}`);
  else writeFileSync(expected, encodeNpz(new Map(ref.map((a, k) => [`out${k}`, a]))));
  return problems;
}
