import onnxProto from 'onnx-proto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Graph } from '../../generator/ir/graph.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { float, floats, OnnxBuilder } from '../helpers/onnx-builder.js';

/* The ONNX writer round-trips through the loader: attributes of every kind, initializers of every type, domains. */

function built(): Graph {
  return new OnnxBuilder('roundtrip')
    .input('x', 'int8', [1, 4])
    .input('f', 'float32', [2, 3])
    .initializer('w8', 'int8', [2, 2], [-128, 0, 1, 127])
    .initializer('u8', 'uint8', [3], [0, 128, 255])
    .initializer('i16', 'int16', [2], [-32768, 32767])
    .initializer('i32', 'int32', [1], [-2147483648])
    .initializer('i64', 'int64', [3], [-(2 ** 63), 2 ** 63, 42]) // INT64_MIN, INT64_MAX (as read back), 42
    .initializer('f32', 'float32', [2], [0.1, -3.5])
    .initializer('f64', 'float64', [1], [0.1])
    .node('Custom', ['x', 'w8', '', 'u8'], ['y'], {
      i: 7, neg: -3, f: 0.25, one: float(1), s: 'constant', ints: [1, -2, 3], fl: floats([1, 2.5]),
      strs: { kind: 'strings', value: ['a', 'bc'] }, t: ndarray('int32', [2], [5, -6]),
    }, 'com.example')
    .node('QLinearAdd', ['y', 'f32', 'u8', 'y', 'f32', 'u8', 'f32', 'u8'], ['z'], {}, 'com.microsoft')
    .output('z', 'uint8', [1, 4])
    .output('y', 'int8', [1, 4])
    .graph();
}

test('encodeModel -> loadOnnxBytes keeps nodes, attributes and tensors', () => {
  const g = built();
  const back = loadOnnxBytes(encodeModel(g), 'roundtrip.onnx');
  assert.equal(back.inputs, ['x', 'f']);
  assert.equal(back.outputs, ['z', 'y']);
  assert.is(back.nodes.length, 2);
  const [custom, qadd] = back.nodes;
  assert.is(custom.op, 'Custom');
  assert.is(custom.domain, 'com.example');
  assert.equal(custom.inputs, ['x', 'w8', '', 'u8']);
  assert.equal(custom.attrs, {
    i: { kind: 'int', value: 7 }, neg: { kind: 'int', value: -3 }, f: { kind: 'float', value: 0.25 },
    one: { kind: 'float', value: 1 }, s: { kind: 'string', value: 'constant' }, ints: { kind: 'ints', value: [1, -2, 3] },
    fl: { kind: 'floats', value: [1, 2.5] }, strs: { kind: 'strings', value: ['a', 'bc'] },
    t: { kind: 'tensor', value: ndarray('int32', [2], [5, -6]) },
  });
  assert.is(qadd.domain, 'com.microsoft');
  for (const [name, t] of g.tensors) {
    const b = back.tensors.get(name);
    assert.ok(b, `${name} is back`);
    assert.is(b.dtype, t.dtype, `${name} dtype`);
    assert.equal(b.shape, t.shape, `${name} shape`);
    if (t.data) {
      assert.ok(b.data, `${name} keeps its data`);
      // float32 values come back rounded to float32; int64 extremes come back as +-2^63.
      const expect = t.dtype === 'float32' ? Array.from(t.data.data, Math.fround) : Array.from(t.data.data);
      assert.equal(Array.from(b.data.data), expect, `${name} values`);
    }
  }
});

test('the default opset is 13, other domains get version 1, options override', () => {
  const g = built();
  // Re-encoding what was loaded gives the same bytes: the writer is deterministic.
  const bytes = encodeModel(g);
  assert.equal(encodeModel(loadOnnxBytes(bytes, 'x.onnx')), bytes);
  const opsets = (b: Uint8Array) => Object.fromEntries(
    onnxProto.onnx.ModelProto.decode(b).opsetImport.map((o) => [o.domain ?? '', Number(o.version)]));
  assert.equal(opsets(bytes), { '': 13, 'com.example': 1, 'com.microsoft': 1 });
  assert.equal(opsets(encodeModel(g, { opset: 17, opsets: { 'com.microsoft': 2 } })), { '': 17, 'com.example': 1, 'com.microsoft': 2 });
});

test.run();
