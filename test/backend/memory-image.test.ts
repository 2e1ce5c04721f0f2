import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constantImage } from '../../generator/backend/memory-image.js';
import type { DType } from '../../generator/ir/dtype.js';
import type { Graph, Tensor } from '../../generator/ir/graph.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import type { MemoryPlan, Placement } from '../../generator/midend/plan.js';
import { Rng } from '../helpers/random.js';

/**
 * The constant image holds each constant's elements little-endian at its offset, converted as the device type
 * stores them (values beyond the type wrap, as C's conversion does), whether written by one typed-array copy
 * (dense, aligned) or element by element (a misaligned offset, padded elements, int64, float32). The expected bytes
 * are written here with DataView's setters, one element at a time.
 */
const SET: Record<string, (v: DataView, o: number, x: number) => void> = {
  int8: (v, o, x) => v.setInt8(o, x),
  uint8: (v, o, x) => v.setUint8(o, x),
  bool: (v, o, x) => v.setUint8(o, x),
  int16: (v, o, x) => v.setInt16(o, x, true),
  uint16: (v, o, x) => v.setUint16(o, x, true),
  int32: (v, o, x) => v.setInt32(o, x, true),
  uint32: (v, o, x) => v.setUint32(o, x, true),
  int64: (v, o, x) => v.setBigInt64(o, BigInt(x), true),
  float32: (v, o, x) => v.setFloat32(o, x, true),
};
const SIZE: Record<string, number> = { int8: 1, uint8: 1, bool: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, int64: 8, float32: 4 };

test('constants of every type, aligned or not, dense or padded: the bytes DataView writes', () => {
  const rng = new Rng(3);
  const tensors = new Map<string, Tensor>();
  const placements = new Map<string, Placement>();
  const expected: { offset: number; dtype: string; width: number; values: number[] }[] = [];
  let offset = 0;
  let i = 0;
  for (const dtype of Object.keys(SET)) {
    for (const [misalign, pad] of [[0, 0], [1, 0], [0, 2]]) {
      const n = rng.int(1, 20);
      const values = Array.from({ length: n }, () =>
        dtype === 'float32' ? rng.float(-3, 3) : dtype === 'int64' ? rng.int(-(2 ** 40), 2 ** 40) : rng.int(-70000, 70000) * (rng.int(0, 3) === 0 ? 65537 : 1));
      const width = SIZE[dtype] + pad;
      offset += misalign;
      const name = `c${i++}`;
      tensors.set(name, { name, shape: [n], dtype: dtype as DType, data: ndarray('int64', [n], values) });
      placements.set(name, { region: 'L2', offset, bytes: width * n, kind: 'const', root: name });
      expected.push({ offset, dtype, width, values });
      offset += width * n + 8 - ((width * n) % 8);
    }
  }
  const g: Graph = { name: 'g', source: 'test', tensors, nodes: [], inputs: [], outputs: [] };
  const plan = { placements, region: 'L2', blobs: new Map() } as unknown as MemoryPlan;
  const image = constantImage(g, plan);
  const want = new Uint8Array(image.length);
  const view = new DataView(want.buffer);
  for (const e of expected) e.values.forEach((x, k) => SET[e.dtype](view, e.offset + k * e.width, x));
  assert.equal(Array.from(image), Array.from(want));
});

test.run();
