import { attrInts } from '../ir/attrs.js';
import type { AttrValue, Graph, Tensor } from '../ir/graph.js';
import type { ActivationQuant } from './clipping.js';
import { addMulShift, biasScale, fineMulShift, toMulShift, type MulShift } from './fixed-point.js';
import { GraphBuilder, int, ints, quantDType } from './builder.js';
import { weightScale, type Plan } from './params.js';
import { lowerTransformerUnit } from './lower-transformer.js';
import type { LinearUnit, Unit } from './types.js';

/*
 * The integer model the generator consumes (SEMANTICS.md section 1): integer Conv/Gemm/MatMul with int8 weights
 * and int32 biases, each followed by a RequantShift whose (mul, div = 2^shift) stands for the real multiplier
 * s_x * s_w / s_y, and whose clip range is the output type's (uint8 for ReLU outputs: the ReLU is the clip).
 * Multipliers: 15 bits where a RequantShift scales an accumulator (convs, products, pools, reductions: boardMulShift
 * below), up to 24 bits where it scales 8-bit values (concat inputs, the Add's operands: fineMulShift).
 * Float tensor names are kept for every quantized tensor, so the report and the QDQ model line up with it.
 */

const f32 = Math.fround;

export interface Lowered {
  graph: Graph;
  /** (mul, shift) of each unit's requantization, by unit name (Add: one mul per operand). */
  requant: Map<string, MulShift>;
}

function levelsOf(q: ActivationQuant): { n: number; signed: number } {
  return q.signed ? { n: 2 * (q.qmax + 1), signed: 1 } : { n: q.qmax + 1, signed: 0 };
}

/*
 * The integer model is what the board runs, so by default its accumulator multipliers keep 15 bits (toMulShift):
 * their product with a conv's accumulator then splits at bit 16 into int32 steps (backend/expr.ts splitRequantExpr)
 * where 24 bits force a 64-bit multiply per output (mulh, 5 cycles on CV32E40P): MobileNetV1-0.25 on 8 ISS cores
 * 1,359,714 against 1,543,200 cycles. The relative error 2^-16 of M lies far under the quantization step. With
 * `multiplierBits` 24 they are onnxruntime's (fineMulShift), as the QDQ import lowers the --qdq model
 * (frontend/passes/quantized/emit.ts): then the two equal exactly.
 */

export function lowerToInteger(inferred: Graph, plan: Plan): Lowered {
  const boardMulShift = (multipliers: readonly number[]): MulShift =>
    plan.options.multiplierBits === 24 ? fineMulShift(multipliers) : toMulShift(multipliers);
  const b = new GraphBuilder(`${inferred.name}_int8`, inferred.source);
  const requant = new Map<string, MulShift>();
  const shapeOf = (t: string): number[] => inferred.tensors.get(t)?.shape ?? [];
  const q = (t: string): ActivationQuant => {
    const a = plan.act.get(t);
    if (!a) throw new Error(`no quantization for tensor '${t}'`);
    return a;
  };
  const declare = (t: string): string => b.tensor(t, quantDType(q(t).signed, q(t).bits), shapeOf(t));

  /** RequantShift(x) -> y with multipliers along `axis` of y (or one for all) and y's range as the clip. */
  const requantize = (unit: string, x: string, y: string, ms: MulShift, axis?: number): void => {
    const rank = shapeOf(y).length;
    const perChannel = ms.mul.length > 1 && !ms.mul.every((m) => m === ms.mul[0]);
    const mul = perChannel ? ms.mul : [ms.mul[0]];
    const shape = perChannel && axis !== undefined ? shapeOf(y).map((d, i) => (i === axis ? d : 1)) : [1];
    if (perChannel && axis === rank - 1) shape.splice(0, rank - 1); // [N]: per column of a Gemm/MatMul
    b.constant(`${unit}_mul`, 'int32', shape, mul);
    b.constant(`${unit}_add`, 'int32', [1], [0]);
    const { n, signed } = levelsOf(q(y));
    declare(y);
    b.node('RequantShift', `${unit}_requant`, [x, `${unit}_mul`, `${unit}_add`], [y], { div: int(2 ** ms.shift), n_levels: int(n), signed: int(signed) });
    requant.set(unit, ms);
  };
  const acc = (unit: string, shape: number[]): string => b.tensor(`${unit}_acc`, 'int32', shape);

  for (const name of inferred.inputs) declare(name);
  for (const u of plan.units) lowerUnit(u);

  function lowerUnit(u: Unit): void {
    switch (u.kind) {
      case 'linear': return lowerLinear(u);
      case 'matmul': {
        const a = acc(u.name, shapeOf(u.out));
        b.node('MatMul', u.name, [u.a, u.b], [a]);
        return requantize(u.name, a, u.out, boardMulShift([f32(f32(q(u.a).scale * q(u.b).scale) / q(u.out).scale)]));
      }
      case 'add': {
        const top = (t: string): number => (q(t).signed ? q(t).qmax + 1 : q(t).qmax);
        const ms = addMulShift(f32(q(u.a).scale / q(u.out).scale), f32(q(u.b).scale / q(u.out).scale), top(u.a), top(u.b));
        const terms = [u.a, u.b].map((x, i) => {
          b.constant(`${u.name}_m${i}`, 'int32', [1], [ms.mul[i]]);
          const t = b.tensor(`${u.name}_t${i}`, 'int32', shapeOf(x));
          b.node('Mul', `${u.name}_scale${i}`, [x, `${u.name}_m${i}`], [t]);
          return t;
        });
        const sum = acc(u.name, shapeOf(u.out));
        b.node('Add', u.name, terms, [sum]);
        requantize(u.name, sum, u.out, { mul: [1], shift: ms.shift });
        requant.set(u.name, ms);
        return;
      }
      case 'gap': {
        const x = shapeOf(u.x);
        const axes = x.slice(2).map((_, i) => i + 2);
        const count = x.slice(2).reduce((p, d) => p * d, 1);
        b.constant(`${u.name}_axes`, 'int64', [axes.length], axes);
        const sum = acc(u.name, shapeOf(u.out));
        b.node('ReduceSum', u.name, [u.x, `${u.name}_axes`], [sum], { keepdims: int(1) });
        return requantize(u.name, sum, u.out, boardMulShift([f32(q(u.x).scale / count) / q(u.out).scale]));
      }
      case 'avgpool': {
        // An average over a window is a depthwise convolution with weights 1, divided by the window size.
        const C = shapeOf(u.x)[1];
        const k = attrInts(u.node, 'kernel_shape');
        const taps = k.reduce((p, d) => p * d, 1);
        b.constant(`${u.name}_ones`, 'int8', [C, 1, ...k], new Array<number>(C * taps).fill(1));
        const attrs: Record<string, AttrValue> = { kernel_shape: ints(k), group: int(C) };
        for (const a of ['pads', 'strides'] as const) if (u.node.attrs[a]) attrs[a] = u.node.attrs[a];
        const sum = acc(u.name, shapeOf(u.out));
        b.node('Conv', u.name, [u.x, `${u.name}_ones`], [sum], attrs);
        return requantize(u.name, sum, u.out, boardMulShift([f32(q(u.x).scale / taps) / q(u.out).scale]));
      }
      case 'concat': {
        const parts = u.inputs.map((x, i) => {
          const from = q(x);
          const to = q(u.out);
          if (from.scale === to.scale && from.signed === to.signed && from.qmax <= to.qmax) return x;
          const y = `${u.name}_in${i}`;
          b.tensor(y, quantDType(to.signed, to.bits), shapeOf(x));
          const ms = fineMulShift([f32(from.scale / to.scale)]);
          const { n, signed } = levelsOf(to);
          b.constant(`${y}_mul`, 'int32', [1], ms.mul);
          b.constant(`${y}_add`, 'int32', [1], [0]);
          b.node('RequantShift', `${y}_requant`, [x, `${y}_mul`, `${y}_add`], [y], { div: int(2 ** ms.shift), n_levels: int(n), signed: int(signed) });
          return y;
        });
        declare(u.out);
        b.node('Concat', u.name, parts, [u.out], { ...u.node.attrs });
        return;
      }
      case 'softmax': {
        declare(u.out);
        // After a PositionMask (a decoder's cache) the softmax itself spans the rows written so far.
        const mask = plan.units.find((m) => m.kind === 'posmask' && m.out === u.x);
        const pos = mask?.kind === 'posmask' ? [mask.node.inputs[1]] : [];
        b.node('iSoftmax', u.name, [u.x, ...pos], [u.out], softmaxCoefficients(q(u.x).scale));
        return;
      }
      case 'pass': {
        for (const i of u.node.inputs.slice(1)) if (i) b.copy(inferred.tensors.get(i) as Tensor);
        declare(u.out);
        // A float Cast is no op on integers.
        if (u.node.op === 'Cast') b.node('Identity', u.name, [u.x], [u.out]);
        else b.node(u.node.op, u.name, [...u.node.inputs], [u.out], { ...u.node.attrs });
        return;
      }
      case 'rmsnorm':
      case 'center':
      case 'lut':
      case 'mul':
      case 'mulconst':
      case 'addconst':
      case 'scale':
      case 'embed':
      case 'cache':
      case 'posmask':
        return lowerTransformerUnit(u, { b, q, declare, shapeOf, requantize, acc, feedsSoftmax: (t) => plan.units.some((s) => s.kind === 'softmax' && s.x === t) });
      case 'act':
        return requantize(u.name, u.x, u.out, { mul: [1], shift: 0 });
    }
  }

  function lowerLinear(u: LinearUnit): void {
    const l = plan.linear.get(u.name)!;
    const w = b.constant(`${u.name}_w`, 'int8', u.wShape, l.wq);
    const channels = u.wShape[u.outAxis];
    const hasBias = u.biasTensor !== undefined || l.biasQ.some((v) => v !== 0);
    const bias = hasBias ? b.constant(`${u.name}_b`, 'int32', [channels], l.biasQ) : undefined;
    const outShape = shapeOf(u.out);
    const a = acc(u.name, outShape);
    if (u.op === 'MatMul') {
      const mm = bias ? b.tensor(`${u.name}_mm`, 'int32', outShape) : a;
      b.node('MatMul', u.name, [u.x, w], [mm]);
      if (bias) b.node('Add', `${u.name}_bias`, [mm, bias], [a]);
    } else {
      const attrs = { ...u.node.attrs };
      delete attrs.alpha; // folded into the weights and the bias
      delete attrs.beta;
      b.node(u.op, u.name, [u.x, w, ...(bias ? [bias] : [])], [a], attrs);
    }
    const sx = q(u.x).scale;
    const sy = q(u.out).scale;
    const mults = Array.from({ length: l.wScales.length }, (_, j) => f32(biasScale(sx, weightScale(l, j)) / sy));
    requantize(u.name, a, u.out, boardMulShift(mults), u.op === 'Conv' ? 1 : outShape.length - 1);
  }

  return { graph: b.graph([...inferred.inputs], [...inferred.outputs]), requant };
}

/** The lowering context transformer units share with the others (lower-transformer.ts). */
export interface LowerCtx {
  b: GraphBuilder;
  q: (t: string) => ActivationQuant;
  declare: (t: string) => string;
  shapeOf: (t: string) => number[];
  requantize: (unit: string, x: string, y: string, ms: MulShift, axis?: number) => void;
  acc: (unit: string, shape: number[]) => string;
  /** Whether a Softmax unit reads tensor t. */
  feedsSoftmax: (t: string) => boolean;
}

/**
 * iSoftmax coefficients for an input grid of scale S (I-BERT's integer exp): exp(r) ~ 0.3585 (r + 1.353)^2 + 0.344
 * on (-ln2, 0], so with p = r / S: coeffA = 1, coeffB = round(1.353 / S), coeffC = round(0.344 / (0.3585 S^2));
 * log2 = round(ln2 / S) splits off the powers of two. The common factor 0.3585 S^2 cancels in the normalisation.
 */
export function softmaxCoefficients(S: number): Record<string, AttrValue> {
  return {
    coeffA: int(1),
    coeffB: int(Math.round(1.353 / S)),
    coeffC: int(Math.round(0.344 / (0.3585 * S * S))),
    log2: int(Math.max(1, Math.round(Math.LN2 / S))),
    n_levels: int(256),
  };
}
