import { tensorOf } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import { compileModel } from '../../pipeline.js';
import { runBatched } from '../../quantize/batch.js';
import { AnalogChip } from './analog/chip-model.js';
import { analogMatmul } from './analog/partition.js';
import { rescaleOf, type ForwardOptions } from './forward.js';
import { ANALOG_OP, type Correction } from './lower-analog.js';
import { referenceGraph } from './platform.js';

/** Least squares `ideal ~ a * actual + b` over the pairs where neither is at the int8 edge. */
function fit(actual: number[], ideal: number[]): [number, number] {
  let n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (let i = 0; i < actual.length; i++) {
    const x = actual[i];
    const y = ideal[i];
    if (x <= -128 || x >= 127 || y <= -128 || y >= 127) continue;
    n++; sx += x; sy += y; sxx += x * x; sxy += x * y;
  }
  if (n < 2) return [1, 0];
  const vx = sxx - (sx * sx) / n;
  if (vx <= 1e-9) return [1, (sy - sx) / n];
  const a = (sxy - (sx * sy) / n) / vx;
  // a correction that reverses or wipes out the signal is noise, not the chip's gain
  if (!(a > 0.5 && a < 2)) return [1, (sy - sx) / n];
  return [a, (sy - a * sx) / n];
}

/**
 * Emulator-in-the-loop calibration of the analog layers (docs/brainscales2.md "Emulator-in-the-loop calibration"):
 * layer after layer, the calibration samples run through the emulated chip (the reference of the lowered graph, which
 * the firmware equals) with the layers before already corrected; each column's analog outputs are fitted to what a chip without fixed
 * pattern or noise gives on the same 5-bit inputs, `ideal ~ a * actual + b`; the corrections fold into the layers'
 * digital rescale (lower-analog.ts), free at run time. The fit uses the chip without its temporal noise (its mean
 * response, as averaging repeated runs on a chip gives). It recovers the chip's per-neuron gain and offset and the
 * column's average synapse gain, not the per-synapse pattern within a column nor the temporal noise. It is not the
 * hardware-in-the-loop training of the issue (which changes the weights).
 */
export function calibrateAnalog(model: string, samples: NDArray[][], options: ForwardOptions = {}): Correction[] {
  const corrections: Correction[] = [];
  const ideal = new AnalogChip({ chipSeed: 0, fixedPattern: false, noiseSeed: 0, noiseStd: 0 });
  for (let l = 0; ; l++) {
    // The fit takes the chip's mean response, temporal noise averaged out (what repeating each sample on the chip
    // gives): fitted through the noise, the slopes shrink toward 0 (errors in the regressor) and hurt.
    const c = compileModel({ model, platform: 'brainscales2', ...options, noiseStd: 0, analogCalibration: corrections });
    const g = referenceGraph(c.platform, c.graph);
    const layers = g.nodes.filter((x) => x.op === ANALOG_OP);
    if (l >= layers.length) return corrections;
    const node = layers[l];
    const x5 = node.inputs[0];
    const sum = rescaleOf(g, node).input;
    const w = tensorOf(g, node.inputs[1]);
    const [K, N] = w.shape;
    const attr = (name: string): number => (node.attrs[name] as { value: number }).value;
    const actual: number[][] = Array.from({ length: N }, () => []);
    const wanted: number[][] = Array.from({ length: N }, () => []);
    runBatched(g, samples, [x5, sum], (values, count) => {
      const x = values.get(x5)!;
      const v = values.get(sum)!;
      const M = x.data.length / K;
      const y = analogMatmul(ideal, { x: x.data, w: w.data!.data, M, K, N, numSends: attr('num_sends'), gain: attr('gain'), firstArray: 0 });
      for (let i = 0; i < M * N; i++) {
        actual[i % N].push(v.data[i]);
        wanted[i % N].push(y[i]);
      }
      void count;
    });
    const ab = actual.map((col, n) => fit(col, wanted[n]));
    corrections.push({ a: ab.map((p) => p[0]), b: ab.map((p) => p[1]) });
  }
}
