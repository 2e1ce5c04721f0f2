/**
 * The fashion-mlp example on BrainScaleS-2: `node dist/examples/fashion-mlp/brainscales2.js [--images N] [--emulate N]
 * [--num-sends samples|bound]`.
 * Quantizes the shipped float model with firmgen, maps it onto the analog arrays (docs/brainscales2.md) and prints
 * the accuracy table: float (onnxruntime-node), int8 (reference interpreter), and the analog chip for three chip seeds,
 * with the temporal noise off and on, before and after the emulator-in-the-loop calibration on the 200 shipped
 * calibration images (calibrate.ts). The analog accuracies come from analogForward (the reference of the analog model,
 * in batches); the first --emulate test images (default 3) of each configuration also run as generated firmware in the
 * emulator and must equal the reference of the same firmware exactly. num_sends: from the 200 calibration images
 * (`--analog-samples`, the default) or the input-free bound (`--num-sends bound`); per configuration the share of
 * each layer's analog outputs at the int8 edges (all / where the layer's output could tell).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ndarray } from '../../generator/ir/ndarray.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { calibrateAnalog } from '../../generator/platforms/brainscales2/calibrate.js';
import { analogForward, clipRates } from '../../generator/platforms/brainscales2/forward.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { runFirmware } from '../../runtime/node/run.js';
import { accuracy, integerInputs, loadFashion, ortOutputs, quantizeFashion, referenceOutputs } from '../fashion-common.js';

const { values } = parseArgs({ options: { images: { type: 'string' }, emulate: { type: 'string' }, out: { type: 'string' }, 'num-sends': { type: 'string' } } });
const sends = values['num-sends'] ?? 'samples';
if (sends !== 'samples' && sends !== 'bound') {
  console.error('brainscales2: --num-sends takes samples or bound');
  process.exit(2);
}
const dir = join(REPO_ROOT, 'examples', 'fashion-mlp');
const f = loadFashion(dir, values.images ? Number(values.images) : Infinity);
const out = values.out ?? join(REPO_ROOT, 'out', 'fashion-mlp-brainscales2');
const { q, intModel } = quantizeFashion(f, out);
const n = f.labels.length;
const emulate = Math.min(n, values.emulate ? Number(values.emulate) : 3);
const test = integerInputs(q, f.images).map((x) => [x]);
const cal = [...readNpz(f.calibration).values()][0];
const size = cal.data.length / cal.shape[0];
const calibration = integerInputs(q, Array.from({ length: cal.shape[0] }, (_, i) =>
  ndarray('float32', [1, ...cal.shape.slice(1)], cal.data.subarray(i * size, (i + 1) * size)))).map((x) => [x]);
// the mapping's calibration samples: the same images, stacked along axis 0 (as --analog-samples takes them)
const stacked = ndarray(calibration[0][0].dtype, [calibration.length, ...calibration[0][0].shape.slice(1)]);
calibration.forEach((x, i) => stacked.data.set(x[0].data, i * size));
const mapping = sends === 'samples' ? { analogSamples: [stacked] } : {};

const rows: [string, number, string][] = [
  ['float (onnxruntime-node)', accuracy(await ortOutputs(f.model, f.images), f.labels, f.classes), ''],
  ['int8 (reference interpreter)', accuracy(referenceOutputs(q, f.images).map((o) => o.data), f.labels, f.classes), ''],
];
let mismatched = 0;
let cycles = 0;
for (const noiseStd of [0, 2]) {
  for (const chipSeed of [1, 2, 3]) {
    const t0 = performance.now();
    const corrections = calibrateAnalog(intModel, calibration, { chipSeed, noiseStd, ...mapping });
    const calMs = performance.now() - t0;
    for (const calibrated of [false, true]) {
      const opts = { chipSeed, noiseStd, ...mapping, ...(calibrated ? { analogCalibration: corrections } : {}) };
      const t1 = performance.now();
      const forward = analogForward(intModel, test, opts, { layers: true });
      const acc = accuracy(forward.outputs.map((o) => o[0].data), f.labels, f.classes);
      const clips = forward.layers!.map((l) => clipRates(l)).map((r) => `${(100 * r.all).toFixed(1)}/${(100 * r.telling).toFixed(1)}`).join(' ');
      const ms = (performance.now() - t1) / n;
      // the firmware, emulated, on the first images: equal to the reference of the same firmware
      const c = compileModel({ model: intModel, platform: 'brainscales2', ...opts });
      const g = referenceGraph(c.platform, c.graph);
      const fw = join(out, `firmware-chip${chipSeed}-noise${noiseStd}${calibrated ? '-calibrated' : ''}`);
      generateFirmware({ model: intModel, platform: 'brainscales2', out: fw, ...opts });
      for (let i = 0; i < emulate; i++) {
        const r = await runFirmware(fw, test[i]);
        cycles = r.cycles;
        const want = runReference(g, test[i]).get(g.outputs[0])!;
        if (JSON.stringify(Array.from(r.outputs[0].data)) !== JSON.stringify(Array.from(want.data))) mismatched++;
      }
      rows.push([`analog, chip ${chipSeed}, noise ${noiseStd}${calibrated ? ', calibrated' : ''}`, acc,
        `${ms.toFixed(1)} ms/image; clipped % per layer ${clips}${calibrated ? `; calibration ${(calMs / 1000).toFixed(1)} s on ${calibration.length} images` : ''}`]);
    }
  }
}
const w = Math.max(...rows.map((r) => r[0].length));
console.log(`${n} test images; num_sends ${sends === 'samples' ? `from the ${calibration.length} calibration images` : 'from the input-free bound'}; one inference ${cycles} cycles (${(cycles / 250).toFixed(0)} us at 250 MHz)`);
console.log(`${'model'.padEnd(w)}  accuracy`);
for (const [label, acc, note] of rows) console.log(`${label.padEnd(w)}  ${acc.toFixed(2).padStart(6)} %  ${note}`);
console.log(mismatched === 0 ? `emulated firmware = reference on every emulated image (${emulate} per configuration)` : `${mismatched} emulated images differ from the reference`);
if (mismatched > 0) process.exitCode = 1;
