/**
 * SpiNNaker2's ARM build (`gen build --target arm`): for every Models folder, the scheduler and worker images are
 * ARM ELFs (e_machine 40) with a Thumb entry, linked with -Werror by Debian's arm-none-eabi-gcc, and the sizes
 * `gen build` reports are the ELF's own, as binutils' arm-none-eabi-size reads them. The generator's budget holds
 * what links, and a model whose PE image would not fit is rejected at generation, with the same verdict the linker
 * gives. The images cannot run here (no SpiNNaker2 board or simulator): nothing is executed. The toolchain (Debian
 * gcc-arm-none-eabi, libnewlib-arm-none-eabi) is installed by .ci/run; without it the tests fail, saying so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { checkPeImages, type PeRoleBudget } from '../../generator/platforms/spinnaker2/pe-image.js';
import { SRAM } from '../../generator/platforms/spinnaker2/layout.js';
import type { Platform } from '../../generator/platforms/types.js';
import { missingToolchain, readImageFile } from '../../runtime/node/c-build.js';
import type { SizeReport } from '../../runtime/node/c-sizes.js';
import { gen } from '../helpers/cli.js';
import { integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('s2-arm');
const models = integerFolders().filter((f) => f.name.startsWith('Models/'));
const EM_ARM = 40; // ELF specification, e_machine
const measured = new Map<string, number>();

test('the ARM toolchain is installed (Debian packages; .ci/run installs them)', () => {
  assert.is(missingToolchain('arm'), undefined);
  assert.is(models.length, 5);
});

/** arm-none-eabi-size -A: every section's size by name (binutils, not the code under test). */
function binutilsSections(elf: string): Map<string, number> {
  const out = execFileSync('arm-none-eabi-size', ['-A', elf], { encoding: 'utf8' });
  const m = new Map<string, number>();
  for (const line of out.split('\n')) {
    const f = /^(\.\S+)\s+(\d+)\s+(\d+)$/.exec(line.trim());
    if (f) m.set(f[1], Number(f[2]));
  }
  return m;
}

/** arm-none-eabi-size -B: text, data, bss as binutils totals them. */
function binutilsTotals(elf: string): number[] {
  const line = execFileSync('arm-none-eabi-size', ['-B', elf], { encoding: 'utf8' }).trim().split('\n')[1];
  return line.trim().split(/\s+/).slice(0, 3).map(Number);
}

function checkImage(r: SizeReport, budget: PeRoleBudget): void {
  const elf = readFileSync(r.elf);
  assert.is(elf.readUInt32BE(0), 0x7f454c46, `${r.elf} is an ELF file`);
  assert.is(elf[4], 1, 'ELF32');
  assert.is(elf[5], 1, 'little-endian');
  assert.is(elf.readUInt16LE(0x12), EM_ARM, 'e_machine is ARM');
  assert.is(elf.readUInt32LE(0x18) & 1, 1, 'the entry point is Thumb code (bit 0 set)');
  // Every section the report gives has binutils' size; every allocated section binutils lists is in the report.
  const bin = binutilsSections(r.elf);
  for (const s of r.sections) assert.is(s.size, bin.get(s.name), `${budget.role} ${s.name}`);
  for (const name of ['.text', '.bss', '.stack']) assert.ok(r.sections.some((s) => s.name === name), `${budget.role} has ${name}`);
  assert.equal([r.text, r.data, r.bss], binutilsTotals(r.elf), `${budget.role}: text, data, bss as arm-none-eabi-size -B`);
  // The window: everything linked into it, the stack as the generator checked it, the estimate above what links.
  const [window, buffers] = r.regions!;
  assert.is(window.name, 'SRAM_FIRMWARE');
  assert.is(window.length, SRAM.reserved);
  assert.is(buffers.sections.length, 0, 'nothing is linked into the run-time buffer area');
  assert.is(bin.get('.stack'), budget.stack);
  const sum = r.text + r.data + r.bss;
  assert.ok(window.used >= sum && window.used < sum + 16, `the window holds every section, back to back up to alignment (${window.used}, ${sum})`);
  assert.ok(window.used <= window.length);
  assert.is(r.codeAndData, r.text + r.data + r.bss - budget.stack);
  assert.ok(r.codeAndData <= budget.codeAndData, `${budget.role}: ${r.codeAndData} bytes within the estimate ${budget.codeAndData}`);
}

for (const f of models) {
  test(`${f.name}: gen build --target arm makes a scheduler and a worker image and reports their real sizes`, () => {
    const out = join(dir, f.name.replace(/\//g, '_'));
    generateFirmware({ model: f.model, platform: 'spinnaker2', out });
    const r = gen('build', out, '--target', 'arm', '--json');
    assert.is(r.code, 0, r.stderr);
    const reports = JSON.parse(r.stdout) as SizeReport[];
    const budgets = readImageFile(out).arm!.roles;
    assert.equal(reports.map((x) => x.role), ['scheduler', 'worker']);
    reports.forEach((x, i) => checkImage(x, budgets[i]));
    // The scheduler's image carries no layer code; the worker's does.
    const symbols = (elf: string) => execFileSync('arm-none-eabi-nm', [elf], { encoding: 'utf8' });
    assert.not.match(symbols(reports[0].elf), /\bgemm_run\b/);
    assert.match(symbols(reports[1].elf), /\bgemm_run\b/);
    for (const x of reports) measured.set(x.role!, x.codeAndData);
    const text = gen('build', out, '--target', 'arm');
    assert.match(text.stdout, /arm build, scheduler image: .*s2_scheduler\.elf/);
    assert.match(text.stdout, /^\s+SRAM_FIRMWARE\s+0x0\s+32768\s+\d+\s+\.text \d+.*\.stack 2048$/m);
    assert.match(text.stdout, /^\s+SRAM_BUFFERS\s+0x8000\s+98304\s+0\s+\(nothing linked\)$/m);
    console.log(`  ${f.name}: ${reports.map((x) => `${x.role} text ${x.text} data ${x.data} bss ${x.bss}`).join('; ')}`);
  });
}

test('a model whose worker image would not fit its PE SRAM window is rejected at generation, as the linker would', () => {
  const worker = measured.get('worker');
  assert.ok(worker !== undefined && worker > 1000, 'the worker image was measured above');
  const f = models[0];
  const compiled = compileModel({ model: f.model, platform: 'spinnaker2' });
  // A stack that leaves one byte too few for the worker's real code and data (as arm-none-eabi-size measured it).
  const stack = SRAM.reserved - worker + 1;
  const variant: Platform = { ...compiled.platform, image: { ...compiled.platform.image!, stackBytes: stack } };
  const input = { graph: compiled.lowered, layers: compiled.layers, plan: compiled.plan, platform: variant };
  let err: unknown;
  try {
    variant.backend!.emit(input);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof GenError && err.kind === 'capacity', `rejected: ${String(err)}`);
  const m = /the worker PE image needs (\d+) bytes of a PE's SRAM .*stack (\d+)\), (\d+) bytes are available/.exec((err as Error).message);
  assert.ok(m, (err as Error).message);
  assert.ok(Number(m[1]) >= worker + stack, 'needed: at least the real code and data plus the stack');
  assert.is(Number(m[2]), stack);
  assert.is(Number(m[3]), SRAM.reserved);
  // The linker agrees: the same stack in a generated project's worker link script overflows the window.
  const out = join(dir, models[0].name.replace(/\//g, '_'));
  const ld = join(out, 'c', 'hal', 'spinnaker2', 'arm', 'worker.ld');
  writeFileSync(ld, readFileSync(ld, 'utf8').replace(/\. \+= 2048;/, `. += ${stack};`));
  const make = spawnSync('make', ['-s', '-C', join(out, 'c'), 's2_worker.elf', '-B'], { encoding: 'utf8' });
  assert.is.not(make.status, 0);
  assert.match(make.stderr, /region `SRAM_FIRMWARE' overflowed by \d+ bytes?/);
});

test('a worker whose layer buffers would end beyond the PE SRAM is rejected, naming the role and the bytes', () => {
  const platform = compileModel({ model: models[0].model, platform: 'spinnaker2' }).platform;
  const end = SRAM.bytes + 16;
  assert.throws(() => checkPeImages(platform, { worker: { end, what: "the buffers of layer 'x'" } }),
    (e: Error) => e instanceof GenError && e.message.includes(`the worker PE needs ${end} bytes of its SRAM`) && e.message.includes(`${SRAM.bytes} bytes are available`));
});

test.after(cleanup);
test.run();
