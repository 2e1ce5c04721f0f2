import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY } from '../helpers/deeploy.js';
import { gen } from '../helpers/cli.js';

/** `gen build` reports the sections of each build, `gen run --on qemu` compares like the other runs. */
const work = mkdtempSync(join(tmpdir(), 'firmgen-cli-build-'));
const model = join(DEEPLOY, 'Models', 'miniMobileNet');
const out = join(work, 'mmn');

test('gen firmware writes a self-contained C project', () => {
  const r = gen('firmware', '--platform', 'siracusa', join(model, 'network.onnx'), '-o', out);
  assert.is(r.code, 0, r.stderr);
});

test('gen build --target rv32: text, data, bss and the use of each memory region', () => {
  const r = gen('build', out, '--target', 'rv32');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /rv32 build: .*network_rv32\.elf/);
  assert.match(r.stdout, /^\s+text\s+data\s+bss/m);
  assert.match(r.stdout, /^\s+L2\s+0x80000000\s+2097152\s+\d+\s+\.init \d+, \.text \d+.*\.fg_arena \d+$/m);
  assert.match(r.stdout, /^\s+L1\s+0x80200000\s+262144\s+\d+\s+\.fg_l1 \d+$/m);
  assert.match(r.stdout, /the generator's estimate for the board: \d+/);
  const again = gen('build', out, '--target', 'rv32', '--json');
  assert.is(again.code, 0);
  const sizes = JSON.parse(again.stdout) as { text: number; regions: { name: string }[] };
  assert.ok(sizes.text > 0);
  // L3 is listed on Siracusa whether or not the model keeps tensors there (then it holds nothing).
  assert.equal(sizes.regions.map((x) => x.name), ['L2', 'L1', 'L3']);
});

test('gen build --target host, an unknown target, and arm on a platform without PE images', () => {
  const r = gen('build', out, '--target', 'host');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /host build: .*network_host/);
  const bad = gen('build', out, '--target', 'x86');
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /expected host, rv32, rv32-xpulp or arm/);
  const arm = gen('build', out, '--target', 'arm');
  assert.is.not(arm.code, 0);
  assert.match(arm.stderr, /this platform has no ARM build \(only spinnaker2 has/);
});

test('gen run --on qemu prints the same Errors line as the other runs', () => {
  const args = ['--inputs', join(model, 'inputs.npz'), '--expect', join(model, 'outputs.npz')];
  for (const on of ['qemu', 'host', 'emulator']) {
    const r = gen('run', out, '--on', on, ...args);
    assert.is(r.code, 0, `${on}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^Errors: 0 out of \d+$/m);
  }
  const trace = gen('run', out, '--on', 'qemu', ...args, '--trace', join(work, 't.json'));
  assert.is(trace.code, 2);
  assert.match(trace.stderr, /--trace needs --on emulator or --on iss/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
