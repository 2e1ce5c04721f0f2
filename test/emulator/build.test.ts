/** The firmware build: its own config (never the emulator's asconfig.json) and the content-hash cache. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { buildFirmware } from '../../runtime/node/asc-build.js';
import { runFirmware } from '../../runtime/node/run.js';
import { makeFirmware } from './fixture.js';

const TRIVIAL = `
import * as chip from "./hal/chip";
chip.layer_begin(0);
chip.layer_end(0);
`;

test('comments do not reach the module: sources differing in them only build the same bytes, and share a cache entry', async () => {
  const saved = process.env.FIRMGEN_CACHE;
  const caches = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'firmgen-cache-')));
  // A '//' and a '/*' inside strings are string (the message's text reaches the module); a block comment before code
  // on its line keeps that code's column (abort's position arguments are in the module).
  const variant = (c: string, block: string) => `
// layer 0: ${c}
import * as chip from "./hal/chip";
/* ${block}
   a second line */ chip.layer_begin(0); // ${c}
const s = "not // a comment /* either */";
if (s.length == 0) abort(s);
chip.layer_end(0);
`;
  try {
    const built: { path: string; cached: boolean }[] = [];
    for (const [k, [c, block]] of [['Conv_0', 'abc'], ['renamed */ node', 'xyz']].entries()) {
      const out = makeFirmware({ platform: 'generic', network: variant(c, block), tensors: [] });
      process.env.FIRMGEN_CACHE = caches[k];
      const b = await buildFirmware(join(out, 'as'));
      built.push({ path: b.wasmPath, cached: b.cached });
      process.env.FIRMGEN_CACHE = caches[0];
      // Built apart, each in its own cache; then the second is a hit in the first's.
      if (k === 1) assert.is((await buildFirmware(join(out, 'as'))).cached, true);
    }
    assert.equal(built.map((b) => b.cached), [false, false]);
    assert.ok(readFileSync(built[0].path).equals(readFileSync(built[1].path)), 'the same module bytes');
    // A string's text is code: a change inside one rebuilds.
    const out = makeFirmware({ platform: 'generic', network: variant('Conv_0', 'abc').replace('not //', 'not  //'), tensors: [] });
    assert.is((await buildFirmware(join(out, 'as'))).cached, false);
  } finally {
    if (saved === undefined) delete process.env.FIRMGEN_CACHE;
    else process.env.FIRMGEN_CACHE = saved;
    for (const c of caches) rmSync(c, { recursive: true, force: true });
  }
});

test('the second build of the same sources is a cache hit; an edit rebuilds', async () => {
  const saved = process.env.FIRMGEN_CACHE;
  const cache = mkdtempSync(join(tmpdir(), 'firmgen-cache-'));
  process.env.FIRMGEN_CACHE = cache;
  try {
    const out = makeFirmware({ platform: 'generic', network: TRIVIAL, tensors: [] });
    const first = await buildFirmware(join(out, 'as'));
    const second = await buildFirmware(join(out, 'as'));
    assert.is(first.cached, false);
    assert.is(second.cached, true);
    assert.is(second.wasmPath, first.wasmPath);
    assert.ok(second.ms < first.ms / 10, `cached ${second.ms} ms vs ${first.ms} ms`);
    writeFileSync(join(out, 'as', 'network.ts'), `${TRIVIAL}chip.compute(0, 1);\n`);
    const third = await buildFirmware(join(out, 'as'));
    assert.is(third.cached, false);
    assert.is.not(third.wasmPath, first.wasmPath);
  } finally {
    if (saved === undefined) delete process.env.FIRMGEN_CACHE;
    else process.env.FIRMGEN_CACHE = saved;
    rmSync(cache, { recursive: true, force: true });
  }
});

test("the firmware imports the emulator's memory and device API and exports only _start and memory", async () => {
  const out = makeFirmware({ platform: 'generic', network: TRIVIAL, tensors: [] });
  const { wasmPath } = await buildFirmware(join(out, 'as'));
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
  assert.ok(imports.includes('env.memory'));
  assert.ok(imports.includes('chip.layer_begin'));
  assert.equal(WebAssembly.Module.exports(module).map((e) => e.name).sort(), ['_start', 'memory']);
});

test('a compile error is one GenError with the diagnostics', async () => {
  const out = makeFirmware({ platform: 'generic', network: 'let x: i32 = "not a number";\n', tensors: [] });
  try {
    await buildFirmware(join(out, 'as'));
    assert.unreachable('built');
  } catch (e) {
    assert.instance(e, GenError);
    assert.match((e as Error).message, /asc failed building .*network\.ts/);
    assert.match((e as Error).message, /TS2322/);
  }
});

test('a device call the emulator lacks fails to link, by name', async () => {
  const out = makeFirmware({
    platform: 'generic',
    network: '@external("chip", "teleport") declare function teleport(): void;\nteleport();\n',
    tensors: [],
  });
  try {
    await runFirmware(out, []);
    assert.unreachable('ran');
  } catch (e) {
    assert.instance(e, GenError);
    assert.match((e as Error).message, /does not link against the emulator.*teleport/);
  }
});

test('console output of the firmware is returned', async () => {
  const out = makeFirmware({ platform: 'generic', network: 'console.log("hello from the firmware");\n', tensors: [] });
  const r = await runFirmware(out, []);
  assert.is(r.stdout, 'hello from the firmware\n');
});

test.run();
