/** Inputs, outputs and constant images move between the host and the emulated memories as the manifest says. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { runFirmware } from '../../runtime/node/run.js';
import { makeFirmware } from './fixture.js';

// y = x + c (int16; c is a constant 16 bytes into L1), u = low byte of x (uint8).
const NETWORK = `
import { chip_to_linear } from "./hal/memory";
const X = chip_to_linear(0x1C00_0000), Y = chip_to_linear(0x1C00_0100), U = chip_to_linear(0x1C00_0200);
const C = chip_to_linear(0x1000_0010);
for (let i = 0; i < 6; i++) {
  const x = load<i16>(X + <usize>(2 * i));
  store<i16>(Y + <usize>(2 * i), x + load<i16>(C + <usize>(2 * i)));
  store<u8>(U + <usize>i, <u8>x);
}
`;

const C = [1000, -1000, 7, -7, 0, 32];
const cBytes = (): Buffer => {
  const b = Buffer.alloc(12);
  C.forEach((v, i) => b.writeInt16LE(v, 2 * i));
  return b;
};

function fixture(): string {
  return makeFirmware({
    platform: 'siracusa',
    network: NETWORK,
    tensors: [
      { name: 'x', role: 'input', dtype: 'int16', shape: [2, 3], region: 'L2', address: 0x1c00_0000, bytes: 12 },
      { name: 'y', role: 'output', dtype: 'int16', shape: [2, 3], region: 'L2', address: 0x1c00_0100, bytes: 12 },
      { name: 'u', role: 'output', dtype: 'uint8', shape: [6], region: 'L2', address: 0x1c00_0200, bytes: 6 },
    ],
    images: { l1: Buffer.concat([Buffer.alloc(16), cBytes()]) },
  });
}

const X = [-32768, -1, 0, 1, 255, 32767 - 32];
const x = ndarray('int16', [2, 3], X);

function editManifest(out: string, edit: (m: Record<string, unknown>) => void): void {
  const file = join(out, 'firmware.json');
  const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(m);
  writeFileSync(file, JSON.stringify(m));
}

async function runError(out: string): Promise<string> {
  try {
    await runFirmware(out, [x]);
  } catch (e) {
    return (e as Error).message;
  }
  assert.unreachable('ran');
  return '';
}

test('inputs and outputs in their dtypes; memory/<region>.bin images load at the region start', async () => {
  const r = await runFirmware(fixture(), [x]);
  assert.equal(r.outputNames, ['y', 'u']);
  assert.equal(r.outputs[0].shape, [2, 3]);
  assert.equal([...r.outputs[0].data], X.map((v, i) => v + C[i]));
  assert.equal(r.outputs[1].dtype, 'uint8');
  assert.equal([...r.outputs[1].data], X.map((v) => v & 0xff));
});

test('a manifest images list places a file at an offset of its region', async () => {
  const out = fixture();
  writeFileSync(join(out, 'memory', 'consts.bin'), cBytes());
  writeFileSync(join(out, 'memory', 'l1.bin'), Buffer.alloc(0));
  editManifest(out, (m) => {
    m.images = [{ region: 'L1', file: 'memory/consts.bin', offset: 16 }];
  });
  const r = await runFirmware(out, [x]);
  assert.equal([...r.outputs[0].data], X.map((v, i) => v + C[i]));
});

test('the manifest is checked against the emulator: regions, tensor placement, linear addresses, images', async () => {
  let out = fixture();
  editManifest(out, (m) => {
    m.regions = [{ name: 'L2', address: '0x1C100000', size: 2097152 }];
  });
  assert.is(await runError(out), "manifest region 'L2' (0x1c100000, 2097152 bytes) differs from the emulator's (0x1c000000, 2097152 bytes)");

  out = fixture();
  editManifest(out, (m) => {
    (m.tensors as Record<string, unknown>[])[1].address = 0x1c1f_fffc;
  });
  assert.is(await runError(out), "tensor 'y': manifest: 0x1c1ffffc + 12 bytes lies outside region L2");

  out = fixture();
  editManifest(out, (m) => {
    (m.tensors as Record<string, unknown>[])[0].linear = 0x1c00_0000;
  });
  assert.is(await runError(out), "tensor 'x': manifest: linear address 0x1c000000 should be 0x00900000");

  out = fixture();
  writeFileSync(join(out, 'memory', 'l9.bin'), Buffer.alloc(4));
  assert.match(await runError(out), /l9\.bin: memory image for region 'l9', which the chip does not have/);

  out = fixture();
  editManifest(out, (m) => {
    m.platform = 'no-such-chip';
  });
  assert.is(await runError(out), "platform 'no-such-chip' has no emulator model");
});

test('an input with the wrong element count is rejected, naming it', async () => {
  try {
    await runFirmware(fixture(), [ndarray('int16', [5], [1, 2, 3, 4, 5])]);
    assert.unreachable('ran');
  } catch (e) {
    assert.is((e as Error).message, "tensor 'x': input of shape [5] for a tensor of shape [2, 3]");
  }
});

test.run();
