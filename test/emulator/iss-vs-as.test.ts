import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { DEEPLOY } from '../helpers/deeploy.js';

/*
 * The AS path's cycles (the measured cost tables, docs/timing.md "The fit") against the ISS's on the C a user flashes,
 * every Models folder, on Siracusa's 8 cluster cores and on the generic core: the whole network within a quarter
 * either way (measured on this version: 0.84 .. 1.15 and 0.85 .. 1.09; `npm run bench:iss-vs-as` prints every layer). The per-layer bound the issue asks for (10 %) is not
 * met yet: the lockstep bank model over-charges large convs and GEMMs, a one-column MatMul is priced as a block.
 */
const MODELS = ['CNN_Linear1', 'CNN_Linear2', 'miniMobileNet', 'miniMobileNetv2', 'EEGFormer'];
const work = mkdtempSync(join(tmpdir(), 'firmgen-iss-vs-as-'));

for (const platform of ['siracusa', 'generic']) for (const model of MODELS) {
  test(`${model} on ${platform}: AS cycles within 0.75 .. 1.33 of the ISS's, both exact`, async () => {
    const src = join(DEEPLOY, 'Models', model);
    const out = join(work, `${model}-${platform}`);
    generateFirmware({ model: join(src, 'network.onnx'), platform, out });
    const inputs = [...readNpz(join(src, 'inputs.npz')).values()];
    const expected = [...readNpz(join(src, 'outputs.npz')).values()];
    const as = await runFirmware(out, inputs);
    const iss = await runIss(out, inputs);
    assert.is(compareOutputs(as.outputNames, as.outputs, expected).errors, 0);
    assert.is(compareOutputs(as.outputNames, iss.outputs, expected).errors, 0);
    const ratio = as.cycles / iss.networkCycles;
    assert.ok(ratio >= 0.75 && ratio <= 1.33, `AS ${as.cycles} / ISS ${iss.networkCycles} = ${ratio.toFixed(2)}`);
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
