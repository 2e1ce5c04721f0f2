import { OnnxBuilder } from './onnx-builder.js';
import { act, floatInput, qop, QdqWriter, weightCodes, weightScales, type QModel, type QP, type Variant } from './qdq-models.js';
import type { Rng } from './random.js';

/*
 * One quantized op per model (each op form the lowering handles), large enough to measure how often the lowered
 * integer op and onnxruntime differ: with one op there is nothing upstream to carry a difference along, so each
 * difference is the op's own rounding.
 */

const f32 = Math.fround;
export type OpForm =
  | 'QDQ Conv 3x3 + Relu' | 'QDQ Conv (float weights through Q, float bias)' | 'QDQ depthwise Conv stride 2' | 'QDQ Gemm + bias' | 'QDQ MatMul (weights)' | 'QDQ MatMul (activations)'
  | 'QDQ Add' | 'QDQ Mul' | 'QDQ GELU (erf form)' | 'QDQ Div, Tanh, Relu' | 'QDQ GlobalAveragePool' | 'QDQ GlobalAveragePool 56x56' | 'QDQ Pad + AveragePool' | 'QDQ AveragePool (padded, counted)' | 'QDQ requantize + Clip' | 'QDQ Concat (two scales)' | 'QDQ MaxPool'
  | 'QLinearConv' | 'QLinearMatMul' | 'QLinearMatMul (activations)' | 'QGemm' | 'QLinearAdd' | 'QLinearMul';

export const OP_FORMS: OpForm[] = [
  'QDQ Conv 3x3 + Relu', 'QDQ Conv (float weights through Q, float bias)', 'QDQ depthwise Conv stride 2', 'QDQ Gemm + bias', 'QDQ MatMul (weights)', 'QDQ MatMul (activations)',
  'QDQ Add', 'QDQ Mul', 'QDQ GELU (erf form)', 'QDQ Div, Tanh, Relu', 'QDQ GlobalAveragePool', 'QDQ GlobalAveragePool 56x56', 'QDQ Pad + AveragePool', 'QDQ AveragePool (padded, counted)', 'QDQ requantize + Clip', 'QDQ Concat (two scales)', 'QDQ MaxPool',
  'QLinearConv', 'QLinearMatMul', 'QLinearMatMul (activations)', 'QGemm', 'QLinearAdd', 'QLinearMul',
];

const C = 8;
const H = 10;

export function opModel(rng: Rng, form: OpForm, v: Variant): QModel {
  const b = new OnnxBuilder('op', { opset: 13 });
  const w = new QdqWriter(b);
  const image = form !== 'QDQ Gemm + bias' && !form.includes('MatMul') && form !== 'QGemm';
  // A large plane: the zero-point term of the average, count*zx, is far beyond what fits beside a shifted multiplier.
  const shape = form === 'QDQ GlobalAveragePool 56x56' ? [1, 4, 56, 56] : image ? [1, C, H, H] : [1, 16, 24];
  b.input('x', 'float32', shape);
  const qx = act(rng, v, 1);
  const inputs = [floatInput(rng, shape)];
  /** A second graph input like x (each input has one quantization). */
  const second = (): string => {
    b.input('x2', 'float32', shape);
    inputs.push(floatInput(rng, shape));
    return 'x2';
  };
  const out = (y: string, q: QP): QModel => {
    w.qdq(y, 'out', q);
    b.output('out', 'float32');
    return { builder: b, inputs };
  };
  const conv = (O: number, group: number, k: number, stride: number): void => {
    const cin = C / group;
    const ws = weightScales(rng, O, v.perChannel, cin * k * k);
    w.constDq('w', 'int8', [O, cin, k, k], weightCodes(rng, O * cin * k * k), ws, ws.map(() => 0), 0);
    const bs = Array.from({ length: O }, (_, j) => f32(qx.scale * ws[ws.length > 1 ? j : 0]));
    w.constDq('bias', 'int32', [O], rng.ints(O, -2000, 2000), bs, bs.map(() => 0), 0);
    b.node('Conv', ['xd', 'w', 'bias'], ['c'], { kernel_shape: [k, k], pads: [1, 1, 1, 1], strides: [stride, stride], group });
  };
  const qopIn = (): [string, string] => {
    const [s, z] = qop(b, 'x', qx);
    b.node('QuantizeLinear', ['x', s, z], ['xq']);
    return [s, z];
  };
  const qopOut = (y: string, q: QP): QModel => {
    const [s, z] = qop(b, 'yq', q);
    b.node('DequantizeLinear', [y, s, z], ['out']);
    b.output('out', 'float32');
    return { builder: b, inputs };
  };
  switch (form) {
    case 'QDQ Conv 3x3 + Relu':
      w.qdq('x', 'xd', qx);
      conv(12, 1, 3, 1);
      b.node('Relu', ['c'], ['r']);
      return out('r', act(rng, v, 2, true));
    case 'QDQ Conv (float weights through Q, float bias)': {
      // As PyTorch exports: float weights -> QuantizeLinear -> DequantizeLinear, the bias left float.
      w.qdq('x', 'xd', qx);
      const ws = weightScales(rng, 6, v.perChannel, C * 9);
      b.initializer('wf', 'float32', [6, C, 3, 3], rng.floats(6 * C * 9, -1, 1).map((x, i) => f32(x * 127 * ws[ws.length > 1 ? Math.floor(i / (C * 9)) : 0])));
      b.initializer('ws', 'float32', ws.length > 1 ? [6] : [], ws).initializer('wz', 'int8', ws.length > 1 ? [6] : [], ws.map(() => 0));
      b.node('QuantizeLinear', ['wf', 'ws', 'wz'], ['wq'], ws.length > 1 ? { axis: 0 } : {});
      b.node('DequantizeLinear', ['wq', 'ws', 'wz'], ['w'], ws.length > 1 ? { axis: 0 } : {});
      b.initializer('bias', 'float32', [6], rng.floats(6, -0.3, 0.3));
      b.node('Conv', ['xd', 'w', 'bias'], ['c'], { kernel_shape: [3, 3], pads: [0, 1, 2, 1], dilations: [2, 1] });
      return out('c', act(rng, v, 2));
    }
    case 'QDQ depthwise Conv stride 2':
      w.qdq('x', 'xd', qx);
      conv(C, C, 3, 2);
      return out('c', act(rng, v, 2));
    case 'QDQ Gemm + bias': {
      b.initializer('shape', 'int64', [2], [16, 24]);
      w.qdq('x', 'xd0', qx);
      b.node('Reshape', ['xd0', 'shape'], ['xd']);
      const ws = weightScales(rng, 20, v.perChannel, 24);
      w.constDq('w', 'int8', [20, 24], weightCodes(rng, 480), ws, ws.map(() => 0), 0);
      const bs = Array.from({ length: 20 }, (_, j) => f32(qx.scale * ws[ws.length > 1 ? j : 0]));
      w.constDq('bias', 'int32', [20], rng.ints(20, -2000, 2000), bs, bs.map(() => 0), 0);
      b.node('Gemm', ['xd', 'w', 'bias'], ['g'], { transB: 1 });
      return out('g', act(rng, v, 2));
    }
    case 'QDQ MatMul (weights)': {
      w.qdq('x', 'xd', qx);
      const ws = weightScales(rng, 20, v.perChannel, 24);
      w.constDq('w', 'int8', [24, 20], weightCodes(rng, 480), ws, ws.map(() => 0), 1);
      b.node('MatMul', ['xd', 'w'], ['m']);
      return out('m', act(rng, v, 2));
    }
    case 'QDQ MatMul (activations)': {
      // Zero points as the variant says (the row and column sums fold them in).
      w.qdq('x', 'xd', qx);
      w.qdq(second(), 'xd2', act(rng, v, 1));
      b.node('Transpose', ['xd2'], ['xt'], { perm: [0, 2, 1] });
      b.node('MatMul', ['xd', 'xt'], ['m']);
      return out('m', act(rng, v, 6));
    }
    case 'QDQ Add':
    case 'QDQ Mul': {
      w.qdq('x', 'xd', qx);
      w.qdq(second(), 'xd2', act(rng, v, 0.5));
      b.node(form === 'QDQ Add' ? 'Add' : 'Mul', ['xd', 'xd2'], ['s']);
      return out('s', act(rng, v, form === 'QDQ Add' ? 1.5 : 0.5));
    }
    case 'QDQ GELU (erf form)':
      // As torch exports GELU between onnxruntime's DQ and Q: x * 0.5 * (1 + erf(x / sqrt 2)), a float chain of x.
      w.qdq('x', 'xd', qx);
      b.initializer('sqrt2', 'float32', [], [f32(Math.SQRT2)]).initializer('one', 'float32', [], [1]).initializer('half', 'float32', [], [0.5]);
      b.node('Div', ['xd', 'sqrt2'], ['d']);
      b.node('Erf', ['d'], ['e']);
      b.node('Add', ['e', 'one'], ['e1']);
      b.node('Mul', ['xd', 'e1'], ['m']);
      b.node('Mul', ['m', 'half'], ['g']);
      return out('g', act(rng, v, 0.6));
    case 'QDQ Div, Tanh, Relu':
      w.qdq('x', 'xd', qx);
      b.initializer('k', 'float32', [], [f32(0.37)]);
      b.node('Div', ['xd', 'k'], ['d']);
      b.node('Tanh', ['d'], ['t']);
      b.node('Relu', ['t'], ['r']);
      return out('r', act(rng, v, 1, true));
    case 'QDQ GlobalAveragePool':
    case 'QDQ GlobalAveragePool 56x56':
      w.qdq('x', 'xd', qx);
      b.node('GlobalAveragePool', ['xd'], ['g']);
      return out('g', act(rng, v, 0.3));
    case 'QDQ Pad + AveragePool':
      // As torch exports a padded average: a zero Pad (the zero point), then an unpadded AveragePool.
      w.qdq('x', 'xd', qx);
      b.initializer('pads', 'int64', [8], [0, 0, 1, 0, 0, 0, 1, 1]);
      b.node('Pad', ['xd', 'pads'], ['pd']);
      b.node('AveragePool', ['pd'], ['a'], { kernel_shape: [2, 2], strides: [2, 2] });
      return out('a', act(rng, v, 0.6));
    case 'QDQ AveragePool (padded, counted)':
      w.qdq('x', 'xd', qx);
      b.node('AveragePool', ['xd'], ['a'], { kernel_shape: [3, 3], strides: [1, 1], pads: [1, 1, 1, 1], count_include_pad: 1 });
      return out('a', act(rng, v, 0.5));
    case 'QDQ requantize + Clip':
      w.qdq('x', 'xd', qx);
      b.initializer('lo', 'float32', [], [-0.25]).initializer('hi', 'float32', [], [0.6]);
      b.node('Clip', ['xd', 'lo', 'hi'], ['c']);
      return out('c', act(rng, v, 0.7));
    case 'QDQ Concat (two scales)': {
      w.qdq('x', 'xd', qx);
      w.qdq(second(), 'xd2', act(rng, v, 0.5));
      b.node('Concat', ['xd', 'xd2'], ['c'], { axis: 1 });
      return out('c', act(rng, v, 1));
    }
    case 'QDQ MaxPool':
      w.qdq('x', 'xd', qx);
      b.node('MaxPool', ['xd'], ['p'], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] });
      return out('p', qx);
    case 'QLinearConv': {
      const [s, z] = qopIn();
      const ws = weightScales(rng, 12, v.perChannel, C * 9);
      b.initializer('w', 'int8', [12, C, 3, 3], weightCodes(rng, 12 * C * 9));
      b.initializer('ws', 'float32', ws.length > 1 ? [12] : [], ws).initializer('wz', 'int8', [], [0]);
      b.initializer('bias', 'int32', [12], rng.ints(12, -2000, 2000));
      const qy = act(rng, v, 2);
      const [ys, yz] = qop(b, 'y', qy);
      b.node('QLinearConv', ['xq', s, z, 'w', 'ws', 'wz', ys, yz, 'bias'], ['y'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
      return qopOut('y', qy);
    }
    case 'QLinearMatMul':
    case 'QGemm': {
      const [s, z] = qopIn();
      const gemm = form === 'QGemm';
      if (gemm) {
        b.initializer('shape', 'int64', [2], [16, 24]);
        b.node('Reshape', ['xq', 'shape'], ['xr']);
      }
      const ws = weightScales(rng, 20, v.perChannel, 24);
      b.initializer('w', 'int8', gemm ? [20, 24] : [24, 20], weightCodes(rng, 480));
      b.initializer('ws', 'float32', ws.length > 1 ? [20] : [], ws).initializer('wz', 'int8', ws.length > 1 ? [20] : [], ws.map(() => 0));
      const qy = act(rng, v, 2);
      const [ys, yz] = qop(b, 'y', qy);
      if (gemm) {
        b.initializer('c', 'int32', [20], rng.ints(20, -2000, 2000));
        b.node('QGemm', ['xr', s, z, 'w', 'ws', 'wz', 'c', ys, yz], ['y'], { transB: 1, alpha: 1.25 }, 'com.microsoft');
      } else b.node('QLinearMatMul', ['xq', s, z, 'w', 'ws', 'wz', ys, yz], ['y']);
      return qopOut('y', qy);
    }
    case 'QLinearMatMul (activations)': {
      const [s, z] = qopIn();
      const q2 = act(rng, v, 1);
      const [s2, z2] = qop(b, 'x2', q2);
      b.node('QuantizeLinear', [second(), s2, z2], ['x2q']);
      b.node('Transpose', ['x2q'], ['xt'], { perm: [0, 2, 1] });
      const qy = act(rng, v, 6);
      const [ys, yz] = qop(b, 'y', qy);
      b.node('QLinearMatMul', ['xq', s, z, 'xt', s2, z2, ys, yz], ['y']);
      return qopOut('y', qy);
    }
    case 'QLinearAdd':
    case 'QLinearMul': {
      const [s, z] = qopIn();
      const q2 = act(rng, v, 0.5);
      const [s2, z2] = qop(b, 'x2', q2);
      b.node('QuantizeLinear', [second(), s2, z2], ['xt']);
      const qy = act(rng, v, form === 'QLinearAdd' ? 1.5 : 0.5);
      const [ys, yz] = qop(b, 'y', qy);
      b.node(form, ['xq', s, z, 'xt', s2, z2, ys, yz], ['y'], {}, 'com.microsoft');
      return qopOut('y', qy);
    }
  }
}
