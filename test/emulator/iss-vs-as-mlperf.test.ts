/**
 * The MLPerf-Tiny-class CNNs firmgen builds itself (test/helpers/tiny-models.ts: MobileNetV1-0.25, ResNet-8, DS-CNN,
 * quantized by firmgen's own quantizer) on Siracusa's 8 cluster cores and on the generic core: the AS firmware's and
 * the ISS's outputs equal the reference interpreter's, each network's AS cycles lie within 0.83 .. 1.2 of the ISS's,
 * and a ratchet on the layers within 10 % (the bound; the Models folders' are test/emulator/iss-vs-as).
 * `npm run bench:iss-vs-as` prints every layer. When this test came in (2026-12-05): Siracusa 57 of 57, generic 57
 * of 57 (the bench's 102 of 102 with the Models' 45 on each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { bothExact } from '../helpers/decoder-vs-iss.js';
import { TINY_MODELS, writeTinyModel } from '../helpers/tiny-models.js';

/** Per platform: the MLPerf-class layers it runs and the ratchet on those within 10 %. */
const CONFIGS = [
  { platform: 'siracusa', layers: 57, within: 57 },
  { platform: 'generic', layers: 57, within: 57 },
];
const work = mkdtempSync(join(tmpdir(), 'firmgen-iss-vs-as-mlperf-'));
const models = Object.keys(TINY_MODELS).map((name) => {
  const model = writeTinyModel(name, work);
  const inputs = [...readNpz(join(dirname(model), 'inputs.npz')).values()];
  const graph = loadOnnxFile(model);
  const values = runReference(graph, inputs);
  return { name, model, inputs, expected: graph.outputs.map((o) => values.get(o)!) };
});

for (const { platform, layers: expectedLayers, within: atLeast } of CONFIGS) {
  let layers = 0;
  let within = 0;
  for (const { name, model, inputs, expected } of models) {
    test(`${name} on ${platform}: both exact, AS cycles within 0.83 .. 1.2 of the ISS's`, async () => {
      const { as, iss, per } = await bothExact(model, platform, join(work, `${name}-${platform}`), inputs, expected);
      const ratio = as.cycles / iss.networkCycles;
      assert.ok(ratio >= 0.83 && ratio <= 1.2, `AS ${as.cycles} / ISS ${iss.networkCycles} = ${ratio.toFixed(2)}`);
      layers += per.layers.length;
      within += per.within;
    });
  }
  test(`${platform}: at least ${atLeast} layers of the MLPerf-class models within 10 %`, () => {
    assert.is(layers, expectedLayers, 'every layer compared');
    assert.ok(within >= atLeast, `${within} of ${layers} layers within 10 %`);
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
