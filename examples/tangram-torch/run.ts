/**
 * Small CNN, MLP and LSTM classifiers built with torch (build.py), quantized by firmgen and run on the emulated
 * platforms: `node dist/examples/tangram-torch/run.js [--models DIR] [--platforms tangram,generic,siracusa]
 * [--emulate N] [--out DIR]`. Without --models it runs build.py (python3 with torch, numpy, onnx) into
 * out/tangram-torch/models first.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { buildTorchModels, runTorchModel, TORCH_MODELS, type TorchModelResult } from './models.js';

function row(r: TorchModelResult): string[] {
  const f = r.float;
  const q = r.int8;
  return [
    r.name,
    `${f.ortVsTorch.toExponential(1)} / ${f.unrolledVsOrt.toExponential(1)}`,
    `${q.sqnrDb.toFixed(1)} dB`,
    `${q.maxAbsError.toFixed(3)} (${((100 * q.maxAbsError) / q.maxAbsLogit).toFixed(1)} % of ${q.maxAbsLogit.toFixed(2)})`,
    `${q.argmaxAgreement.toFixed(1)} %`,
    `${f.accuracy.toFixed(1)} / ${q.accuracy.toFixed(1)} %`,
    q.qdq ? `${q.qdq.differ} of ${q.qdq.values}, max ${q.qdq.maxLsb} LSB` : 'no QDQ form',
    ...r.emulated.map((e) => `${e.errors} of ${e.values}; ${e.cycles} cycles`),
  ];
}

const { values } = parseArgs({
  options: {
    models: { type: 'string' },
    platforms: { type: 'string', default: 'tangram,generic,siracusa' },
    emulate: { type: 'string', default: '4' },
    out: { type: 'string', default: join(REPO_ROOT, 'out', 'tangram-torch') },
  },
});
const platforms = values.platforms!.split(',');
const models = values.models ?? buildTorchModels(join(values.out!, 'models'), []);
const results: TorchModelResult[] = [];
for (const name of TORCH_MODELS) {
  results.push(await runTorchModel(models, name, join(values.out!, name), platforms, Number(values.emulate)));
}
const head = ['model', 'ORT vs torch / unrolled vs ORT (float, max abs)', 'int8 output SQNR', 'int8 vs torch max abs error',
  'argmax agreement', 'accuracy float / int8', 'QDQ in ORT vs int8 model', ...platforms.map((p) => `${p}: values differing from the reference`)];
console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
for (const r of results) console.log(`| ${row(r).join(' | ')} |`);
