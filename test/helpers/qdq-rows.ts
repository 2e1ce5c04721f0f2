import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { OnnxBuilder } from './onnx-builder.js';
import { act, QdqWriter, type QModel, type QP, type Variant } from './qdq-models.js';
import type { Rng } from './random.js';

/*
 * Row ops of a transformer between DequantizeLinear and QuantizeLinear, as onnxruntime's QDQ format and torch's export
 * write them: Softmax along the last axis, and LayerNorm in the decomposed form torch exports (ReduceMean, Sub, Pow,
 * ReduceMean, Add, Sqrt, Div, Mul, Add) with every intermediate quantized (Q -> DQ after each op). One form per model,
 * so each difference from onnxruntime is the form's own rounding.
 */

const f32 = Math.fround;
export type RowForm = 'QDQ Softmax' | 'QDQ Softmax (attention rows, 1/256 output)' | 'QDQ Softmax + Clip' | 'QDQ ReduceMean (last axis)' | 'QDQ Sub (row mean)'
  | 'QDQ Pow 2, Add eps, Sqrt' | 'QDQ Div (by a row value)' | 'QDQ Div (by a negative row value)' | 'QDQ LayerNorm (decomposed, each op quantized)'
  | 'QDQ LayerNormalization' | 'QDQ LayerNormalization (float gain and bias, wide rows)' | 'QDQ LayerNorm (decomposed, between one DQ and one Q)'
  | 'QDQ LayerNorm (decomposed with d*d, dequantized gain, no bias)';

export const ROW_FORMS: RowForm[] = [
  'QDQ Softmax', 'QDQ Softmax (attention rows, 1/256 output)', 'QDQ Softmax + Clip', 'QDQ ReduceMean (last axis)', 'QDQ Sub (row mean)',
  'QDQ Pow 2, Add eps, Sqrt', 'QDQ Div (by a row value)', 'QDQ Div (by a negative row value)', 'QDQ LayerNorm (decomposed, each op quantized)',
  'QDQ LayerNormalization', 'QDQ LayerNormalization (float gain and bias, wide rows)', 'QDQ LayerNorm (decomposed, between one DQ and one Q)',
  'QDQ LayerNorm (decomposed with d*d, dequantized gain, no bias)',
];

export interface RowModel extends QModel {
  /** More float inputs like `inputs`, drawn over the range the model's input quantization covers. */
  samples: NDArray[][];
}

/** Float samples over [-range, range): logits that span several units make the exponent table matter. */
function sample(rng: Rng, shape: number[], range: number, offset = 0): NDArray {
  return ndarray('float32', shape, rng.floats(shape.reduce((p, d) => p * d, 1), offset - range, offset + range));
}

export function rowModel(rng: Rng, form: RowForm, v: Variant, count: number): RowModel {
  const fused = form.startsWith('QDQ LayerNormalization');
  const b = new OnnxBuilder('rows', { opset: fused ? 17 : 13 });
  const w = new QdqWriter(b);
  const attention = form === 'QDQ Softmax (attention rows, 1/256 output)';
  const shape = attention ? [1, 4, 16, 16] : form === 'QDQ LayerNormalization (float gain and bias, wide rows)' ? [1, 8, 384] : [1, 16, 24];
  b.input('x', 'float32', shape);
  const range = form.includes('Softmax') ? 4 : 2;
  // LayerNorm inputs sit off zero, so the row mean matters.
  const offset = form.includes('Softmax') ? 0 : 0.5;
  const qx = act(rng, v, range + offset);
  const draw = (): NDArray[] => [sample(rng, shape, range, offset)];
  const model = (y: string, q: QP): RowModel => {
    w.qdq(y, 'out', q);
    b.output('out', 'float32');
    return { builder: b, inputs: draw(), samples: Array.from({ length: count }, draw) };
  };
  /** A float op's output quantized and dequantized again: onnxruntime's QDQ format after every op. */
  const step = (y: string, q: QP): string => w.qdq(y, `${y}_dq`, q);
  const positive = (r: number): QP => act(rng, v, r, true);
  const probabilities: QP = attention ? { scale: f32(1 / 256), zp: v.act === 'uint8' ? 0 : -128, type: v.act } : positive(1);
  w.qdq('x', 'xd', qx);
  b.initializer('axes', 'int64', [1], [-1]);
  switch (form) {
    case 'QDQ Softmax':
    case 'QDQ Softmax (attention rows, 1/256 output)':
      b.node('Softmax', ['xd'], ['p'], { axis: -1 });
      return model('p', probabilities);
    case 'QDQ Softmax + Clip':
      // A Clip after the Softmax: the output range narrowed to [0.1, 1] (the clip path).
      b.initializer('lo', 'float32', [], [0.1]);
      b.node('Softmax', ['xd'], ['p']);
      b.node('Clip', ['p', 'lo'], ['c']);
      return model('c', probabilities);
    case 'QDQ ReduceMean (last axis)':
      b.node('ReduceMean', ['xd'], ['m'], { axes: [-1] });
      return model('m', act(rng, v, 0.5 + offset));
    case 'QDQ Sub (row mean)':
      b.node('ReduceMean', ['xd'], ['m'], { axes: [-1] });
      b.node('Sub', ['xd', step('m', act(rng, v, 0.5 + offset))], ['d']);
      return model('d', act(rng, v, range));
    case 'QDQ Pow 2, Add eps, Sqrt': {
      b.initializer('two', 'float32', [], [2]).initializer('eps', 'float32', [], [f32(1e-5)]);
      b.node('Pow', ['xd', 'two'], ['s']);
      b.node('Add', [step('s', positive((range + offset) ** 2)), 'eps'], ['e']);
      b.node('Sqrt', [step('e', positive((range + offset) ** 2))], ['r']);
      return model('r', positive(range + offset));
    }
    case 'QDQ Div (by a row value)':
    case 'QDQ Div (by a negative row value)': {
      // The divisor: the row mean moved to [0.3, 1.7] (or its negative), quantized on its own.
      b.node('ReduceMean', ['xd'], ['m'], { axes: [-1] });
      b.initializer('k', 'float32', [], [0.7]);
      b.node('Add', [step('m', act(rng, v, 0.5 + offset)), 'k'], ['den']);
      const negative = form === 'QDQ Div (by a negative row value)';
      if (negative) b.node('Neg', ['den'], ['nden']);
      b.node('Div', ['xd', step(negative ? 'nden' : 'den', negative ? act(rng, v, 2) : positive(2))], ['q']);
      return model('q', act(rng, v, (range + offset) / 0.5));
    }
    case 'QDQ LayerNorm (decomposed, each op quantized)': {
      const C = shape[shape.length - 1];
      b.initializer('two', 'float32', [], [2]).initializer('eps', 'float32', [], [f32(1e-5)]);
      b.node('ReduceMean', ['xd'], ['m'], { axes: [-1] });
      b.node('Sub', ['xd', step('m', act(rng, v, 0.5 + offset))], ['d']);
      const d = step('d', act(rng, v, range));
      b.node('Pow', [d, 'two'], ['s']);
      b.node('ReduceMean', [step('s', positive(range * range))], ['var'], { axes: [-1] });
      b.node('Add', [step('var', positive(range * range / 3)), 'eps'], ['ve']);
      b.node('Sqrt', [step('ve', positive(range * range / 3))], ['std']);
      b.node('Div', [d, step('std', positive(range))], ['z']);
      // gamma and beta as onnxruntime writes float constants read by a Mul/Add: int8 symmetric per tensor.
      const gamma = rng.floats(C, 0.5, 1.5);
      const beta = rng.floats(C, -0.2, 0.2);
      const sg = f32(1.5 / 127);
      const sb = f32(0.2 / 127);
      w.constDq('gamma', 'int8', [C], gamma.map((g) => Math.round(g / sg)), [sg], [0], 0);
      w.constDq('beta', 'int8', [C], beta.map((g) => Math.round(g / sb)), [sb], [0], 0);
      b.node('Mul', [step('z', act(rng, v, 2.5)), 'gamma'], ['g']);
      b.node('Add', [step('g', act(rng, v, 3)), 'beta'], ['y']);
      return model('y', act(rng, v, 3));
    }
    case 'QDQ LayerNorm (decomposed, between one DQ and one Q)':
    case 'QDQ LayerNorm (decomposed with d*d, dequantized gain, no bias)': {
      // torch's opset-13 LayerNorm with onnxruntime's QDQ around the whole (its quantizer leaves these ops float).
      const C = shape[shape.length - 1];
      const gamma = rng.floats(C, 0.5, 1.5);
      b.initializer('two', 'float32', [], [2]).initializer('eps', 'float32', [], [f32(1e-5)]);
      b.node('ReduceMean', ['xd'], ['m'], { axes: [-1] });
      b.node('Sub', ['xd', 'm'], ['d']);
      if (form === 'QDQ LayerNorm (decomposed, between one DQ and one Q)') b.node('Pow', ['d', 'two'], ['s']);
      else b.node('Mul', ['d', 'd'], ['s']);
      b.node('ReduceMean', ['s'], ['var'], { axes: [-1] });
      b.node('Add', ['var', 'eps'], ['ve']);
      b.node('Sqrt', ['ve'], ['std']);
      b.node('Div', ['d', 'std'], ['z']);
      if (form === 'QDQ LayerNorm (decomposed, between one DQ and one Q)') {
        b.initializer('gamma', 'float32', [C], gamma).initializer('beta', 'float32', [C], rng.floats(C, -0.2, 0.2));
        b.node('Mul', ['z', 'gamma'], ['g']);
        b.node('Add', ['g', 'beta'], ['y']);
        return model('y', act(rng, v, 3));
      }
      const sg = f32(1.5 / 127);
      w.constDq('gamma', 'int8', [C], gamma.map((g) => Math.round(g / sg)), [sg], [0], 0);
      b.node('Mul', ['gamma', 'z'], ['y']);
      return model('y', act(rng, v, 3));
    }
    case 'QDQ LayerNormalization':
    case 'QDQ LayerNormalization (float gain and bias, wide rows)': {
      // As onnxruntime's QDQ format writes LayerNormalization (opset 17): one DQ in, one Q out, the float op between;
      // the gain dequantized from int8 (per tensor) or float, the bias float.
      const C = shape[shape.length - 1];
      const gamma = rng.floats(C, 0.5, 1.5);
      b.initializer('beta', 'float32', [C], rng.floats(C, -0.2, 0.2));
      if (form === 'QDQ LayerNormalization') {
        const sg = f32(1.5 / 127);
        w.constDq('gamma', 'int8', [C], gamma.map((g) => Math.round(g / sg)), [sg], [0], 0);
      } else b.initializer('gamma', 'float32', [C], gamma);
      b.node('LayerNormalization', ['xd', 'gamma', 'beta'], ['y'], { axis: -1, epsilon: f32(1e-5) });
      return model('y', act(rng, v, 3));
    }
  }
}
