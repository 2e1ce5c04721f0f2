import { GenError, quoted } from '../errors.js';
import { formatShape, ndarray, shapeEquals, sizeOf, type NDArray } from '../ir/ndarray.js';
import type { Manifest } from '../../runtime/node/manifest.js';

/*
 * `gen run` on a set of samples: arrays holding n times what the firmware takes along their first axis (a test set of
 * [n, ...] for a model of [1, ...]) run as n inferences, one after another, their outputs stacked along the first
 * axis in the same way.
 */

const shapeOf = (m: Manifest, name: string): number[] => m.tensors.find((t) => t.name === name)?.shape ?? [];

/** How many times `a` holds a tensor of `shape` along its first axis, or 0 when it is not shaped so. */
function timesAlongFirst(a: NDArray, shape: number[]): number {
  if (sizeOf(a.shape) === sizeOf(shape)) return 1;
  if (shape.length === 0 || a.shape.length !== shape.length || shape[0] < 1 || a.shape[0] % shape[0] !== 0) return 0;
  return shapeEquals(a.shape.slice(1), shape.slice(1)) ? a.shape[0] / shape[0] : 0;
}

/**
 * The samples the input arrays hold: 1 when each matches its tensor's size, n when every one holds n of its tensor
 * along the first axis. Arrays of other shapes are left for the run to refuse (its error names the tensor).
 */
export function sampleCount(m: Manifest, inputs: NDArray[]): number {
  if (inputs.length !== m.inputs.length) return 1;
  const counts = m.inputs.map((name, i) => timesAlongFirst(inputs[i], shapeOf(m, name)));
  if (counts.every((c) => c === 1) || counts.some((c) => c === 0)) return 1;
  const n = Math.max(...counts);
  if (counts.some((c) => c !== n)) {
    throw new GenError('input', `the inputs hold different numbers of samples (${m.inputs.map((name, i) => `${quoted(name)}: ${counts[i]}`).join(', ')})`);
  }
  return n;
}

/** Sample k of the input arrays, each shaped as its tensor. */
export function sampleOf(m: Manifest, inputs: NDArray[], k: number): NDArray[] {
  return m.inputs.map((name, i) => {
    const shape = shapeOf(m, name);
    const size = sizeOf(shape);
    return ndarray(inputs[i].dtype, shape, inputs[i].data.subarray(k * size, (k + 1) * size));
  });
}

/** The samples' outputs stacked along the first axis, output by output. */
export function stackSamples(perSample: NDArray[][]): NDArray[] {
  return perSample[0].map((first, j) => {
    const data = new Float64Array(perSample.length * first.data.length);
    perSample.forEach((outs, k) => data.set(outs[j].data, k * first.data.length));
    const shape = first.shape.length > 0 ? [first.shape[0] * perSample.length, ...first.shape.slice(1)] : [perSample.length];
    return { dtype: first.dtype, shape, data };
  });
}

/** Expected outputs for n samples: each array holds n times its output's elements. */
export function checkExpectedSamples(m: Manifest, expected: NDArray[], n: number, file: string): void {
  m.outputs.forEach((name, i) => {
    const shape = shapeOf(m, name);
    if (sizeOf(expected[i].shape) !== n * sizeOf(shape)) {
      throw new GenError('input', `array ${i} has shape ${formatShape(expected[i].shape)}, output ${quoted(name)} has ` +
        `${formatShape(shape)} per sample and the inputs hold ${n} samples`, { file });
    }
  });
}
