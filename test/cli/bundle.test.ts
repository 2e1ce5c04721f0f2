import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUNDLE_FILE, compileBundle, type LoadedBundle } from '../../generator/cli/bundle-loader.js';
import { gen as genFromModules } from '../../generator/cli/gen.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * `gen firmware` from the one-file bundle `npm run build` writes (generator/cli/bundle-loader.ts) generates the same
 * bytes as from the modules, with its code cache, without one, with one V8 refuses (the source changed) and with
 * one another Node made; bin/gen.js runs it from any folder.
 */
const CLI = join(REPO, 'dist', 'generator', 'cli');
const FILE = join(CLI, BUNDLE_FILE);
const MODEL = join(DEEPLOY, 'Models', 'CNN_Linear2', 'network.onnx');
const work = mkdtempSync(join(tmpdir(), 'firmgen-bundle-test-'));
let n = 0;

/** Every file below dir (relative path -> bytes). */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) files.set(relative(dir, join(e.parentPath, e.name)), readFileSync(join(e.parentPath, e.name), 'latin1'));
  }
  return files;
}

function assertSameTree(a: string, b: string): void {
  const ta = tree(a);
  const tb = tree(b);
  assert.equal([...tb.keys()].sort(), [...ta.keys()].sort());
  for (const [f, bytes] of ta) assert.ok(tb.get(f) === bytes, `${f} differs`);
}

const ARGS = [['--platform', 'siracusa', '--l1', '64000'], ['--platform', 'generic']];

async function generate(run: LoadedBundle['gen'], args: string[]): Promise<string> {
  const out = join(work, String(n++));
  const log = console.log;
  console.log = () => {};
  try {
    assert.is(await run(['node', 'gen', 'firmware', ...args, MODEL, '-o', out]), undefined);
  } finally {
    console.log = log;
  }
  return out;
}

const expected = new Map<string, string>();
async function fromModules(args: string[]): Promise<string> {
  const key = args.join(' ');
  if (!expected.has(key)) expected.set(key, await generate(genFromModules, args));
  return expected.get(key)!;
}

/** The bundle file with its header's fields changed and the source lengthened by `pad` spaces. */
function altered(change: Record<string, unknown>, pad = 0): Buffer {
  const data = readFileSync(FILE);
  const eol = data.indexOf(10);
  const header = { ...JSON.parse(data.toString('utf8', 0, eol)), ...change } as { source: number; cache: number };
  const source = data.subarray(eol + 1, eol + 1 + header.source);
  const cache = change.cache === 0 ? Buffer.alloc(0) : data.subarray(eol + 1 + header.source);
  header.source += pad;
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), source, Buffer.from(' '.repeat(pad)), cache]);
}

const CASES: [string, () => Buffer, LoadedBundle['cache']][] = [
  ['its code cache', () => readFileSync(FILE), 'used'],
  ['no code cache', () => altered({ cache: 0 }), 'none'],
  ['a cache V8 refuses (the source changed)', () => altered({}, 1), 'rejected'],
  ['a cache from another Node', () => altered({ node: 'v0.0.0' }), 'other-node'],
];

for (const [name, data, use] of CASES) {
  test(`the bundle with ${name} generates the modules' bytes`, async () => {
    assert.ok(existsSync(FILE), `${FILE} is missing: npm run build writes it when esbuild is installed`);
    const bundle = compileBundle(FILE, data());
    assert.is(bundle.cache, use);
    for (const args of ARGS) assertSameTree(await fromModules(args), await generate(bundle.gen, args));
  });
}

test('the bundle run from its code cache loads the commands left out of it (gen run --help)', async () => {
  const bundle = compileBundle(FILE, readFileSync(FILE));
  assert.is(bundle.cache, 'used');
  let help = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => ((help += chunk), true)) as typeof process.stdout.write;
  try {
    assert.is(await bundle.gen(['node', 'gen', 'run', '--help']), 0);
  } finally {
    process.stdout.write = write;
  }
  assert.match(help, /Usage: gen run/);
});

test('bin/gen.js runs the bundle from another folder, and a bad input is one line and exit 2', async () => {
  const out = join(work, 'bin-out');
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), 'firmware', ...ARGS[0], MODEL, '-o', out], { cwd: work, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assertSameTree(await fromModules(ARGS[0]), out);
  const bad = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), 'firmware', '--platform', 'nosuch', MODEL, '-o', join(work, 'bad')], { cwd: work, encoding: 'utf8' });
  assert.is(bad.status, 2);
  assert.is(bad.stderr.trim().split('\n').length, 1, bad.stderr);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
