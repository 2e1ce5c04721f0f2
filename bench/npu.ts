/**
 * `npm run bench:npu`: Siracusa's four scenarios (issue 5) on the convolution and GEMM folders the NPU runs and on
 * the five models: one cluster core (--cores 1), eight cores (the default), N-EUREKA with its weights in L2 (moved
 * to L1 with the tiles) and N-EUREKA reading them from the neural memory. Kernels force the NPU on (--engines npu,
 * to measure the engine); models use engine selection by cost (--engines cluster+npu, what a user gets). Every run
 * is first checked bit for bit against outputs.npz. One JSON line per measurement: {name, figure, unit, reference},
 * the speed-ups as ratios of cycles measured in this run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware, type FirmwareOptions } from '../generator/pipeline.js';
import { compareOutputs } from '../runtime/node/compare.js';
import { runFirmware } from '../runtime/node/run.js';
import { arrays, integerFolders } from '../test/helpers/deeploy.js';

const KERNELS = [
  'Kernels/Integer/Conv/PW_2D', 'Kernels/Integer/Conv/PW_2D_RQ/Regular_RQ', 'Kernels/Integer/Conv/PW_2D_RQ/Unsigned_RQ',
  'Kernels/Integer/Conv/DW_2D_RQ', 'Kernels/Integer/Conv/DW_3x3', 'Kernels/Integer/Conv/DW_3x3_RQ',
  'Kernels/Integer/Conv/Regular_3x3', 'Kernels/Integer/Conv/Regular_3x3_RQ',
  'Kernels/Integer/GEMM/Regular_RQPerColumn', 'Kernels/Integer/GEMM/Batch_RQ',
];
const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-npu-'));

function emit(name: string, figure: number, unit: string, reference: string): void {
  console.log(JSON.stringify({ name, figure: Number.isInteger(figure) ? figure : Number(figure.toPrecision(4)), unit, reference }));
}

type Scenario = { name: string; opts: Partial<FirmwareOptions> };

async function cycles(folder: { name: string; dir: string; model: string }, s: Scenario): Promise<{ cycles: number; npuLayers: number }> {
  const out = join(work, `${folder.name}_${s.name}`.replace(/\W/g, '_'));
  const g = generateFirmware({ model: folder.model, platform: 'siracusa', out, ...s.opts });
  const m = g.manifest;
  const r = await runFirmware(out, arrays(join(folder.dir, 'inputs.npz')).slice(0, m.inputs.length));
  const cmp = compareOutputs(m.outputs, r.outputs, arrays(join(folder.dir, 'outputs.npz')));
  if (cmp.errors !== 0) throw new Error(`${folder.name} ${s.name}: ${cmp.errors} of ${cmp.total} outputs differ from outputs.npz`);
  return { cycles: r.cycles, npuLayers: m.layers.filter((l) => l.engine === 'npu').length };
}

async function main(): Promise<void> {
  const folders = integerFolders();
  const chosen = [...KERNELS.map((k) => folders.find((f) => f.name === k)!), ...folders.filter((f) => f.name.startsWith('Models/'))];
  for (const f of chosen) {
    const engines = f.name.startsWith('Models/') ? 'cluster+npu' : 'npu';
    const scenarios: Scenario[] = [
      { name: 'cores1', opts: { cores: 1 } },
      { name: 'cores8', opts: {} },
      { name: 'npu_l2', opts: { engines, weightsIn: 'l2' } },
      { name: 'npu_nms', opts: { engines, weightsIn: 'nms' } },
    ];
    const tag = f.name.replace(/^(Models|Kernels\/Integer)\//, '');
    const got = new Map<string, { cycles: number; npuLayers: number }>();
    for (const s of scenarios) {
      const r = await cycles(f, s);
      got.set(s.name, r);
      emit(`${tag}.${s.name}`, r.cycles, 'cycles', `emulated, bit-exact${s.opts.engines ? `; --engines ${engines}: ${r.npuLayers} layer(s) on the NPU` : ''}`);
    }
    const c = (k: string): number => got.get(k)!.cycles;
    emit(`${tag}.speedup_8_cores_vs_1`, c('cores1') / c('cores8'), 'ratio', 'cycles on 1 core / on 8');
    emit(`${tag}.speedup_npu_l2_vs_8_cores`, c('cores8') / c('npu_l2'), 'ratio', 'cycles on 8 cores / NPU with weights from L2');
    emit(`${tag}.speedup_npu_nms_vs_8_cores`, c('cores8') / c('npu_nms'), 'ratio', 'cycles on 8 cores / NPU with weights in the neural memory');
    emit(`${tag}.speedup_nms_vs_l2`, c('npu_l2') / c('npu_nms'), 'ratio', 'NPU: weights from L2 / from the neural memory');
  }
}

main().finally(() => rmSync(work, { recursive: true, force: true })).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
