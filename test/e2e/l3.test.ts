import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { siracusa } from '../../generator/platforms/siracusa/platform.js';
import { farCopyCycles } from '../../generator/platforms/types.js';
import { buildWithSizes } from '../../runtime/node/c-build.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runQemu } from '../../runtime/node/qemu.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';

/**
 * L3 as a home memory on Siracusa: with an L2 too small for every tensor, the generator keeps some in L3 and stages
 * them through L2 with blocking HyperRAM DMA copies (generator/midend/l3.ts). Each case still matches outputs.npz
 * exactly in the emulator (where the cluster DMA cannot reach L3, so a tensor not staged would fault) and in the
 * host-built C; one runs the rv32 ELF under qemu too.
 */
const CASES: { name: string; l2: number; buffering?: 'single' }[] = [
  { name: 'Models/CNN_Linear2', l2: 100000 },
  { name: 'Models/CNN_Linear1', l2: 90000 },
  { name: 'Models/miniMobileNetv2', l2: 10000 },
  { name: 'Models/miniMobileNetv2', l2: 10000, buffering: 'single' },
  { name: 'Models/miniMobileNet', l2: 6000 },
  { name: 'Kernels/Integer/Attention', l2: 30000 },
];

const work = mkdtempSync(join(tmpdir(), 'firmgen-l3-'));
const folders = new Map(integerFolders().map((f) => [f.name, f]));

function same(outputs: string[], got: NDArray[], want: NDArray[], what: string): void {
  const c = compareOutputs(outputs, got, want);
  assert.is(c.errors, 0, `${what}: ${c.details.join('; ')}`);
  assert.ok(c.total > 0);
}

for (const c of CASES) {
  test(`${c.name} L2 ${c.l2}${c.buffering ? ' single' : ''}: tensors in L3, emulator = host C = golden`, async () => {
    const f = folders.get(c.name)!;
    const out = join(work, `${c.name.replace(/\//g, '_')}_${c.l2}_${c.buffering ?? 'double'}`);
    const r = generateFirmware({ model: f.model, platform: 'siracusa', out, l2: c.l2, buffering: c.buffering });
    const m = r.manifest;
    assert.ok(r.plan.used <= c.l2, `L2 plan ${r.plan.used} within ${c.l2}`);
    const far = m.memory.far;
    assert.ok(far && far.tensors > 0 && far.used <= far.size, 'some tensors at home in L3');
    const inL3 = m.tensors.filter((t) => t.region === 'L3');
    // The plan is drawn for L3 too: one box per tensor there.
    assert.ok(existsSync(join(out, 'memory-L3.svg')));
    for (const t of inL3) assert.ok(readFileSync(join(out, 'memory-L3.svg'), 'utf8').includes(t.name), `${t.name} drawn`);
    assert.is(new Set(inL3.map((t) => t.name)).size, far.tensors);
    const copies = m.layers.filter((l) => l.kernel === 'l3copy');
    assert.ok(copies.length >= inL3.length, 'every L3 tensor is moved by a copy layer');
    for (const l of copies) {
      assert.is(l.engine, 'l3dma');
      assert.ok([...(l.reads ?? []), ...(l.writes ?? [])].some((t) => inL3.some((x) => x.name === t)), `${l.name} touches L3`);
    }
    // No kernel of the cores or the cluster DMA names an L3 tensor: only copy layers do.
    for (const l of m.layers.filter((x) => x.kernel !== 'l3copy')) {
      for (const t of [...(l.reads ?? []), ...(l.writes ?? [])]) assert.not.ok(inL3.some((x) => x.name === t), `${l.name} reads ${t} in L3`);
    }
    const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, m.inputs.length);
    const golden = arrays(join(f.dir, 'outputs.npz'));
    const run = await runFirmware(out, inputs);
    same(m.outputs, run.outputs, golden, 'emulator');
    // Each copy layer costs what the generator's description of the HyperRAM DMA says (the emulator's own model).
    assert.is(run.l3.length, copies.length);
    for (const l of copies) {
      const row = run.profile.layers.find((x) => x.layer === l.id)!;
      const bytes = m.tensors.find((t) => t.name === l.writes![0])!.bytes;
      assert.is(row.cycles, farCopyCycles(siracusa.far!, bytes), `${l.name}: ${bytes} bytes`);
    }
    same(m.outputs, runHostC(out, inputs), golden, 'host C');
    rmSync(out, { recursive: true, force: true });
  });
}

test('CNN_Linear2 with 100000 bytes of L2 under qemu: the rv32 ELF has its L3 section and the same outputs', async () => {
  const f = folders.get('Models/CNN_Linear2')!;
  const out = join(work, 'qemu');
  const r = generateFirmware({ model: f.model, platform: 'siracusa', out, l2: 100000 });
  const { sizes } = buildWithSizes(out, 'rv32');
  const l3 = sizes.regions?.find((x) => x.name === 'L3');
  assert.is(l3?.sections.find((s) => s.name === '.fg_l3')?.size, Math.ceil(r.plan.far!.used / 8) * 8);
  const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, r.manifest.inputs.length);
  same(r.manifest.outputs, runQemu(out, inputs).outputs, arrays(join(f.dir, 'outputs.npz')), 'qemu rv32');
});

test('without L3 (--l3 0) the same model is rejected at generation, naming L2 and the bytes', () => {
  const f = folders.get('Models/CNN_Linear2')!;
  const out = join(work, 'no-l3');
  assert.throws(() => generateFirmware({ model: f.model, platform: 'siracusa', out, l2: 100000, l3: 0 }),
    (e: Error) => /the model needs \d+ bytes of L2 .*largest tensor '.+' \d+ bytes\), 100000 bytes are available/.test(e.message));
  assert.throws(() => generateFirmware({ model: f.model, platform: 'generic', out, l3: 1000 }),
    (e: Error) => /--l3 applies to a platform with a far memory \(siracusa\), not to generic/.test(e.message));
});

test('a model that fits L2 keeps everything there: no copy layers, no L3 image', () => {
  const f = folders.get('Models/CNN_Linear2')!;
  const r = generateFirmware({ model: f.model, platform: 'siracusa', out: join(work, 'fits') });
  assert.is(r.plan.far, undefined);
  assert.not.ok(r.manifest.layers.some((l) => l.kernel === 'l3copy'));
  assert.not.ok(r.manifest.images.some((i) => i.region === 'L3'));
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
