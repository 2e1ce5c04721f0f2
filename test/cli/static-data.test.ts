import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { staticDataEnd } from '../../runtime/node/wasm-data.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * The AS firmware's static data must fit its 4 MiB window (docs/firmware-abi.md): past it they would lie over the
 * chip's first region. A firmware whose hand-edited AS embeds 5 MiB of tables is refused at build in one line
 * (exit 2) naming the size and the limit; the same firmware with 1 MiB more builds and runs.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-static-'));
const model = join(DEEPLOY, 'Models', 'CNN_Linear2');
const inputs = join(model, 'inputs.npz');

function gen(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd: work, timeout: 180_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const firmware = join(work, 'fw');
const made = gen('firmware', '--platform', 'generic', join(model, 'network.onnx'), '-o', firmware);
if (made.code !== 0) throw new Error(`gen firmware failed: ${made.stderr}`);

/** A copy whose AS entry first touches a static table of `bytes` bytes of non-zero data (so it is a data segment). */
function withTable(name: string, bytes: number): string {
  const dir = join(work, name);
  cpSync(firmware, dir, { recursive: true });
  const f = join(dir, 'as', 'network.ts');
  const src = readFileSync(f, 'utf8');
  assert.ok(src.includes('function network(): void {'), 'the AS entry point');
  const table = `const TABLE = memory.data<u8>([${Array.from({ length: bytes }, (_, i) => (i % 251) + 1).join(',')}]);`;
  writeFileSync(f, src.replace('function network(): void {', `${table}\nfunction network(): void {\n  store<u8>(TABLE + ${bytes - 1}, load<u8>(TABLE));`));
  return dir;
}

test('the data section parser: offsets and lengths of active segments', () => {
  // magic, version; data section (11): 2 segments: active at 0x400000 (i32.const LEB 0x80 0x80 0x80 0x02), 3 bytes;
  // passive (flags 1), 5 bytes (not placed).
  const seg1 = [0x00, 0x41, 0x80, 0x80, 0x80, 0x02, 0x0b, 3, 1, 2, 3];
  const seg2 = [0x01, 5, 0, 0, 0, 0, 0];
  const body = [2, ...seg1, ...seg2];
  const wasm = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 11, body.length, ...body]);
  assert.is(staticDataEnd(wasm), 0x400000 + 3);
});

test('static data past the 4 MiB window: one line, exit 2, size and limit named', () => {
  const r = gen('run', withTable('big', 5 * 1024 * 1024), '--inputs', inputs);
  assert.is(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, r.stderr);
  assert.match(lines[0], /^error: .*the AS firmware's static data take (\d+) bytes \(5\.\d\d MiB\), more than its window of 4194304 bytes/);
});

test('static data inside the window build and run', () => {
  const r = gen('run', withTable('small', 1024 * 1024), '--inputs', inputs);
  assert.is(r.code, 0, r.stderr);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
