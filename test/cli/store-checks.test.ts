import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';
import { assertOneLineError } from '../helpers/cli.js';

/**
 * The emulator's store checks on deliberately broken firmware (generated AS, hand-edited in a temp folder): a
 * kernel storing past its tile's L1 buffer, and a kernel whose output buffer lies in Siracusa's L3 (only the
 * HyperRAM DMA reaches it). Each is one fault line, exit 2, naming the core (tiles), address, region and layer;
 * the unedited firmware runs exactly.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-store-checks-'));
const model = join(DEEPLOY, 'Models', 'CNN_Linear2');
const inputs = join(model, 'inputs.npz');
const expected = join(model, 'outputs.npz');

function gen(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd: work, timeout: 180_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function firmware(name: string, ...flags: string[]): string {
  const dir = join(work, name);
  const r = gen('firmware', '--platform', 'siracusa', ...flags, join(model, 'network.onnx'), '-o', dir);
  if (r.code !== 0) throw new Error(`gen firmware failed: ${r.stderr}`);
  return dir;
}

function edited(from: string, name: string, edit: (src: string) => string): string {
  const dir = join(work, name);
  cpSync(from, dir, { recursive: true });
  const f = join(dir, 'as', 'network.ts');
  const src = readFileSync(f, 'utf8');
  const out = edit(src);
  assert.ok(out !== src, 'the edit applied');
  writeFileSync(f, out);
  return dir;
}

const oneLineFault = assertOneLineError;

const tiled = firmware('tiled', '--l1', '16000');

test('unedited: the tile checks pass and the outputs are exact', () => {
  const r = gen('run', tiled, '--inputs', inputs, '--expect', expected);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /Errors: 0 out of 10/);
});

test('a kernel storing one byte past its tile buffer: the core, address, region and layer named', () => {
  const src = readFileSync(join(tiled, 'as', 'network.ts'), 'utf8');
  const [, bytes] = /tile_guard\(args\.y, (\d+), 1\);/.exec(src)!;
  const dir = edited(tiled, 'past', (s) => s.replace(/(function (L_0_\w+_t0)\(raw: usize\): void \{\n  const a = changetype<\2_args>\(raw\);\n)/,
    `$1  if (core_id() == 3) store<u8>(a.y + ${bytes}, ~load<u8>(a.y + ${bytes}));\n`));
  oneLineFault(gen('run', dir, '--inputs', inputs),
    new RegExp(`^error: .*tile check: core 3 stored at 0x1000[0-9a-f]{4} \\(region L1\\), past its tile buffer of ${bytes} bytes at 0x1000[0-9a-f]{4} \\(region L1\\) in layer 0 '\\w+'`));
});

test('a kernel storing just before its tile buffer is caught too', () => {
  const dir = edited(tiled, 'before', (s) => s.replace(/(function (L_0_\w+_t0)\(raw: usize\): void \{\n  const a = changetype<\2_args>\(raw\);\n)/,
    '$1  if (core_id() == 0) store<u8>(a.y - 1, ~load<u8>(a.y - 1));\n'));
  oneLineFault(gen('run', dir, '--inputs', inputs), /^error: .*tile check: core 0 stored at 0x1000[0-9a-f]{4} \(region L1\), before its tile buffer of \d+ bytes .* in layer 0 /);
});

test('a kernel whose output buffer lies in L3: refused before it runs, address and layer named', () => {
  const untiled = firmware('untiled', '--untiled');
  const dir = edited(untiled, 'l3', (s) => {
    const [, sym] = /check\((t_\w+), \d+, 1\);/.exec(s)!;
    return s.replace(new RegExp(`(const ${sym}: usize = )region_base\\(\\d+\\) \\+ \\d+;`), '$1region_base(2) + 0;');
  });
  oneLineFault(gen('run', dir, '--inputs', inputs),
    /^error: .*check: write of \d+ bytes at 0x80000000 \(region L3, which only a DMA engine reaches: no core loads or stores there\) in layer 0 '\w+'/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
