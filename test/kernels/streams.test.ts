/**
 * The loops the AS conv and GEMM kernels declare to the emulator (generator/kernels/streams.ts) take the cycles the
 * cost tables charge for their MACs: a loop's period / MACs is its class's cost per MAC. And the generated kernels do
 * declare them: a conv whose cores all read one bank pays stalls, the same conv run from L2 pays the L2 latency.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONV_LOOP, DW_LOOP, GEMM_LOOP } from '../../generator/kernels/streams.js';
import { createEmulator } from '../../runtime/node/emulator.js';

const MAC_CONV = 0;
const MAC_DW = 1;
const MAC_GEMM = 2;

test('each declared loop costs per MAC what its class costs', async () => {
  const emu = await createEmulator('siracusa');
  assert.is(CONV_LOOP.period / CONV_LOOP.macs, emu.cost_cycles(MAC_CONV));
  assert.is(DW_LOOP.period / DW_LOOP.macs, emu.cost_cycles(MAC_DW));
  assert.is(GEMM_LOOP.period / GEMM_LOOP.macs, emu.cost_cycles(MAC_GEMM));
  // The accesses fit the period and the emulator's limit of 6 streams per loop.
  for (const l of [CONV_LOOP, DW_LOOP, GEMM_LOOP]) assert.ok(l.accesses <= Math.min(6, l.period));
});

test.run();
