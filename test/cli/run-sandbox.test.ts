import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { zipSync } from 'fflate';
import { parseNpz, readNpz, writeNpy } from '../../generator/onnx/npy.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { npzKeys } from '../../generator/cli/run.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';
import { assertOneLineError } from '../helpers/cli.js';

/**
 * `gen run` as a sandbox: a firmware that loops (through the emulator or without it) is stopped, a manifest cannot
 * make it read outside the firmware folder, archives are bounded before they are inflated, every path given is
 * checked before the run, and it works from any folder with relative paths. Each failure: one line, exit 2.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-sandbox-'));
const model = join(DEEPLOY, 'Models', 'CNN_Linear2');
const inputs = join(model, 'inputs.npz');
const expected = join(model, 'outputs.npz');

function genIn(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd, timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const oneLineError = assertOneLineError;

const firmware = join(work, 'fw');
const made = genIn(work, 'firmware', '--platform', 'siracusa', join(model, 'network.onnx'), '-o', firmware);
if (made.code !== 0) throw new Error(`gen firmware failed: ${made.stderr}`);

/** A copy of the firmware whose AS entry first runs `code` (a fresh source, so the build cache cannot answer). */
function patched(name: string, code: string): string {
  const dir = join(work, name);
  cpSync(firmware, dir, { recursive: true });
  const f = join(dir, 'as', 'network.ts');
  const src = readFileSync(f, 'utf8');
  assert.ok(src.includes('function network(): void {'), 'the AS entry point');
  writeFileSync(f, src.replace('function network(): void {', `function network(): void {\n${code}\n`));
  return dir;
}

test('from another folder with relative paths: emulator, host and qemu runs equal the expected outputs', () => {
  const cwd = join(work, 'elsewhere');
  mkdirSync(cwd);
  // A fresh source so the asc build itself runs from this folder (a cache hit would hide a path bug).
  const dir = patched('fresh', `  // ${Date.now()}`);
  for (const on of ['emulator', 'host', 'qemu']) {
    const r = genIn(cwd, 'run', relative(cwd, dir), '--inputs', relative(cwd, inputs), '--expect', relative(cwd, expected), '--on', on);
    assert.is(r.code, 0, `${on}: ${r.stderr}`);
    assert.match(r.stdout, /Errors: 0 out of 10/, on);
  }
});

test('a firmware looping through the emulator meets the cycle watchdog, named with its layer', () => {
  const r = genIn(work, 'run', firmware, '--inputs', inputs, '--max-cycles', '50000');
  oneLineError(r, /watchdog: agent \d+ passed the cycle limit of 50000 \(raise it with --max-cycles\) in layer \d+ '[A-Za-z]+_\d+'$/);
});

test('a firmware looping without calling the emulator is stopped by the wall-clock bound', () => {
  const dir = patched('spin', '  let spin: i32 = 1;\n  while (spin != 0) { spin = spin | 1; }');
  const t0 = performance.now();
  const r = genIn(work, 'run', dir, '--inputs', inputs, '--timeout', '2');
  oneLineError(r, /ran longer than 2 s of wall time/);
  assert.ok(performance.now() - t0 < 60_000, 'stopped, not left running');
});

test('a trap outside the linear memory names the layer', () => {
  const dir = patched('oob', '  store<u8>(0xfffffff0, 1);');
  oneLineError(genIn(work, 'run', dir, '--inputs', inputs), /the firmware trapped: memory access out of bounds outside any layer \(the linear memory holds \d+ bytes\)/);
});

test('a broken AS source: the first compiler error in one line, the whole log in a file', () => {
  const dir = patched('broken', '  let = ;');
  const r = genIn(work, 'run', dir, '--inputs', inputs);
  oneLineError(r, /asc failed building .*network\.ts: ERROR TS\d+.*the compiler's output: .*asc-errors\.log/);
  assert.ok(existsSync(join(dir, 'as', 'asc-errors.log')));
});

test('a manifest image path leaving the firmware folder is refused before anything is read', () => {
  const dir = join(work, 'escape');
  cpSync(firmware, dir, { recursive: true });
  const m = JSON.parse(readFileSync(join(dir, 'firmware.json'), 'utf8')) as { images?: { file: string }[] };
  assert.ok(m.images && m.images.length > 0, 'the manifest lists images');
  m.images[0].file = '../../../../../../etc/passwd';
  writeFileSync(join(dir, 'firmware.json'), JSON.stringify(m));
  oneLineError(genIn(work, 'run', dir, '--inputs', inputs), /memory image '.*passwd' lies outside the firmware folder/);
});

test('paths checked before the run: expected outputs of the wrong shape, an unwritable --outputs or --report', () => {
  oneLineError(genIn(work, 'run', firmware, '--inputs', inputs, '--expect', inputs), /array 0 has shape \[1, 3, 32, 32\], output 'output' has \[1, 10\]/);
  oneLineError(genIn(work, 'run', firmware, '--inputs', inputs, '--outputs', join(work, 'no', 'such', 'o.npz')), /--outputs: cannot write here/);
  oneLineError(genIn(work, 'run', firmware, '--inputs', inputs, '--report', work), /--report: cannot write here \(it is a folder\)/);
  oneLineError(genIn(work, 'run', firmware, '--inputs', inputs, '--max-cycles', 'lots'), /--max-cycles lots: expected a number/);
});

test('--outputs names the arrays after the graph outputs; --on host alone prints a summary', () => {
  const out = join(work, 'o.npz');
  const r = genIn(work, 'run', firmware, '--inputs', inputs, '--outputs', out, '--on', 'host');
  assert.is(r.code, 0, r.stderr);
  const arrays = readNpz(out);
  assert.equal([...arrays.keys()], ['output']);
  assert.equal([...arrays.get('output')!.data].map(Number), [...[...readNpz(expected).values()][0].data].map(Number));
  const s = genIn(work, 'run', firmware, '--inputs', inputs, '--on', 'host');
  assert.is(s.code, 0, s.stderr);
  const want = [...[...readNpz(expected).values()][0].data].slice(0, 8).join(' ');
  assert.match(s.stdout, `output int8[1, 10]: ${want} ...`);
});

test('archive keys from output names: only safe characters, never a path, distinct', () => {
  assert.equal(npzKeys(['out', '../../x', 'a/b', 'a_b', '', '.hidden', 'é\n']), ['out', '__.._x', 'a_b', 'a_b_1', 'output_4', '_hidden', '__']);
});

/** An archive whose directory declares `size` inflated bytes for one tiny array (what a zip bomb looks like). */
function declaringSize(size: number): Uint8Array {
  const zip = zipSync({ 'x.npy': writeNpy(ndarray('int8', [4], [1, 2, 3, 4])) }, { level: 6 });
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // Local header: uncompressed size at +22; central directory entry (signature 0x02014b50): at +24.
  v.setUint32(22, size, true);
  for (let p = 0; p + 4 <= zip.length; p++) if (v.getUint32(p, true) === 0x02014b50) v.setUint32(p + 24, size, true);
  return zip;
}

test('an archive declaring more than the bound is refused from its directory, before inflating', () => {
  assert.throws(() => parseNpz(declaringSize(2 ** 31), 64 << 20), /inflate to more than 67108864 bytes \(x\.npy: 2147483648 bytes\)/);
  const f = join(work, 'bomb.npz');
  writeFileSync(f, declaringSize(2 ** 31));
  oneLineError(genIn(work, 'run', firmware, '--inputs', f), /bomb\.npz: the arrays inflate to more than \d+ bytes/);
});

test('an .npy header declaring more elements than its data is refused before allocating them', () => {
  const header = "{'descr': '|i1', 'fortran_order': False, 'shape': (2147483647,), }".padEnd(117, ' ') + '\n';
  const npy = new Uint8Array(10 + header.length + 4);
  npy.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(npy.buffer).setUint16(8, header.length, true);
  npy.set(new TextEncoder().encode(header), 10);
  npy.set([1, 2, 3, 4], 10 + header.length);
  assert.throws(() => parseNpz(zipSync({ 'x.npy': npy })), /declares shape \(2147483647\) of 2147483647 bytes, the file holds 4/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
