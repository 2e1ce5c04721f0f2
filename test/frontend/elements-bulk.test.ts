/**
 * The bulk element copies (generator/ir/elements.ts readElements / writeElements: .npy, ONNX raw data, tensors in and
 * out of the emulators' memories, constant images) store and load the same bytes and values as readElement /
 * writeElement one element at a time: every element type, at aligned and unaligned offsets, with values each integer
 * type wraps (ToInt8, ToUint16, ...), fractions, NaN and infinities.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DType } from '../../generator/ir/dtype.js';
import { readElement, readElements, writeElement, writeElements } from '../../generator/ir/elements.js';
import { Rng } from '../helpers/random.js';

/** Every element type (a Record over DType: a type added later fails to compile here until listed) and its bytes. */
const WIDTH: Record<DType, number> = { int8: 1, uint8: 1, bool: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, int64: 8, float32: 4, float64: 8 };

/** Values of every kind a writer may meet: in range, past either end of the narrow types, fractions, non-finite. */
function values(rng: Rng, t: DType, n: number): Float64Array {
  const special = t === 'int64' ? [0, -1, 2 ** 40, -(2 ** 40)] : [0, -1, 255, 256, -129, 65_535, 65_536, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 + 3, 1.5, -2.75, NaN, Infinity, -Infinity];
  return Float64Array.from({ length: n }, (_, i) => (i < special.length ? special[i] : rng.ints(1, -70_000, 70_000)[0] * (t.startsWith('float') ? 0.37 : 1)));
}

for (const t of Object.keys(WIDTH) as DType[]) {
  for (const at of [0, 1, 3]) {
    test(`${t} at byte ${at}: writeElements and readElements equal the element-by-element copies`, () => {
      const rng = new Rng(t.length * 131 + at);
      const n = 37;
      const xs = values(rng, t, n);
      const bulk = new Uint8Array(at + n * WIDTH[t] + 5);
      const single = new Uint8Array(bulk.length);
      writeElements(bulk, at, t, xs);
      const dv = new DataView(single.buffer);
      xs.forEach((x, i) => writeElement(dv, t, at + i * WIDTH[t], x));
      assert.equal([...bulk], [...single], 'the same bytes');
      // Read back from a view that starts inside a larger buffer, as a Node Buffer or a .npz entry does.
      const outer = new Uint8Array(bulk.length + 2);
      outer.set(bulk, 2);
      const inner = outer.subarray(2);
      const got = new Float64Array(n);
      readElements(inner, at, t, got);
      const want = Array.from({ length: n }, (_, i) => readElement(new DataView(inner.buffer, inner.byteOffset), t, at + i * WIDTH[t]));
      assert.equal([...got], want, 'the same values');
      // ... and from a Node Buffer inside a larger one (protobufjs's raw data), whose slice() is a view, not a copy.
      const buffer = Buffer.concat([Buffer.alloc(3), Buffer.from(bulk)]).subarray(3);
      const fromBuffer = new Float64Array(n);
      readElements(buffer, at, t, fromBuffer);
      assert.equal([...fromBuffer], want, 'the same values from a Buffer');
    });
  }
}

test.run();
