import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { parseNpy, parseNpz, writeNpy } from '../../generator/onnx/npy.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';
import { filesUnder } from '../helpers/files-under.js';

/*
 * The .npz reader (onnx/unzip.ts over node:zlib) against fflate's unzipSync on every .npz of the test vectors and the
 * examples: the same arrays, by name and in the same order, element for element. Then the archive forms numpy
 * writes that these files may not hold (deflated entries, Zip64 sizes) and malformed archives.
 */

/** fflate's reading of the archive, each .npy through the same parseNpy. */
function byFflate(bytes: Uint8Array): [string, { dtype: string; shape: number[]; data: number[] }][] {
  return Object.entries(unzipSync(bytes)).filter(([n]) => n.endsWith('.npy')).map(([n, d]) => {
    const a = parseNpy(d);
    return [n.slice(0, -4), { dtype: a.dtype, shape: [...a.shape], data: Array.from(a.data, Number) }];
  });
}

function byReader(bytes: Uint8Array): [string, { dtype: string; shape: number[]; data: number[] }][] {
  return [...parseNpz(bytes)].map(([n, a]) => [n, { dtype: a.dtype, shape: [...a.shape], data: Array.from(a.data, Number) }]);
}

const files = [...filesUnder(DEEPLOY, '.npz'), ...filesUnder(join(REPO, 'examples'), '.npz')];

test('there are archives to compare', () => {
  assert.ok(files.length >= 100, `${files.length} .npz files found`);
});

for (const file of files) {
  test(`${relative(join(REPO, '..'), file)}: read as fflate reads it`, () => {
    const bytes = readFileSync(file);
    assert.equal(byReader(bytes), byFflate(bytes)); // (a few activations.npz hold no arrays: both read none)
  });
}

const arrays = { 'a.npy': writeNpy(ndarray('int16', [2, 3], [1, -2, 3, -4, 5, -6])), 'b.npy': writeNpy(ndarray('float32', [3], [0.5, -1.25, 3])), 'note.txt': new TextEncoder().encode('not an array') };

test('deflated entries inflate to the same arrays as stored ones', () => {
  const want = byFflate(zipSync(arrays, { level: 0 }));
  assert.equal(want.map(([n]) => n), ['a', 'b']);
  assert.equal(byReader(zipSync(arrays, { level: 9 })), want);
});

/**
 * One stored entry with its sizes and offset in a Zip64 extended-information field (APPNOTE 4.5.3) and a Zip64 end
 * record, as an archive over 4 GiB has them (here with small values).
 */
function zip64Archive(name: string, data: Uint8Array): Uint8Array {
  const n = new TextEncoder().encode(name);
  const local = new Uint8Array(30 + n.length + data.length);
  const lv = new DataView(local.buffer);
  lv.setUint32(0, 0x04034b50, true);
  lv.setUint16(26, n.length, true);
  local.set(n, 30);
  local.set(data, 30 + n.length);
  const central = new Uint8Array(46 + n.length + 28);
  const cv = new DataView(central.buffer);
  cv.setUint32(0, 0x02014b50, true);
  for (const at of [20, 24, 42]) cv.setUint32(at, 0xffffffff, true);
  cv.setUint16(28, n.length, true);
  cv.setUint16(30, 28, true);
  central.set(n, 46);
  const e = 46 + n.length;
  cv.setUint16(e, 1, true);
  cv.setUint16(e + 2, 24, true);
  cv.setBigUint64(e + 4, BigInt(data.length), true); // original size
  cv.setBigUint64(e + 12, BigInt(data.length), true); // compressed size
  cv.setBigUint64(e + 20, 0n, true); // local header offset
  const end = new Uint8Array(56 + 20 + 22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06064b50, true);
  ev.setBigUint64(32, 1n, true);
  ev.setBigUint64(40, BigInt(central.length), true);
  ev.setBigUint64(48, BigInt(local.length), true);
  ev.setUint32(56, 0x07064b50, true);
  ev.setBigUint64(56 + 8, BigInt(local.length + central.length), true);
  ev.setUint32(76, 0x06054b50, true);
  for (const at of [76 + 8, 76 + 10]) ev.setUint16(at, 0xffff, true);
  for (const at of [76 + 12, 76 + 16]) ev.setUint32(at, 0xffffffff, true);
  const out = new Uint8Array(local.length + central.length + end.length);
  out.set(local);
  out.set(central, local.length);
  out.set(end, local.length + central.length);
  return out;
}

test('an archive with Zip64 sizes and end record reads its array', () => {
  const [[name, a]] = byReader(zip64Archive('x.npy', arrays['a.npy']));
  assert.equal([name, a], ['x', { dtype: 'int16', shape: [2, 3], data: [1, -2, 3, -4, 5, -6] }]);
});

const stored = zipSync({ 'a.npy': arrays['a.npy'] }, { level: 0 });
const deflated = zipSync({ 'a.npy': arrays['a.npy'] }, { level: 9 });
const patched = (bytes: Uint8Array, edit: (v: DataView, central: number) => void): Uint8Array => {
  const out = new Uint8Array(bytes);
  const v = new DataView(out.buffer);
  let central = 0;
  while (v.getUint32(central, true) !== 0x02014b50) central++;
  edit(v, central);
  return out;
};

for (const [what, bytes, reason] of [
  ['not a zip archive', new TextEncoder().encode('a text file, not an archive'), /no end of central directory record/],
  ['cut short', stored.subarray(0, stored.length - 30), /no end of central directory record/],
  ['a directory pointing past the end', patched(stored, (v, c) => v.setUint32(c + 42, 1 << 20, true)), /a\.npy: no local header at byte 1048576/],
  ['an unknown compression method', patched(stored, (v, c) => v.setUint16(c + 10, 14, true)), /a\.npy: unsupported compression method 14/],
  ['deflated data that is not deflate', patched(deflated, (v) => v.setUint8(30 + 5, 0xff)), /a\.npy: /],
  ['a directory understating the inflated size', patched(deflated, (v, c) => v.setUint32(c + 24, 10, true)), /a\.npy: /],
  ['a directory overstating the inflated size', patched(deflated, (v, c) => v.setUint32(c + 24, 500, true)), /a\.npy: inflates to \d+ bytes, the directory says 500/],
] as const) {
  test(`a malformed archive: ${what}`, () => {
    assert.throws(() => parseNpz(bytes), (e: unknown) => e instanceof Error && reason.test(e.message));
  });
}

test.run();
