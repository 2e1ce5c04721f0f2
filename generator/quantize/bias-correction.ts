import type { Graph } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { addChannelSums, type Calibration } from './calibrate.js';
import { biasScale } from './fixed-point.js';
import { lowerToInteger } from './lower.js';
import { weightScale, type Plan } from './params.js';
import { runInteger } from './report.js';
import type { LinearUnit } from './types.js';

/*
 * Empirical bias correction (Nagel et al. 2019, section 4.2): rounding the weights shifts the expected output of a
 * channel, and that shift passes through every later layer. Layer by layer, in execution order, the integer model
 * runs on the calibration data; the mean of each channel's dequantized accumulator is compared with the float
 * model's mean pre-activation, and the int32 bias absorbs the difference. Later layers are corrected with the
 * earlier corrections in place, so they also absorb the shifts those leave behind.
 */

/** Mean of the dequantized int32 accumulator of `u` per channel over the samples (the graph cut after it). */
function integerMeans(intGraph: Graph, plan: Plan, u: LinearUnit, samples: NDArray[][]): Float64Array {
  const acc = `${u.name}_acc`;
  const last = intGraph.nodes.findIndex((n) => n.outputs.includes(acc));
  const cut: Graph = { ...intGraph, nodes: intGraph.nodes.slice(0, last + 1) };
  const channels = u.wShape[u.outAxis];
  const sums = new Float64Array(channels);
  let count = 0;
  for (const s of samples) {
    const a = runInteger(cut, plan, s).get(acc)!;
    count += addChannelSums(a, u.op === 'Conv' ? 1 : a.shape.length - 1, sums);
  }
  const l = plan.linear.get(u.name)!;
  const sx = plan.act.get(u.x)!.scale;
  return sums.map((v, j) => (v / count) * biasScale(sx, weightScale(l, j)));
}

/** Corrects every linear layer's int32 bias in place; returns the largest correction in LSBs of the bias. */
export function correctBiases(inferred: Graph, plan: Plan, samples: NDArray[][], cal: Calibration): number {
  let largest = 0;
  for (const u of plan.units) {
    if (u.kind !== 'linear') continue;
    const floatMeans = cal.means.get(u.pre);
    if (!floatMeans) continue;
    const { graph } = lowerToInteger(inferred, plan);
    const got = integerMeans(graph, plan, u, samples);
    const l = plan.linear.get(u.name)!;
    const sx = plan.act.get(u.x)!.scale;
    for (let j = 0; j < got.length; j++) {
      const step = Math.round((got[j] - floatMeans[j]) / biasScale(sx, weightScale(l, j)));
      l.biasQ[j] -= step;
      largest = Math.max(largest, Math.abs(step));
    }
  }
  return largest;
}
