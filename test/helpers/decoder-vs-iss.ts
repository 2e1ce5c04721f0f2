import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { layerRatios } from './layer-ratios.js';

/**
 * The decoder ratchets' one check (test/emulator/iss-vs-as-decoder and iss-vs-as-step): `model` generated for
 * `platform` into `out`, the AS firmware and the ISS run on `inputs`; both give `expected` exactly, the whole run's
 * ISS/AS lies within 1/`bound` .. `bound`, and at least `within` layers lie within 10 % (layer-ratios.ts).
 */
export async function checkDecoderOnIss(model: string, platform: string, out: string, inputs: NDArray[], expected: NDArray[], bound: number, within: number): Promise<void> {
  generateFirmware({ model, platform, out });
  const as = await runFirmware(out, inputs);
  const iss = await runIss(out, inputs);
  assert.is(compareOutputs(as.outputNames, as.outputs, expected).errors, 0, 'AS outputs');
  assert.is(compareOutputs(as.outputNames, iss.outputs, expected).errors, 0, 'ISS outputs');
  const ratio = iss.networkCycles / as.cycles;
  assert.ok(ratio > 1 / bound && ratio < bound, `ISS ${iss.networkCycles} / AS ${as.cycles} = ${ratio.toFixed(3)}`);
  const per = layerRatios(as.layers, iss.layers);
  assert.ok(per.within >= within, `${per.within} of ${per.layers.length} layers within 10 %`);
}
