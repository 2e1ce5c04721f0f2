import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReport } from '../generator/quantize/report.js';
import type { Scheme } from '../generator/quantize/types.js';
import type { Calibrate } from '../generator/quantize/clipping.js';
import { REPO_ROOT } from '../runtime/node/paths.js';
import {
  accuracy, emulatedOutputs, integerInputs, loadFashion, mismatches, ortOutputs, quantizeFashion, referenceOutputs,
} from './fashion-common.js';

/*
 * One Fashion-MNIST example end to end: quantize the shipped float model with firmgen, classify the shipped test
 * subset with the float model, the QDQ model, the integer model in the reference interpreter and the firmware
 * emulated on generic and siracusa, and print the accuracy table. Options: --scheme, --calibrate, --emulate N
 * (emulate only the first N test images; default all), --out DIR (default out/<example>).
 */
export async function runFashionExample(name: string): Promise<void> {
  const { values } = parseArgs({
    options: {
      scheme: { type: 'string', default: 'per-channel' },
      calibrate: { type: 'string', default: 'minmax' },
      emulate: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const f = loadFashion(join(REPO_ROOT, 'examples', name));
  const out = values.out ?? join(REPO_ROOT, 'out', name);
  const { q, intModel, qdqModel, ms } = quantizeFashion(f, out, { scheme: values.scheme as Scheme, calibrate: values.calibrate as Calibrate });
  console.log(formatReport(q.layers));
  const bc = q.biasCorrection;
  console.log(`quantized in ${(ms / 1000).toFixed(1)} s (${q.samples} calibration images, ${q.plan.options.scheme}, ${q.plan.options.calibrate})`
    + `; equalised pairs ${q.equalized.length}; bias correction ${bc ? `${bc.before?.toFixed(2)} -> ${bc.after?.toFixed(2)} dB, ${bc.kept ? 'kept' : 'reverted'}` : 'off'}`);
  console.log(`-> ${intModel} (input scale ${q.plan.act.get(q.intGraph.inputs[0])!.scale}), ${qdqModel}\n`);

  const rows: [string, number, string][] = [];
  const n = f.labels.length;
  rows.push(['float (onnxruntime-node)', accuracy(await ortOutputs(f.model, f.images), f.labels, f.classes), '']);
  rows.push(['int8 QDQ (onnxruntime-node)', accuracy(await ortOutputs(qdqModel, f.images), f.labels, f.classes), '']);
  const t0 = performance.now();
  const ref = referenceOutputs(q, f.images);
  const refMs = (performance.now() - t0) / n;
  rows.push(['int8 reference interpreter', accuracy(ref.map((o) => o.data), f.labels, f.classes), `${refMs.toFixed(1)} ms/image`]);
  const m = Math.min(n, values.emulate ? Number(values.emulate) : n);
  const inputs = integerInputs(q, f.images.slice(0, m));
  for (const platform of ['generic', 'siracusa']) {
    const e = await emulatedOutputs(intModel, platform, join(out, platform), inputs);
    const bad = mismatches(e.outputs, ref.slice(0, m));
    rows.push([`int8 emulated, ${platform}`, accuracy(e.outputs.map((o) => o.data), f.labels.slice(0, m), f.classes),
      `${m} images, ${bad} output values differ from the reference; ${e.cycles} cycles/inference; ${e.msPerImage.toFixed(0)} ms/image`]);
  }
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`${'model'.padEnd(w)}  accuracy  (${n} test images)`);
  for (const [label, acc, note] of rows) console.log(`${label.padEnd(w)}  ${acc.toFixed(2).padStart(6)} %  ${note}`);
  const drop = rows[0][1] - rows[2][1];
  console.log(`int8 - float: ${(-drop).toFixed(2)} percentage points`);
}
