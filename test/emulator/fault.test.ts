/** Faults: a bad buffer, a misused device call or a firmware abort becomes one GenError('run') naming the cause. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { runFirmware } from '../../runtime/node/run.js';
import { makeFirmware } from './fixture.js';

// One firmware, the fault chosen by the input `mode`.
const NETWORK = `
import { cluster_begin, cluster_end } from "./hal/cluster";
import { chip_to_linear, region_base } from "./hal/memory";
import * as chip from "./hal/chip";
import { ELEMENT } from "./hal/cost";

const mode = load<i32>(chip_to_linear(0x1C00_0000));
const L2: usize = region_base(1);
if (mode == 0) {
  chip.layer_begin(3);
  chip.check(0x50_0000, 16, 1);             // the firmware's own window: no region
} else if (mode == 1) {
  chip.layer_begin(3);
  chip.check(L2 + 0x20_0000 - 8, 16, 0);    // 8 bytes past the end of L2
} else if (mode == 2) {
  chip.check(region_base(0) + 0x4_0000, 4, 0); // the hole after L1 (256 KiB in a 1 MiB slot), outside any layer
} else if (mode == 3) {
  cluster_begin();
  chip.compute(ELEMENT, 1);                 // forked, but no core entered
} else if (mode == 4) {
  chip_to_linear(0x7000_0000);              // no region: the HAL aborts
} else if (mode == 5) {
  store<i32>(L2, 1 / (mode - 5));           // a trap of the firmware itself
} else {
  chip.layer_begin(1);
  chip.layer_end(1);
}
`;

let outDir: string | undefined;
function fixture(): string {
  outDir ??= makeFirmware({
    platform: 'siracusa',
    network: NETWORK,
    tensors: [{ name: 'mode', role: 'input', dtype: 'int32', shape: [1], region: 'L2', address: 0x1c00_0000, bytes: 4 }],
  });
  return outDir;
}

async function failure(mode: number): Promise<GenError> {
  try {
    await runFirmware(fixture(), [ndarray('int32', [1], [mode])]);
  } catch (e) {
    assert.instance(e, GenError);
    assert.is((e as GenError).kind, 'run');
    return e as GenError;
  }
  assert.unreachable(`mode ${mode} did not fail`);
  throw new Error('unreachable');
}

test('check outside every region names the linear address, no region, and the layer', async () => {
  const e = await failure(0);
  assert.is(e.message, 'fault: check: write of 16 bytes at linear 0x00500000 (no region) in layer 3');
});

test('check running past a region end names the chip address, the region and the overrun', async () => {
  const e = await failure(1);
  assert.is(e.message, 'fault: check: read of 16 bytes at 0x1c1ffff8 (region L2, runs past its end by 8 bytes) in layer 3');
});

test('check in the hole after a region, outside any layer', async () => {
  const e = await failure(2);
  assert.is(e.message, 'fault: check: read of 4 bytes at linear 0x00840000 (no region) outside any layer');
});

test('work charged between fork and enter is a fault', async () => {
  const e = await failure(3);
  assert.match(e.message, /^fault: compute: no agent runs this work/);
});

test('a firmware abort reports its exit code and message', async () => {
  const e = await failure(4);
  assert.match(e.message, /exited with code 255/);
  assert.match(e.message, /chip_to_linear: the address lies in no region/);
});

test('a trap in the firmware itself is reported as such', async () => {
  const e = await failure(5);
  assert.is(e.message, 'the firmware trapped: divide by zero outside any layer');
});

test('the same firmware runs cleanly after faults (fresh emulator per run)', async () => {
  const r = await runFirmware(fixture(), [ndarray('int32', [1], [9])]);
  assert.equal(r.layers.map((l) => l.layer), [1]);
});

test('an input value the dtype cannot hold is rejected, naming the input', async () => {
  try {
    await runFirmware(fixture(), [ndarray('int32', [1], [2 ** 31])]);
    assert.unreachable('accepted 2^31 as int32');
  } catch (e) {
    assert.instance(e, GenError);
    assert.is((e as GenError).site.tensor, 'mode');
    assert.is((e as Error).message, "tensor 'mode': input value 2147483648 at flat index 0 does not fit int32 [-2147483648, 2147483647]");
  }
});

test('a wrong number of inputs is rejected', async () => {
  try {
    await runFirmware(fixture(), []);
    assert.unreachable('accepted no inputs');
  } catch (e) {
    assert.match((e as Error).message, /takes 1 inputs \(mode\), got 0/);
  }
});

test.run();
