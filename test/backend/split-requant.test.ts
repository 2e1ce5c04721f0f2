/**
 * The requantization split at bit 16 (backend/expr.ts splitRequantExpr) against SEMANTICS.md's form, evaluated
 * exactly (BigInt) at the corners of the ranges it is emitted for and at random points, and its emission: every step
 * in int32 where the whole product needs 64 bits (MobileNet-class ranges), none where a half would pass int32.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emitExpr, requantExpr, splitRequantExpr } from '../../generator/backend/expr.js';
import type { Expr } from '../../generator/ir/graph.js';
import { Rng } from '../helpers/random.js';

/** Exact integer value of an expression over the inputs (SEMANTICS.md: arithmetic shifts floor). */
function evaluate(e: Expr, inputs: bigint[]): bigint {
  switch (e.k) {
    case 'in': return inputs[e.i];
    case 'const': return BigInt(e.v);
    case 'add': return evaluate(e.a, inputs) + evaluate(e.b, inputs);
    case 'sub': return evaluate(e.a, inputs) - evaluate(e.b, inputs);
    case 'mul': return evaluate(e.a, inputs) * evaluate(e.b, inputs);
    case 'shr': return evaluate(e.a, inputs) >> BigInt(e.s);
    case 'clip': {
      const v = evaluate(e.a, inputs);
      return v < BigInt(e.lo) ? BigInt(e.lo) : v > BigInt(e.hi) ? BigInt(e.hi) : v;
    }
    default: throw new Error(`no evaluation for ${e.k}`);
  }
}

const v: Expr = { k: 'in', i: 0 };
const m: Expr = { k: 'in', i: 1 };
const b: Expr = { k: 'in', i: 2 };

test('the split equals the requantization for every accumulator, multiplier and add tried', () => {
  const rng = new Rng(16);
  for (const shift of [16, 17, 22, 24, 31]) {
    for (const [lo, hi] of [[-128, 127], [0, 255], [-8, 7]]) {
      const whole = requantExpr(v, m, b, shift, lo, hi);
      const split = splitRequantExpr(v, m, b, shift, lo, hi);
      assert.ok(split, `shift ${shift}: a split`);
      const accs = [-(2 ** 31), -(2 ** 31) + 1, -65537, -65536, -65535, -1, 0, 1, 65535, 65536, 65537, 2 ** 31 - 1];
      const muls = [-(2 ** 15), -12345, -1, 0, 1, 20000, 2 ** 15 - 1];
      const adds = [-(2 ** 30), -1, 0, 1, 2 ** 29];
      for (let i = 0; i < 200; i++) {
        accs.push(rng.int(-(2 ** 31), 2 ** 31 - 1));
        muls.push(rng.int(-(2 ** 15), 2 ** 15 - 1));
      }
      for (const acc of accs) {
        for (const mul of muls.slice(0, 12)) {
          for (const add of adds) {
            const inputs = [BigInt(acc), BigInt(mul), BigInt(add)];
            assert.is(evaluate(split!, inputs), evaluate(whole, inputs), `acc ${acc} mul ${mul} add ${add} shift ${shift}`);
          }
        }
      }
    }
  }
});

test('no split below a shift of 16', () => {
  assert.is(splitRequantExpr(v, m, b, 15, -128, 127), undefined);
});

test('where the product passes int32 and its halves do not, the split emits no 64-bit step', () => {
  // MobileNetV1-class: accumulators to 2^22, multipliers 2^14 .. 2^15, no add, a shift of 22.
  const leaves = [{ name: 'acc', range: { min: -(2 ** 22), max: 2 ** 22 } }, { name: 'm', range: { min: 14581, max: 30343 } }, { name: 'b', range: { min: 0, max: 0 } }];
  const whole = emitExpr(requantExpr(v, m, b, 22, 0, 255), leaves);
  assert.ok(whole.used64, 'the whole product needs 64 bits');
  const split = emitExpr(splitRequantExpr(v, m, b, 22, 0, 255)!, leaves);
  assert.not.ok(split.used64, 'the split stays in int32');
  assert.not.match(split.c, 'int64_t');
  // A multiplier of 2^20 makes the low half's product pass int32: the split needs 64 bits there (the kernels then
  // keep the whole form: kernels/epilogue.ts).
  const big = emitExpr(splitRequantExpr(v, m, b, 22, 0, 255)!, [leaves[0], { name: 'm', range: { min: 0, max: 2 ** 20 } }, leaves[2]]);
  assert.ok(big.used64);
});

test.run();
