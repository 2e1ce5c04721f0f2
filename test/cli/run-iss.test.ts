import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * `gen run --on iss`: the rv32 ELF that qemu runs, on the emulator's cycle-counting RV32 core. Outputs equal the
 * peer's expected outputs (generic, Siracusa tiled and untiled, from another folder with relative paths); every
 * layer of the model gets a row of measured cycles that together fit inside the network's span; a store outside
 * every memory is a one-line fault.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-iss-run-'));
const cwd = join(work, 'elsewhere');
mkdirSync(cwd);

function gen(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd, timeout: 300_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const CASES: [string, string, string[]][] = [
  ['Models/CNN_Linear1', 'generic', []],
  ['Models/miniMobileNetv2', 'siracusa', ['--l1', '20000']],
  ['Models/CNN_Linear2', 'siracusa', ['--untiled']],
];

for (const [folder, platform, flags] of CASES) {
  test(`${folder} on ${platform} ${flags.join(' ')}: exact, a row per layer`, () => {
    const src = join(DEEPLOY, folder);
    const out = join(work, `${folder.replace(/\W/g, '_')}-${platform}`);
    const made = gen('firmware', '--platform', platform, relative(cwd, join(src, 'network.onnx')), '-o', relative(cwd, out), ...flags);
    assert.is(made.code, 0, made.stderr);
    const r = gen('run', relative(cwd, out), '--inputs', relative(cwd, join(src, 'inputs.npz')), '--expect', relative(cwd, join(src, 'outputs.npz')), '--on', 'iss');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /Errors: 0 out of \d+/);
    const manifest = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')) as { layers: { id: number; kernel: string }[] };
    // A cluster run adds the cores' instructions and stalls after the share.
    const rows = [...r.stdout.matchAll(/^ *(\d+) {2}\S.*? (\d+) +\S+ +[\d.]+%( .*)?$/gm)].map((m) => ({ id: Number(m[1]), cycles: Number(m[2]), extra: m[3] }));
    const network = Number(/^Cycles: (\d+)$/m.exec(r.stdout)?.[1]);
    const compute = manifest.layers.filter((l) => l.kernel !== 'alias');
    assert.ok(rows.length >= compute.length, `a row per computing layer (${rows.length} rows, ${compute.length} layers)`);
    assert.ok(rows.every((x) => x.cycles > 0), 'every layer takes cycles');
    if (platform === 'siracusa') {
      assert.match(r.stdout, /fabric controller \+ 8 cluster cores/);
      assert.ok(rows.every((x) => x.extra && /^ +\d+k? /.test(x.extra)), 'every cluster row has its instruction count');
    }
    const sum = rows.reduce((n, x) => n + x.cycles, 0);
    assert.ok(sum <= network && sum > 0.9 * network, `layers ${sum} within the network span ${network}`);
  });
}

test('a store outside every memory: one line naming the fault, pc and address', () => {
  const src = join(DEEPLOY, 'Models', 'CNN_Linear1');
  const out = join(work, 'fault');
  cpSync(join(work, 'Models_CNN_Linear1-generic'), out, { recursive: true });
  const f = join(out, 'c', 'network.c');
  const c = readFileSync(f, 'utf8');
  const at = c.indexOf('hal_layer_begin(0);');
  assert.ok(at > 0, 'the first layer marker');
  writeFileSync(f, `${c.slice(0, at)}*(volatile int *)0x40 = 1;\n  ${c.slice(at)}`);
  const r = gen('run', out, '--inputs', join(src, 'inputs.npz'), '--on', 'iss');
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /fault: hart 0: store outside every region at pc 0x[0-9a-f]{8} \(instruction 0x[0-9a-f]+\), address 0x00000040/);
});

test('--hotspots: from another folder, the functions and hottest instructions; without --on iss one line, exit 2', () => {
  const src = join(DEEPLOY, 'Models', 'CNN_Linear1');
  const out = relative(cwd, join(work, 'Models_CNN_Linear1-generic'));
  const inputs = relative(cwd, join(src, 'inputs.npz'));
  const r = gen('run', out, '--inputs', inputs, '--on', 'iss', '--hotspots');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /Hotspots \(cycles of every hart/);
  assert.match(r.stdout, /\nL_\d+_\w+ +\d+ +\d+\.\d%/, 'a layer function with its cycles and share');
  assert.match(r.stdout, /Hottest instructions:\n +0x[0-9a-f]+ /);
  const bad = gen('run', out, '--inputs', inputs, '--hotspots');
  assert.is(bad.code, 2, bad.stderr);
  assert.is(bad.stderr.trim(), 'error: --hotspots needs --on iss');
  assert.is(bad.stdout, '', 'nothing ran');
});

test('--hotspots <layer>: the profile within that layer; a layer the firmware lacks is one line, exit 2', () => {
  const src = join(DEEPLOY, 'Models', 'CNN_Linear1');
  const out = relative(cwd, join(work, 'Models_CNN_Linear1-generic'));
  const inputs = relative(cwd, join(src, 'inputs.npz'));
  const r = gen('run', out, '--inputs', inputs, '--on', 'iss', '--hotspots', '2');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /Hotspots \(cycles of every hart within layer 2 \(cycles \d+ \.\. \d+\)/);
  const fns = [...r.stdout.matchAll(/^(L_\d+)_\w+ +\d+ /gm)].map((m) => m[1]);
  assert.ok(fns.length > 0 && fns.every((f) => f === 'L_2'), `only layer 2's functions: ${fns.join(', ')}`);
  const bad = gen('run', out, '--inputs', inputs, '--on', 'iss', '--hotspots', '999');
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr.trim(), /^error: --hotspots 999: expected a layer id of the firmware \(0, /);
  assert.is(bad.stderr.trim().split('\n').length, 1);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
