/**
 * The fashion-mlp example on BrainScaleS-2: `node dist/examples/fashion-mlp/brainscales2.js [--images N] [--emulate N]`.
 * Quantizes the shipped float model with firmgen, maps it onto the analog arrays (docs/brainscales2.md) and prints
 * the accuracy table: float (onnxruntime-node), int8 (reference interpreter), and the analog chip for three chip seeds,
 * with the temporal noise off and on. The analog accuracies come from the reference of the analog model (the lowered
 * graph's Bss2Matmul nodes; one temporal-noise seed per image); the first --emulate images (default 5) of each chip
 * also run as generated firmware in the emulator and must equal the reference exactly.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Graph } from '../../generator/ir/graph.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { runFirmware } from '../../runtime/node/run.js';
import { accuracy, integerInputs, loadFashion, ortOutputs, quantizeFashion, referenceOutputs } from '../fashion-common.js';

const { values } = parseArgs({ options: { images: { type: 'string' }, emulate: { type: 'string' }, out: { type: 'string' } } });
const f = loadFashion(join(REPO_ROOT, 'examples', 'fashion-mlp'), values.images ? Number(values.images) : Infinity);
const out = values.out ?? join(REPO_ROOT, 'out', 'fashion-mlp-brainscales2');
const { q, intModel } = quantizeFashion(f, out);
const n = f.labels.length;
const emulate = Math.min(n, values.emulate ? Number(values.emulate) : 5);
const inputs = integerInputs(q, f.images);

/** The lowered graph with each analog layer's temporal noise seeded for image `i` (a new draw per inference). */
function forImage(g: Graph, i: number): Graph {
  return {
    ...g,
    nodes: g.nodes.map((x) => (x.op !== 'Bss2Matmul' ? x : {
      ...x, attrs: { ...x.attrs, noise_seed: { kind: 'int', value: ((x.attrs.noise_seed as { value: number }).value ^ Math.imul(i + 1, 0x9e3779b9)) >>> 0 } },
    })),
  };
}

const rows: [string, number, string][] = [
  ['float (onnxruntime-node)', accuracy(await ortOutputs(f.model, f.images), f.labels, f.classes), ''],
  ['int8 (reference interpreter)', accuracy(referenceOutputs(q, f.images).map((o) => o.data), f.labels, f.classes), ''],
];
let mismatched = 0;
for (const noiseStd of [0, 2]) {
  for (const chipSeed of [1, 2, 3]) {
    const c = compileModel({ model: intModel, platform: 'brainscales2', chipSeed, noiseStd });
    const g = referenceGraph(c.platform, c.graph);
    const name = g.outputs[0];
    const t0 = performance.now();
    const outputs: NDArray[] = inputs.map((x, i) => runReference(forImage(g, i), [x]).get(name)!);
    const ms = (performance.now() - t0) / n;
    // the firmware, emulated, on the first images: equal to the reference (the seeds of image 0: the firmware's own)
    const fw = join(out, `firmware-chip${chipSeed}-noise${noiseStd}`);
    generateFirmware({ model: intModel, platform: 'brainscales2', out: fw, chipSeed, noiseStd });
    let cycles = 0;
    for (let i = 0; i < emulate; i++) {
      const r = await runFirmware(fw, [inputs[i]]);
      cycles = r.cycles;
      const want = runReference(g, [inputs[i]]).get(name)!;
      if (JSON.stringify(Array.from(r.outputs[0].data)) !== JSON.stringify(Array.from(want.data))) mismatched++;
    }
    const layers = c.lowered.nodes.filter((x) => x.op === 'Bss2Matmul').length;
    rows.push([`analog, chip ${chipSeed}, temporal noise ${noiseStd}`, accuracy(outputs.map((o) => o.data), f.labels, f.classes),
      `${layers} analog layers; ${emulate} images emulated (${cycles} cycles, ${(cycles / 250).toFixed(0)} us each at 250 MHz); reference ${ms.toFixed(0)} ms/image`]);
  }
}
const w = Math.max(...rows.map((r) => r[0].length));
console.log(`${n} test images`);
console.log(`${'model'.padEnd(w)}  accuracy`);
for (const [label, acc, note] of rows) console.log(`${label.padEnd(w)}  ${acc.toFixed(2).padStart(6)} %  ${note}`);
console.log(mismatched === 0 ? 'emulated firmware = reference on every emulated image' : `${mismatched} emulated images differ from the reference`);
if (mismatched > 0) process.exitCode = 1;
