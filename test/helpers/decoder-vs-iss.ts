import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { layerRatios } from './layer-ratios.js';

/**
 * `model` generated for `platform` into `out`, the AS firmware and the ISS run on `inputs`; both must give `expected`
 * exactly. Returns both runs and their per-layer ratios (layer-ratios.ts): the AS-vs-ISS ratchets' shared check.
 */
export async function bothExact(model: string, platform: string, out: string, inputs: NDArray[], expected: NDArray[]) {
  generateFirmware({ model, platform, out });
  const as = await runFirmware(out, inputs);
  const iss = await runIss(out, inputs);
  assert.is(compareOutputs(as.outputNames, as.outputs, expected).errors, 0, 'AS outputs');
  assert.is(compareOutputs(as.outputNames, iss.outputs, expected).errors, 0, 'ISS outputs');
  return { as, iss, per: layerRatios(as.layers, iss.layers) };
}

/**
 * The decoder ratchets' one check (test/emulator/iss-vs-as-decoder and iss-vs-as-step): bothExact, then the whole
 * run's ISS/AS lies within 1/`bound` .. `bound`, and at least `within` layers lie within 10 %.
 */
export async function checkDecoderOnIss(model: string, platform: string, out: string, inputs: NDArray[], expected: NDArray[], bound: number, within: number): Promise<void> {
  const { as, iss, per } = await bothExact(model, platform, out, inputs, expected);
  const ratio = iss.networkCycles / as.cycles;
  assert.ok(ratio > 1 / bound && ratio < bound, `ISS ${iss.networkCycles} / AS ${as.cycles} = ${ratio.toFixed(3)}`);
  assert.ok(per.within >= within, `${per.within} of ${per.layers.length} layers within 10 %`);
}
