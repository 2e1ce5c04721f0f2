/**
 * `npm run bench:gemmini`: Gemmini's array on real layers. Single convolutions and matrix products (int8, checked
 * bit for bit against the reference interpreter) and the Deeploy models with convs (checked against outputs.npz):
 * per array layer its cycles, the array's busy share (cycles it streams operands over the layer's cycles,
 * docs/gemmini.md "Events") and the useful-MAC utilisation (MACs / (cycles x 256), the 16x16 peak). Layers that are
 * not the array's (the host core's Transposes, requantization) are summed as "host"; max-pools on the store unit give
 * their cycles only. One JSON line per measurement.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { compareOutputs } from '../runtime/node/compare.js';
import type { Profile } from '../runtime/node/profile.js';
import { runFirmware } from '../runtime/node/run.js';
import { arrays, integerFolders } from '../test/helpers/deeploy.js';
import { writeCase } from '../test/helpers/kernel-check.js';
import { OnnxBuilder } from '../test/helpers/onnx-builder.js';
import { Rng } from '../test/helpers/random.js';
import { randomValues } from '../test/helpers/typed-values.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-gemmini-'));
const MODELS = ['Models/CNN_Linear1', 'Models/CNN_Linear2', 'Models/miniMobileNetv2'];

function emit(name: string, figure: number, unit: string, reference: string): void {
  console.log(JSON.stringify({ name, figure: Number.isInteger(figure) ? figure : Number(figure.toPrecision(4)), unit, reference }));
}

function report(name: string, p: Profile): void {
  let host = 0;
  for (const l of p.layers) {
    if (!l.kernel.startsWith('gemmini')) {
      host += l.cycles;
      continue;
    }
    const what = `${name} ${l.kernel} ${l.name}`;
    emit(`${what}: cycles`, l.cycles, 'cycles', 'emulator (docs/gemmini.md "Timing")');
    if (l.macs === 0) continue; // a pool on the store unit: no products
    emit(`${what}: array busy`, 100 * (l.arrayBusy ?? 0), '%', 'array stream cycles / layer cycles');
    emit(`${what}: MAC utilisation`, 100 * (l.utilisation ?? 0), '%', 'MACs / (cycles x 256)');
  }
  emit(`${name}: host-core layers`, host, 'cycles', 'Transposes, requantization, the rest');
  emit(`${name}: total`, p.total.cycles, 'cycles', `array busy ${(100 * (p.total.arrayBusy ?? 0)).toFixed(1)} %, MAC utilisation ${(100 * (p.total.utilisation ?? 0)).toFixed(1)} %`);
}

async function conv(name: string, c: number, h: number, o: number, k: number, stride = 1, group = 1): Promise<void> {
  const rng = new Rng(c * 1000 + o);
  const b = new OnnxBuilder(name).input('x', 'int8', [1, c, h, h]);
  b.initializer('w', 'int8', [o, c / group, k, k], randomValues(rng, 'int8', [o, c / group, k, k], 20).data);
  b.initializer('b', 'int32', [o], rng.ints(o, -1000, 1000));
  const p = (k - 1) >> 1;
  b.node('Conv', ['x', 'w', 'b'], ['y'], { kernel_shape: [k, k], pads: [p, p, p, p], strides: [stride, stride], group }).output('y', 'int32');
  await run(name, b, [randomValues(rng, 'int8', [1, c, h, h])]);
}

async function matmul(name: string, m: number, k: number, n: number): Promise<void> {
  const rng = new Rng(m + k + n);
  const b = new OnnxBuilder(name).input('a', 'int8', [m, k]);
  b.initializer('b', 'int8', [k, n], randomValues(rng, 'int8', [k, n]).data);
  b.node('MatMul', ['a', 'b'], ['y']).output('y', 'int32');
  await run(name, b, [randomValues(rng, 'int8', [m, k])]);
}

async function run(name: string, builder: OnnxBuilder, inputs: ReturnType<typeof randomValues>[]): Promise<void> {
  const w = writeCase(join(work, name), { builder, inputs });
  const out = join(work, name, 'out');
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out });
  const r = await runFirmware(out, inputs);
  const cmp = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
  if (cmp.errors !== 0) throw new Error(`${name}: ${cmp.errors} of ${cmp.total} outputs differ from the reference`);
  report(name, r.profile);
}

async function main(): Promise<void> {
  await conv('conv 3x3 64->64 16x16', 64, 16, 64, 3);
  await conv('conv 3x3 32->32 14x14', 32, 14, 32, 3);
  await conv('conv 3x3 128->128 8x8', 128, 8, 128, 3);
  await conv('conv 1x1 128->128 16x16', 128, 16, 128, 1);
  await conv('conv 3x3 3->16 32x32', 3, 32, 16, 3);
  await conv('conv 3x3/2 64->128 16x16', 64, 16, 128, 3, 2);
  await conv('depthwise 3x3 64ch 16x16', 64, 16, 64, 3, 1, 64);
  await matmul('matmul 64x256x128', 64, 256, 128);
  await matmul('matmul 256x256x256', 256, 256, 256);
  for (const f of integerFolders().filter((x) => MODELS.includes(x.name))) {
    const out = join(work, f.name.replace(/\W/g, '_'));
    const g = generateFirmware({ model: f.model, platform: 'gemmini', out });
    const r = await runFirmware(out, arrays(join(f.dir, 'inputs.npz')).slice(0, g.manifest.inputs.length));
    const cmp = compareOutputs(g.manifest.outputs, r.outputs, arrays(join(f.dir, 'outputs.npz')));
    if (cmp.errors !== 0) throw new Error(`${f.name}: ${cmp.errors} of ${cmp.total} outputs differ from outputs.npz`);
    report(f.name, r.profile);
  }
}

main().finally(() => rmSync(work, { recursive: true, force: true }));
