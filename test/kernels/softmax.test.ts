import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { compileModel } from '../../generator/pipeline.js';
import { emitFirmware } from '../../generator/backend/emit.js';
import { iSoftmaxBounds } from '../../generator/kernels/softmax.js';
import { checkKernelCase, workDir, type KernelCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

/**
 * iSoftmax, ITAMax and ITAPartialMax on random row shapes and parameters. iSoftmax also runs with int16 inputs
 * and small log2, where (p+B)^2 and e*(n_levels-1) leave 32 bits and the kernel must switch to 64-bit words.
 */
const { dir, cleanup } = workDir('k-softmax');

function rowShape(rng: Rng): number[] {
  const rank = rng.int(1, 4);
  return Array.from({ length: rank }, (_, i) => (i === rank - 1 ? rng.int(1, 40) : rng.int(1, 4)));
}

function iSoftmaxCase(rng: Rng, wide: boolean): KernelCase {
  const shape = rowShape(rng);
  const dtype: IntType = wide ? 'int16' : rng.pick<IntType>(['int8', 'uint8']);
  const log2 = wide ? rng.int(4, 16) : rng.int(32, 300);
  const B = rng.int(log2, 2 * log2);
  const A = rng.int(1, 3);
  const C = rng.int(0, A * B * B);
  const n = rng.pick([16, 128, 256]);
  const b = new OnnxBuilder('isoftmax').input('x', dtype, shape);
  b.node('iSoftmax', ['x'], ['y'], { coeffA: A, coeffB: B, coeffC: C, log2, n_levels: n }).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape)] };
}

function itaMaxCase(rng: Rng): KernelCase {
  const shape = rowShape(rng);
  const dtype = rng.pick<IntType>(['int8', 'int8', 'uint8', 'int16']);
  const b = new OnnxBuilder('itamax').input('x', dtype, shape);
  b.node('ITAMax', ['x'], ['y'], { n_levels: rng.pick([16, 256]) }).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape, dtype === 'int16' ? 600 : undefined)] };
}

function itaPartialMaxCase(rng: Rng): KernelCase {
  const shape = rowShape(rng);
  const L = shape[shape.length - 1];
  const gw = rng.int(1, L);
  const b = new OnnxBuilder('itapartialmax').input('x', 'int8', shape);
  b.node('ITAPartialMax', ['x'], ['y'], { n_levels: rng.pick([16, 256]), group_width: gw }).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, 'int8', shape)] };
}

for (let seed = 1; seed <= 6; seed++) {
  test(`iSoftmax matches the reference (seed ${seed})`, async () => {
    const c = iSoftmaxCase(new Rng(seed * 6151), false);
    await checkKernelCase(join(dir, `isoftmax_${seed}`), c, { op: 'iSoftmax', kernel: 'isoftmax', hostC: seed === 1 });
  });
  test(`iSoftmax with 64-bit words matches the reference (seed ${seed})`, async () => {
    const c = iSoftmaxCase(new Rng(seed * 6151 + 1), true);
    await checkKernelCase(join(dir, `isoftmax_wide_${seed}`), c, { op: 'iSoftmax', kernel: 'isoftmax', hostC: seed === 1 });
  });
  test(`ITAMax matches the reference (seed ${seed})`, async () => {
    await checkKernelCase(join(dir, `itamax_${seed}`), itaMaxCase(new Rng(seed * 3571)), { op: 'ITAMax', kernel: 'itamax', hostC: seed === 1 });
  });
  test(`ITAPartialMax matches the reference (seed ${seed})`, async () => {
    const c = itaPartialMaxCase(new Rng(seed * 2903));
    await checkKernelCase(join(dir, `itapartialmax_${seed}`), c, { op: 'ITAPartialMax', kernel: 'itapartialmax', hostC: seed === 1 });
  });
}

test('ITAPartialMax: columns past the last full group above the running max get 0; all -128 rows', async () => {
  const b = new OnnxBuilder('partial_tail').input('x', 'int8', [3, 5]);
  b.node('ITAPartialMax', ['x'], ['y'], { n_levels: 256, group_width: 2 }).output('y', 'float32');
  const x = ndarray('int8', [3, 5], [0, -5, 3, 1, 127, -128, -128, -128, -128, -128, -100, 20, 60, -7, 40]);
  await checkKernelCase(join(dir, 'partial_tail'), { builder: b, inputs: [x] }, { op: 'ITAPartialMax', kernel: 'itapartialmax', hostC: true });
});

/** The AS body of the model's iSoftmax closure, for a model of one iSoftmax on x. */
function iSoftmaxBody(name: string, dtype: IntType, log2: number, coeffB = 345): string {
  const b = new OnnxBuilder(name).input('x', dtype, [2, 128]);
  b.node('iSoftmax', ['x'], ['y'], { coeffA: 1, coeffB, coeffC: 62395, log2, n_levels: 256 }).output('y', 'float32');
  const model = join(dir, `${name}.onnx`);
  writeFileSync(model, b.bytes());
  const c = compileModel({ model, platform: 'siracusa' });
  const { files } = emitFirmware({ graph: c.lowered, layers: c.layers, plan: c.plan, platform: c.platform });
  const as = files.get('as/network.ts') as string;
  const body = as.slice(as.indexOf('iSoftmax over rows'));
  return body.slice(0, body.indexOf('compute('));
}

test('iSoftmax words: 32-bit for int8 with the Deeploy coefficients, 64-bit where the bounds need it', () => {
  assert.not.match(iSoftmaxBody('narrow', 'int8', 255), /i64/);
  // int16 with log2 = 4: (p + B)^2 of a clipped entry needs 64 bits in the chain, but it is shifted by 31: the row
  // sum of 128 entries of at most 345^2 + 62395 and e * 255 fit 32 bits.
  const clipped = iSoftmaxBody('clipped', 'int16', 4);
  assert.match(clipped, /let sum: i32/);
  assert.match(clipped, /i64/);
  // B = 3000: e reaches 3000^2 + 62395, and e * 255 passes 2^31.
  assert.match(iSoftmaxBody('wide', 'int16', 4, 3000), /let sum: i64/);
});

/** Every entry's e and chain steps by SEMANTICS.md's iSoftmax, xt over [lo - hi, 0] (all of it, or samples and the ends). */
function bruteBounds(A: bigint, B: bigint, C: bigint, log2: bigint, lo: bigint, hi: bigint, rng: Rng) {
  const span = Number(hi - lo);
  const xts = span <= 70000 ? Array.from({ length: span + 1 }, (_, i) => BigInt(-i))
    : [0n, lo - hi, ...Array.from({ length: 20000 }, () => BigInt(-rng.int(0, span)))];
  for (let k = 0n; k <= 32n; k++) for (const d of [-1n, 0n, 1n]) if (k * log2 + d <= hi - lo && k * log2 + d >= 0n) xts.push(-(k * log2 + d));
  let eMin: bigint | undefined, eMax: bigint | undefined, chain = 0n;
  const abs = (v: bigint) => (v < 0n ? -v : v);
  for (const xt of xts) {
    const zq = -xt / log2;
    const z = zq > 31n ? 31n : zq;
    const q = xt + z * log2 + B;
    const t = A * q * q + C;
    const e = t >> z;
    eMin = eMin === undefined || e < eMin ? e : eMin;
    eMax = eMax === undefined || e > eMax ? e : eMax;
    for (const v of [xt, z * log2, q, q * q, A * q * q, t]) chain = abs(v) > chain ? abs(v) : chain;
  }
  return { eMin: eMin!, eMax: eMax!, chain };
}

test('iSoftmax bounds hold every entry (brute force over the input range, both z regimes)', () => {
  const rng = new Rng(7919);
  for (let i = 0; i < 300; i++) {
    const log2 = BigInt(rng.pick([rng.int(1, 16), rng.int(17, 600), rng.int(601, 4096)]));
    const B = BigInt(rng.int(-2 * Number(log2), 3 * Number(log2)));
    const A = BigInt(rng.pick([rng.int(1, 3), -rng.int(1, 3)]));
    const C = BigInt(rng.int(-5000, 5000)) * log2;
    const wide = rng.int(0, 2);
    const lo = BigInt(wide === 0 ? rng.int(-128, 0) : wide === 1 ? rng.int(-32768, 0) : rng.int(-200000, 0));
    const hi = lo + BigInt(rng.int(0, Number(-lo) + (wide === 0 ? 127 : 32767)));
    const got = iSoftmaxBounds(A, B, C, log2, lo, hi);
    const want = bruteBounds(A, B, C, log2, lo, hi, rng);
    const at = `A ${A} B ${B} C ${C} log2 ${log2} x in [${lo}, ${hi}]`;
    assert.ok(got.eMin <= want.eMin && want.eMax <= got.eMax, `${at}: e in [${want.eMin}, ${want.eMax}], bounds [${got.eMin}, ${got.eMax}]`);
    assert.ok(want.chain <= got.chain, `${at}: a chain step reaches ${want.chain}, bound ${got.chain}`);
  }
});

test('iSoftmax bounds: an int16 row with clipped entries keeps e of the unclipped ones (the tiny-llama scores)', () => {
  // A = 1, B = 1999, C = 2094201, log2 = 1024 over int16: e is largest at xt = 0 (1999^2 + 2094201); a clipped entry
  // (z = 31) gives t >> 31 = 0. So the row sum of 16 and e * 255 fit 32 bits.
  const b = iSoftmaxBounds(1n, 1999n, 2094201n, 1024n, -32768n, 32767n);
  assert.is(b.eMax, 1999n * 1999n + 2094201n);
  assert.is(b.eMin, 0n);
  assert.ok(b.eMax * 255n < 2n ** 31n);
});

test.after(cleanup);
test.run();
