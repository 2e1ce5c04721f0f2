/**
 * The loops the AS conv and GEMM kernels declare to the emulator (generator/kernels/streams.ts) take the cycles the
 * cost tables charge for their MACs: on every platform a loop's period is its class's cost per MAC times its MACs, a
 * whole number of cycles, and the emulator's table says the same cost.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONV_LOOP, DW_LOOP, GEMM_KMAJOR_LOOP, GEMM_LOOP, loopOf } from '../../generator/kernels/streams.js';
import { PLATFORMS } from '../../generator/platforms/index.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { createEmulator } from '../../runtime/node/emulator.js';

const SHAPES = [
  ['MAC_CONV', CONV_LOOP],
  ['MAC_DW', DW_LOOP],
  ['MAC_GEMM', GEMM_LOOP],
  // The k-major loop's streams are declared at the class of the path that runs it (kernels/gemm.ts).
  ['MAC_GEMM_KDOT', GEMM_KMAJOR_LOOP],
  ['MAC_GEMM_SCALAR', GEMM_KMAJOR_LOOP],
] as const;

for (const [name, platform] of Object.entries(PLATFORMS)) {
  test(`${name}: each declared loop is a whole number of cycles and costs per MAC what its class costs`, async () => {
    const emu = await createEmulator(name);
    for (const [cls, shape] of SHAPES) {
      const loop = loopOf(shape, platform.costs[cls]);
      assert.is(loop.period / loop.macs, emu.cost_cycles(COST_CLASSES.indexOf(cls)), `${cls} ${shape.macs} MACs`);
      // The accesses fit the period and the emulator's limit of 6 streams per loop.
      assert.ok(loop.accesses <= Math.min(6, loop.period));
    }
  });
}

test('a cost that is not a whole number of cycles per iteration is refused', () => {
  assert.throws(() => loopOf(GEMM_KMAJOR_LOOP, 0.4375), /whole number of cycles/);
});

test.run();
