import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cL1RecordWords, checkCImage, codeBytes, cTileBytes } from '../../generator/backend/c-image.js';
import type { MemoryPlan } from '../../generator/midend/plan.js';
import type { TilingPlan } from '../../generator/midend/tiling/plan-tiles.js';
import { generic } from '../../generator/platforms/generic/platform.js';
import { siracusa } from '../../generator/platforms/siracusa/platform.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { runFirmware } from '../../runtime/node/run.js';
import { gen } from '../helpers/cli.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/**
 * A model whose C would not fit the board's memories is rejected when the firmware is generated (naming the memory,
 * the bytes needed and available, nothing written), not when the board's linker runs.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-cimage-'));
const KiB = 1024;
const MiB = 1024 * KiB;

const plan = (used: number): MemoryPlan => ({ used } as MemoryPlan);
const tiles = (l1Peak: number): TilingPlan => ({ layers: new Map([[0, { tiles: [], operands: [] }]]), l1Budget: l1Peak, l1Peak, ms: 0 } as unknown as TilingPlan);

test('Siracusa: weights that fill the L2 arena leave no room for the L1 load image: rejected at generation, untiled accepted', () => {
  // 2000 x 1000 int8 weights, the tile table, input and int32 outputs fit the planner's 1984 KiB arena (2031616
  // bytes), but the C image adds the fabric controller's 64 KiB and the tile buffers' load image: more than 2 MiB.
  // Untiled, there are no tile buffers and it fits.
  const rng = new Rng(11);
  const K = 1000;
  const N = 2000;
  const f = join(work, 'fat.onnx');
  writeFileSync(f, new OnnxBuilder('fat')
    .input('x', 'int8', [1, K])
    .initializer('w', 'int8', [K, N], rng.ints(K * N, -128, 127))
    .node('MatMul', ['x', 'w'], ['y'])
    .output('y', 'int32', [1, N]).bytes());
  const out = join(work, 'out-fat');
  const r = gen('firmware', '--platform', 'siracusa', f, '-o', out);
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /fat\.onnx: the C image needs \d+ bytes of L2 \(code and data ~\d+ estimated, stack 8192 \(in the first 65536 bytes, kept for them\), arena \d+, load image of the L1 buffers \d+\), 2097152 bytes are available/);
  assert.is(r.stderr.trim().split('\n').length, 1);
  assert.not.ok(existsSync(out));
  const untiled = gen('firmware', '--platform', 'siracusa', f, '-o', out, '--untiled');
  assert.is(untiled.code, 0, untiled.stderr);
});

test('Siracusa: an arena that fits L2 but not beside the code is planned smaller, weights move to L3, the outputs stay exact', async () => {
  // Two layers reading x with 995,500-byte weights each: the arena (1,996,508 + 2 x 5,500 bytes) fits the planner's
  // 2,031,616, the C image (the fabric controller's 64 KiB window, the arena and the L1 buffers' load image) does
  // not fit 2 MiB. The arena is cut by the excess, the weights go to L3 and are staged through L2 (midend/l3.ts).
  const rng = new Rng(12);
  const f = join(work, 'two.onnx');
  writeFileSync(f, new OnnxBuilder('two')
    .input('x', 'int8', [1, 1100])
    .initializer('w1', 'int8', [1100, 905], rng.ints(995500, -128, 127))
    .initializer('w2', 'int8', [1100, 905], rng.ints(995500, -128, 127))
    .node('MatMul', ['x', 'w1'], ['y1'])
    .node('MatMul', ['x', 'w2'], ['y2'])
    .output('y1', 'int32', [1, 905])
    .output('y2', 'int32', [1, 905]).bytes());
  const out = join(work, 'out-two');
  const r = gen('firmware', '--platform', 'siracusa', f, '-o', out);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /L2 arena cut to \d+ bytes so that the C image \(code, stack, arena\) fits L2/);
  assert.match(r.stdout + r.stderr, /tensor\(s\) at home in L3/);
  const x = ndarray('int8', [1, 1100], new Rng(13).ints(1100, -128, 127));
  const want = runReference(inferGraph(loadOnnxFile(f)), [x]);
  const got = await runFirmware(out, [x]);
  assert.equal(Array.from(got.outputs[0].data), Array.from(want.get('y1')!.data));
  assert.equal(Array.from(got.outputs[1].data), Array.from(want.get('y2')!.data));
});

test('Siracusa: tile buffers must leave the SDK its 12 KiB of L1 (cluster stacks)', () => {
  // The C's L1 is the buffer array plus the 64-byte kernel-argument block (tiled-layer.c.mustache).
  assert.ok(checkCImage(siracusa, plan(1000), tiles(244 * KiB - 64), ''));
  assert.throws(() => checkCImage(siracusa, plan(1000), tiles(244 * KiB - 64 + 8), ''),
    /the C image needs 262152 bytes of L1 \(tile buffers 249864, 12288 kept by the board's SDK for cluster stacks and its own data\), 262144 bytes are available/);
});

test('Siracusa: two L1 copies of the longest tile record when they fit beside the buffers, none when they do not', () => {
  // One layer, 3 operands, a tile with 4 fetches and 1 store: 3 + 3 + 5 x 5 = 31 words, rounded to 32 (8 bytes).
  const withRecords = (l1Peak: number): TilingPlan => ({
    layers: new Map([[0, { operands: [{}, {}, {}], tiles: [{ fetch: [{}, {}, {}, {}], store: [{}] }] }]]), l1Budget: l1Peak, l1Peak, ms: 0,
  } as unknown as TilingPlan);
  assert.is(cL1RecordWords(siracusa, withRecords(1000)), 32);
  assert.is(cTileBytes(siracusa, withRecords(1000)), 1000 + 64 + 2 * 32 * 4);
  // 256 KiB - 12 KiB - 64 (arguments) leaves 248 bytes: not the 256 two copies need.
  const full = 244 * KiB - 64 - 248;
  assert.is(cL1RecordWords(siracusa, withRecords(full)), 0);
  assert.is(cTileBytes(siracusa, withRecords(full)), full + 64);
});

test('generic: code, stack and arena share the 16 MiB RAM', () => {
  const fits = checkCImage(generic, plan(16 * MiB - 64 * KiB), undefined, 'x'.repeat(1000));
  assert.ok(fits && fits.needed <= 16 * MiB);
  assert.is(fits!.codeAndData, 16 * KiB + 550); // 0.55 bytes of code and data per byte of network.c (c-image.ts)
  assert.throws(() => checkCImage(generic, plan(16 * MiB - 8 * KiB), undefined, ''),
    /the C image needs 16793600 bytes of RAM \(code and data ~16384 estimated, stack 8192, arena 16769024\), 16777216 bytes are available/);
});

test('the default L1 budget of the tiles already leaves the SDK its share', () => {
  const f = join(work, 'add.onnx');
  writeFileSync(f, new OnnxBuilder('add').input('a', 'int8', [1, 64]).input('b', 'int8', [1, 64]).node('Add', ['a', 'b'], ['y']).output('y', 'int32', [1, 64]).bytes());
  const r = gen('firmware', '--platform', 'siracusa', f, '-o', join(work, 'out-add'));
  assert.is(r.code, 0, r.stderr);
  // 256 KiB of L1 less the SDK's 12 KiB (cluster stacks), the kernel-argument block (16 pointers of 4 bytes) and the
  // 8-byte rounding of the buffer array.
  assert.match(r.stdout, new RegExp(`of ${256 * 1024 - 12 * 1024 - 64 - 8} bytes`));
});

test('the code estimate counts C source without its comments, literals whole', () => {
  const code = 'int x = 1;\nconst char *s = "/* kept */";\nchar c = \'"\';\n';
  assert.is(codeBytes(code), Buffer.byteLength(code));
  // A block comment counts as the one space it stands for; a line comment as nothing up to its newline.
  assert.is(codeBytes(`/* a kernel template's long explanation */${code}// trailing note\n`), 1 + Buffer.byteLength(code) + 1);
  assert.is(codeBytes('a /* unterminated'), 3);
});

test('the code estimate of random source equals counting it unit by unit (non-ASCII, lone surrogates, literals)', () => {
  // The rule written out character by character: outside comments and literals each UTF-16 unit counts as
  // Buffer.byteLength of that unit alone; a literal counts whole; a block comment as one byte; a line comment nothing.
  const oracle = (src: string): number => {
    let n = 0;
    for (let i = 0; i < src.length;) {
      if (src.startsWith('/*', i)) {
        const end = src.indexOf('*/', i + 2);
        i = end < 0 ? src.length : end + 2;
        n++;
      } else if (src.startsWith('//', i)) {
        const end = src.indexOf('\n', i + 2);
        i = end < 0 ? src.length : end;
      } else if (src[i] === '"' || src[i] === "'") {
        let j = i + 1;
        while (j < src.length && src[j] !== src[i]) j += src[j] === '\\' ? 2 : 1;
        n += Buffer.byteLength(src.slice(i, j + 1));
        i = j + 1;
      } else {
        n += Buffer.byteLength(src[i]);
        i++;
      }
    }
    return n;
  };
  const pieces = ['int', ' ', '\n', '/', '*', '"', "'", '\\', 'x = 1;', '\u00e9', '\u20ac', '\ud83d\ude00', '\ud83d', '/*', '*/', '//'];
  const rng = new Rng(42);
  for (let i = 0; i < 2000; i++) {
    const src = Array.from({ length: rng.int(0, 30) }, () => pieces[rng.int(0, pieces.length - 1)]).join('');
    assert.is(codeBytes(src), oracle(src), JSON.stringify(src));
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
