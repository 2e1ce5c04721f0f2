import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lowerQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { gen } from '../helpers/cli.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { quantizedInputs } from '../helpers/qdq-check.js';
import { qdqConvNet } from '../helpers/qdq-models.js';
import { Rng } from '../helpers/random.js';

/*
 * A QDQ model through the command line as a user runs it: gen firmware writes model.int8.quant.json (the input's scale and
 * zero point) and prints how to quantize the input; gen run takes the quantized input and matches the reference of
 * the lowered graph. Quantized models the lowering cannot make exact exit 2 with one line naming the node and why.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-qdq-cli-'));

test('gen firmware on a QDQ model writes model.int8.quant.json and model.int8.onnx; gen run on the quantized input matches the reference', () => {
  const m = qdqConvNet(new Rng(7), { act: 'uint8', zeroPoints: true, perChannel: true });
  const dir = join(work, 'ok');
  mkdirSync(dir);
  const bytes = m.builder.bytes();
  writeFileSync(join(dir, 'model.onnx'), bytes);
  const out = join(dir, 'fw');
  const r = gen('firmware', '--platform', 'generic', join(dir, 'model.onnx'), '-o', out);
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stdout, /taken as int8/, 'no note about FLOAT-declared integer inputs');
  assert.match(r.stdout, /note: input 'x': the firmware takes q = clamp\(round_half_even\(x \/ [0-9.e-]+\) \+ \d+, 0, 255\)/);
  const side = JSON.parse(readFileSync(join(out, 'model.int8.quant.json'), 'utf8'));
  const low = lowerQuantized(inferGraph(loadOnnxBytes(bytes, 'model.onnx')));
  assert.equal(side.inputs, low.inputs.map((b) => ({ ...b })));
  assert.is(side.inputs[0].of, 'x');
  assert.ok(side.inputs[0].zeroPoint !== 0, 'an asymmetric input');
  assert.equal(side.outputs.map((o: { of: string }) => o.of), ['out', 'r1d', 'sd']);
  // A user quantizes the float input with the sidecar's scale and zero point.
  const ints = quantizedInputs(low, m.inputs);
  const values = runReference(low.graph, ints);
  writeFileSync(join(dir, 'in.npz'), encodeNpz(new Map([['x', ints[0]]])));
  writeFileSync(join(dir, 'expect.npz'), encodeNpz(new Map(low.graph.outputs.map((o) => [o, values.get(o)!]))));
  const run = gen('run', out, '--inputs', join(dir, 'in.npz'), '--expect', join(dir, 'expect.npz'));
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /Errors: 0 out of \d+/);
  // The lowered integer model written beside it is the same specification: its reference gives the same values,
  // and firmware generated from it gives them too.
  const spec = loadOnnxFile(join(out, 'model.int8.onnx'));
  const again = runReference(spec, ints);
  spec.outputs.forEach((o, i) => assert.equal(Array.from(again.get(o)!.data), Array.from(values.get(low.graph.outputs[i])!.data)));
  const out2 = join(dir, 'fw-int8');
  assert.is(gen('firmware', '--platform', 'siracusa', join(out, 'model.int8.onnx'), '-o', out2).code, 0);
  const run2 = gen('run', out2, '--inputs', join(dir, 'in.npz'), '--expect', join(dir, 'expect.npz'));
  assert.is(run2.code, 0, run2.stdout + run2.stderr);
  assert.match(run2.stdout, /Errors: 0 out of \d+/);
});

/** A model: x -> Q -> DQ -> (body) -> Q -> DQ -> out, the body given. */
function wrapped(body: (b: OnnxBuilder) => string, name: string): Uint8Array {
  const b = new OnnxBuilder(name, { opset: 13 }).input('x', 'float32', [1, 4, 4, 4]);
  b.initializer('s', 'float32', [], [0.05]).initializer('z', 'int8', [], [0]);
  b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']).node('DequantizeLinear', ['xq', 's', 'z'], ['xd']);
  const y = body(b);
  b.node('QuantizeLinear', [y, 's', 'z'], ['yq']).node('DequantizeLinear', ['yq', 's', 'z'], ['out']);
  b.output('out', 'float32');
  return b.bytes();
}

const REJECTED: { name: string; bytes: () => Uint8Array; message: RegExp }[] = [
  {
    name: 'float Softmax on dequantized values along another axis than the last',
    bytes: () => wrapped((b) => { b.node('Softmax', ['xd'], ['sm'], { axis: 1 }); return 'sm'; }, 'softmax'),
    message: /node 'Softmax_2' \(Softmax\): Softmax along axis 1 of a rank-4 tensor \(the last axis is lowered\)/,
  },
  {
    // Part of torch's LayerNorm between one DQ and one Q: the centred values quantized alone (the whole chain lowers).
    name: 'a LayerNorm chain quantized midway',
    bytes: () => wrapped((b) => {
      b.initializer('axes', 'int64', [1], [-1]);
      b.node('ReduceMean', ['xd'], ['m'], { axes: [-1] }).node('Sub', ['xd', 'm'], ['d']);
      return 'd';
    }, 'layernorm'),
    message: /node 'Sub_3' \(Sub\): the centred stage of a LayerNorm chain quantized alone/,
  },
  {
    name: 'LayerNormalization over more than the last axis',
    bytes: () => {
      // Shapes given: the reference's float LayerNormalization takes the last axis only.
      const b = new OnnxBuilder('layernormalization', { opset: 17 }).input('x', 'float32', [1, 4, 4]);
      b.initializer('s', 'float32', [], [0.05]).initializer('z', 'int8', [], [0]).initializer('g', 'float32', [4, 4], new Array<number>(16).fill(1));
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']).node('DequantizeLinear', ['xq', 's', 'z'], ['xd']);
      b.node('LayerNormalization', ['xd', 'g'], ['ln'], { axis: 1 });
      b.node('QuantizeLinear', ['ln', 's', 'z'], ['yq']).node('DequantizeLinear', ['yq', 's', 'z'], ['out']);
      b.output('out', 'float32', [1, 4, 4]);
      return b.bytes();
    },
    message: /node 'LayerNormalization_2' \(LayerNormalization\): LayerNormalization over axes 1\.\. of a rank-3 tensor \(the last axis alone is lowered\)/,
  },
  {
    name: 'QLinearSigmoid',
    bytes: () => {
      const b = new OnnxBuilder('sigmoid', { opset: 13 }).input('x', 'float32', [1, 8]);
      b.initializer('s', 'float32', [], [0.05]).initializer('z', 'uint8', [], [128]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']);
      b.node('QLinearSigmoid', ['xq', 's', 'z', 's', 'z'], ['yq'], {}, 'com.microsoft');
      b.node('DequantizeLinear', ['yq', 's', 'z'], ['out']).output('out', 'float32', [1, 8]);
      return b.bytes();
    },
    message: /QLinearSigmoid/,
  },
  {
    name: 'a graph input quantized twice with different parameters',
    bytes: () => {
      const b = new OnnxBuilder('twice', { opset: 13 }).input('x', 'float32', [1, 4]);
      b.initializer('s', 'float32', [], [0.05]).initializer('s2', 'float32', [], [0.1]).initializer('z', 'int8', [], [0]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']).node('QuantizeLinear', ['x', 's2', 'z'], ['xq2']);
      b.node('QLinearAdd', ['xq', 's', 'z', 'xq2', 's2', 'z', 's', 'z'], ['yq'], {}, 'com.microsoft');
      b.node('DequantizeLinear', ['yq', 's', 'z'], ['out']).output('out', 'float32', [1, 4]);
      return b.bytes();
    },
    message: /node 'QuantizeLinear_1' \(QuantizeLinear\): a graph input quantized twice with different parameters/,
  },
  {
    name: 'blocked quantization (opset 21 block_size)',
    bytes: () => {
      const b = new OnnxBuilder('blocked', { opset: 21 }).input('x', 'float32', [1, 4]);
      b.initializer('s', 'float32', [], [0.05]).initializer('z', 'int8', [], [0]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq'], { block_size: 2 }).node('DequantizeLinear', ['xq', 's', 'z'], ['out']);
      b.output('out', 'float32', [1, 4]);
      return b.bytes();
    },
    message: /node 'QuantizeLinear_0' \(QuantizeLinear\): blocked quantization \(block_size\)/,
  },
  {
    name: 'a float graph output (no QuantizeLinear at the end)',
    bytes: () => {
      const b = new OnnxBuilder('float_out', { opset: 13 }).input('x', 'float32', [1, 8]);
      b.initializer('s', 'float32', [], [0.05]).initializer('z', 'int8', [], [0]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']).node('DequantizeLinear', ['xq', 's', 'z'], ['xd']);
      b.node('Relu', ['xd'], ['out']).output('out', 'float32', [1, 8]);
      return b.bytes();
    },
    message: /tensor 'out': graph output is not quantized/,
  },
  {
    name: 'per-axis quantization of an activation',
    bytes: () => {
      const b = new OnnxBuilder('per_axis', { opset: 13 }).input('x', 'float32', [1, 2, 4]);
      b.initializer('s', 'float32', [2], [0.05, 0.1]).initializer('z', 'int8', [2], [0, 0]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq'], { axis: 1 }).node('DequantizeLinear', ['xq', 's', 'z'], ['out'], { axis: 1 });
      b.output('out', 'float32', [1, 2, 4]);
      return b.bytes();
    },
    message: /per-axis quantization of an activation/,
  },
  {
    name: 'uint8 weights whose zero point leaves int8',
    bytes: () => {
      const b = new OnnxBuilder('wzp', { opset: 13 }).input('x', 'float32', [1, 4]);
      b.initializer('s', 'float32', [], [0.05]).initializer('z', 'uint8', [], [128]);
      b.initializer('w', 'uint8', [4, 2], [0, 255, 3, 4, 5, 6, 7, 8]).initializer('ws', 'float32', [], [0.01]).initializer('wz', 'uint8', [], [0]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']);
      b.node('QLinearMatMul', ['xq', 's', 'z', 'w', 'ws', 'wz', 's', 'z'], ['yq']);
      b.node('DequantizeLinear', ['yq', 's', 'z'], ['out']).output('out', 'float32', [1, 2]);
      return b.bytes();
    },
    message: /node 'QLinearMatMul_1' \(QLinearMatMul\): weight minus its zero point \(255\) is outside int8/,
  },
  {
    name: 'a float chain whose table holds NaN (0 / 0 at the zero point)',
    bytes: () => {
      const b = new OnnxBuilder('nan_table', { opset: 13 }).input('x', 'float32', [1, 8]);
      b.initializer('s', 'float32', [], [0.05]).initializer('z', 'int8', [], [0]).initializer('zero', 'float32', [], [0]);
      b.node('QuantizeLinear', ['x', 's', 'z'], ['xq']).node('DequantizeLinear', ['xq', 's', 'z'], ['xd']);
      b.node('Div', ['xd', 'zero'], ['d']).node('QuantizeLinear', ['d', 's', 'z'], ['yq']).node('DequantizeLinear', ['yq', 's', 'z'], ['out']);
      b.output('out', 'float32', [1, 8]);
      return b.bytes();
    },
    message: /node 'Div_2' \(Div\): Div of the chain gives NaN for the input code 0/,
  },
];

for (const c of REJECTED) {
  test(`rejected with exit 2 and one line: ${c.name}`, () => {
    const dir = join(work, c.name.replace(/\W+/g, '_'));
    mkdirSync(dir);
    writeFileSync(join(dir, 'model.onnx'), c.bytes());
    const r = gen('firmware', '--platform', 'generic', join(dir, 'model.onnx'), '-o', join(dir, 'fw'));
    assert.is(r.code, 2, r.stdout + r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.is(lines.length, 1, r.stderr);
    assert.match(lines[0], c.message);
    assert.not.match(r.stderr, /internal|    at /);
    assert.ok(!existsSync(join(dir, 'fw')), 'nothing written');
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
