import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { buildWithSizes, missingToolchain, readImageFile } from '../../runtime/node/c-build.js';
import type { SizeReport } from '../../runtime/node/c-sizes.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runQemu } from '../../runtime/node/qemu.js';
import { runFirmware } from '../../runtime/node/run.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { GENERIC_RV32, inRv32Sample } from '../helpers/rv32-sample.js';

/**
 * The C runs on an independent instruction-set emulator: Siracusa C (every Models folder and 24 Kernels/Integer
 * folders) and generic C (a few) cross-compiled for bare-metal rv32 (a fork on one hart, DMA as memcpy) and run by
 * qemu-system-riscv32 give the outputs of outputs.npz, of the emulator and of the host-built C. The section report of
 * each ELF is checked too. Needs the Debian toolchain (.ci/run installs it): without it these tests fail, saying what
 * to install; none is skipped.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-rv32-'));
const all = integerFolders();
const cases = [
  ...all.filter((f) => inRv32Sample(f, all)).map((f) => ({ platform: 'siracusa', f })),
  ...all.filter((f) => GENERIC_RV32.includes(f.name)).map((f) => ({ platform: 'generic', f })),
];
const times = { build: 0, qemu: 0, builds: 0 };

test('the rv32 toolchain is installed (Debian packages; .ci/run installs them)', () => {
  assert.is(missingToolchain('rv32'), undefined);
});

test('the sample: every Models folder and at least 20 Kernels/Integer folders, generic for a few', () => {
  assert.is(cases.filter((c) => c.f.name.startsWith('Models/') && c.platform === 'siracusa').length, 5);
  assert.ok(cases.filter((c) => c.f.name.startsWith('Kernels/Integer/') && c.platform === 'siracusa').length >= 20);
  assert.is(cases.filter((c) => c.platform === 'generic').length, GENERIC_RV32.length);
});

function same(outputs: string[], got: NDArray[], want: NDArray[], what: string): void {
  const c = compareOutputs(outputs, got, want);
  assert.is(c.errors, 0, `${what}: ${c.details.join('; ')}`);
  assert.ok(c.total > 0);
}

/** The report is plausible: every planned section where the link script puts it, sized as the generator planned. */
function checkSizes(s: SizeReport, out: string): void {
  const { budget } = readImageFile(out);
  assert.ok(budget && s.regions, 'the rv32 report has a budget and regions');
  const home = s.regions.find((r) => r.name === budget.memory)!;
  const section = (name: string) => s.sections.find((x) => x.name === name);
  assert.ok(home.sections.some((x) => x.name === '.text') && section('.text')!.size > 1000, 'code in the home memory');
  assert.is(section('.fg_arena')?.size, budget.arena, 'the arena section holds the planned arena');
  assert.ok(home.sections.includes(section('.fg_arena')!), 'the arena in the home memory');
  if (budget.tiles && budget.tiles.buffers > 0) {
    const l1 = s.regions.find((r) => r.name === budget.tiles!.memory)!;
    assert.is(l1.sections.find((x) => x.name === '.fg_l1')?.size, budget.tiles.buffers, 'tile buffers in L1');
  }
  for (const r of s.regions) assert.ok(r.used <= r.length, `${r.name} holds what is placed in it`);
  assert.ok(s.text + s.data + s.bss >= s.codeAndData);
  assert.ok(s.codeAndData <= budget.codeAndData, `code and data ${s.codeAndData} within the estimate ${budget.codeAndData}`);
  assert.ok(home.used <= budget.needed, `${home.name} used ${home.used} within the checked ${budget.needed}`);
}

for (const { platform, f } of cases) {
  test(`${platform} ${f.name}: qemu rv32 = host C = emulator = golden`, async () => {
    const out = join(work, `${platform}_${f.name.replace(/\//g, '_')}`);
    const { manifest } = generateFirmware({ model: f.model, platform, out });
    const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, manifest.inputs.length);
    const golden = arrays(join(f.dir, 'outputs.npz'));
    same(manifest.outputs, (await runFirmware(out, inputs)).outputs, golden, 'emulator');
    same(manifest.outputs, runHostC(out, inputs), golden, 'host C');
    const { build, sizes } = buildWithSizes(out, 'rv32');
    checkSizes(sizes, out);
    const q = runQemu(out, inputs);
    same(manifest.outputs, q.outputs, golden, 'qemu rv32');
    times.build += build.ms;
    times.qemu += q.ms;
    times.builds++;
  });
}

test.after(() => {
  rmSync(work, { recursive: true, force: true });
  if (times.builds > 0) {
    console.log(`rv32: ${times.builds} cross builds ${(times.build / 1000).toFixed(1)} s, qemu runs ${(times.qemu / 1000).toFixed(1)} s`);
  }
});
test.run();
