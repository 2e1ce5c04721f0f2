/**
 * SpiNNaker2's row and elementwise layers on random shapes and parameters (the deeploy folders cover few of them):
 * iSoftmax with 32- and 64-bit intermediates, ITAMax, ITAPartialMax, and broadcasting elementwise chains, each
 * emulated and host-built C equal to the reference interpreter. Two PEs force one worker with many tiles.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import type { IntType } from '../../generator/ir/dtype.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { workDir } from '../helpers/kernel-check.js';
import { Rng } from '../helpers/random.js';
import { checkS2Case } from '../helpers/s2-check.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('s2-layers');

function rowShape(rng: Rng): number[] {
  const rank = rng.int(1, 4);
  return Array.from({ length: rank }, (_, i) => (i === rank - 1 ? rng.int(1, 40) : rng.int(1, 5)));
}

for (let seed = 1; seed <= 3; seed++) {
  for (const wide of [false, true]) {
    test(`iSoftmax${wide ? ' (64-bit intermediates)' : ''} (seed ${seed})`, async () => {
      const rng = new Rng(seed * 7919 + (wide ? 1 : 0));
      const shape = rowShape(rng);
      const dtype: IntType = wide ? 'int16' : rng.pick<IntType>(['int8', 'uint8']);
      const log2 = wide ? rng.int(4, 16) : rng.int(32, 300);
      const B = rng.int(log2, 2 * log2);
      const A = rng.int(1, 3);
      const b = new OnnxBuilder('isoftmax').input('x', dtype, shape);
      b.node('iSoftmax', ['x'], ['y'], { coeffA: A, coeffB: B, coeffC: rng.int(0, A * B * B), log2, n_levels: rng.pick([16, 128, 256]) }).output('y', 'float32');
      await checkS2Case(join(dir, `isoftmax${seed}${wide}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'iSoftmax', layer: 's2-rows', pes: seed === 1 ? 2 : undefined });
    });
  }
  test(`ITAMax and ITAPartialMax (seed ${seed})`, async () => {
    const rng = new Rng(seed * 104729);
    const shape = rowShape(rng);
    const L = shape[shape.length - 1];
    const b = new OnnxBuilder('ita').input('x', 'int8', shape);
    b.node('ITAMax', ['x'], ['y'], { n_levels: rng.pick([16, 256]) }).output('y', 'float32');
    await checkS2Case(join(dir, `itamax${seed}`), { builder: b, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'ITAMax', layer: 's2-rows' });
    const p = new OnnxBuilder('itap').input('x', 'int8', shape);
    p.node('ITAPartialMax', ['x'], ['y'], { n_levels: rng.pick([16, 256]), group_width: rng.int(1, L) }).output('y', 'float32');
    await checkS2Case(join(dir, `itap${seed}`), { builder: p, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'ITAPartialMax', layer: 's2-rows' });
  });
  test(`a requantized broadcasting add chain (seed ${seed})`, async () => {
    const rng = new Rng(seed * 31337);
    const shape = [rng.int(1, 3), rng.int(2, 9), rng.int(1, 7), rng.int(3, 40)];
    const bshape = shape.map((d, i) => (i === 1 || i === 3 ? d : 1));
    const b = new OnnxBuilder('adds').input('x', 'int8', shape).input('z', 'uint8', bshape);
    const C = shape[1];
    b.initializer('m', 'int32', [C, 1, 1], rng.ints(C, 1, 200)).initializer('a', 'int32', [C, 1, 1], rng.ints(C, -500, 500));
    b.node('Add', ['x', 'z'], ['s']);
    b.node('RequantShift', ['s', 'm', 'a'], ['y'], { div: float(256), n_levels: float(256), signed: float(1) });
    b.output('y', 'float32');
    const inputs = [randomValues(rng, 'int8', shape), randomValues(rng, 'uint8', bshape)];
    await checkS2Case(join(dir, `add${seed}`), { builder: b, inputs }, { op: 'Add', layer: 's2-elementwise', pes: seed === 2 ? 2 : undefined });
  });
}

test.after(cleanup);
test.run();
