/**
 * The fashion-mlp example on SpiNNaker2: `node dist/examples/fashion-mlp/spinnaker2.js [--emulate N] [--pes N]`.
 * Quantizes the shipped float model with firmgen, classifies the shipped test subset with the float model
 * (onnxruntime-node), the int8 model in the reference interpreter and the int8 firmware emulated on SpiNNaker2
 * (one scheduler PE, worker PEs with their MLAs, the whole network on chip), checks the emulated outputs equal the
 * reference's exactly, and prints the accuracy table and the per-layer runtime table (microseconds at 300 MHz)
 * from the time stamps the firmware wrote into the DRAM.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateFirmware } from '../../generator/pipeline.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { runFirmware } from '../../runtime/node/run.js';
import { formatS2Table, s2Table } from '../../runtime/node/spinnaker2-times.js';
import { accuracy, integerInputs, loadFashion, mismatches, ortOutputs, quantizeFashion, referenceOutputs } from '../fashion-common.js';

const { values } = parseArgs({ options: { emulate: { type: 'string' }, pes: { type: 'string' }, out: { type: 'string' } } });
const f = loadFashion(join(REPO_ROOT, 'examples', 'fashion-mlp'));
const out = values.out ?? join(REPO_ROOT, 'out', 'fashion-mlp-spinnaker2');
const { q, intModel } = quantizeFashion(f, out);
const n = f.labels.length;
const m = Math.min(n, values.emulate ? Number(values.emulate) : n);
const fw = join(out, 'firmware');
generateFirmware({ model: intModel, platform: 'spinnaker2', out: fw, pes: values.pes ? Number(values.pes) : undefined });

const float = accuracy(await ortOutputs(f.model, f.images), f.labels, f.classes);
const ref = referenceOutputs(q, f.images);
const inputs = integerInputs(q, f.images.slice(0, m));
const emulated = [];
let first;
const t0 = performance.now();
for (const x of inputs) {
  const r = await runFirmware(fw, [x]);
  first ??= r;
  emulated.push(r.outputs[0]);
}
const ms = (performance.now() - t0) / Math.max(1, m);
const bad = mismatches(emulated, ref.slice(0, m));

const rows: [string, number, string][] = [
  ['float (onnxruntime-node)', float, `${n} images`],
  ['int8 reference interpreter', accuracy(ref.map((o) => o.data), f.labels, f.classes), `${n} images`],
  ['int8 emulated, spinnaker2', accuracy(emulated.map((o) => o.data), f.labels.slice(0, m), f.classes),
    `${m} images, ${bad} output values differ from the reference; ${ms.toFixed(0)} ms/image on this host`],
];
const w = Math.max(...rows.map((r) => r[0].length));
console.log(`${'model'.padEnd(w)}  accuracy`);
for (const [label, acc, note] of rows) console.log(`${label.padEnd(w)}  ${acc.toFixed(2).padStart(6)} %  ${note}`);
console.log();
console.log(formatS2Table(s2Table(first!.spinnaker2!), 'fashion-mlp on SpiNNaker2, one inference'));
if (bad > 0) process.exitCode = 1;
