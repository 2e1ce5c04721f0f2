import { GenError, quoted } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { chooseActivation, fixedActivation, type ActivationQuant, type Observed } from './clipping.js';
import { biasScale, pow2Ceil, quantizeBias, quantizeWeights, scaleFor, WEIGHT_MAX } from './fixed-point.js';
import type { Activation, LinearUnit, QuantizeOptions, Unit } from './types.js';
import { roundHalfEven } from '../reference/exact.js';

/*
 * Quantization parameters of every tensor the integer graph holds, and the integer weights and biases.
 * A tensor is unsigned (uint8) only when it is non-negative by construction: after ReLU or Clip(0, hi), after
 * ops that keep non-negative values non-negative (pooling, data movement, Add of two such tensors, Concat of
 * them), the softmax output, or a graph input that was never negative on the calibration data (images in [0, 1]).
 * Everything else is int8; a linear layer whose output feeds a Softmax directly is int16 (the integer softmax
 * wants a fine input grid, SEMANTICS.md iSoftmax).
 */

export interface LinearQuant {
  /** Integer weights in the float weights' layout. */
  wq: Float64Array;
  /** Weight scale per output channel (one entry for per-tensor). */
  wScales: number[];
  /** int32 bias per output channel (its scale is s_x * s_w). */
  biasQ: Float64Array;
}

export interface Plan {
  units: Unit[];
  /** Quantization of every float tensor that has an integer counterpart (graph inputs, unit outputs). */
  act: Map<string, ActivationQuant>;
  linear: Map<string, LinearQuant>;
  options: Required<QuantizeOptions>;
}

const SOFTMAX_INPUT_FLOOR = Math.fround(Math.LN2 / 1024);

const nonNegativeAct = (a: Activation): boolean => a.kind === 'relu' || (a.kind === 'clip' && a.lo === 0);

/** The output of a Relu/Clip on a tensor quantized as `q`: the same scale, clipped further. */
function clipped(q: ActivationQuant, a: Activation): ActivationQuant {
  if (a.kind === 'none') return q;
  const hi = a.kind === 'clip' ? Math.min(q.qmax, roundHalfEven(a.hi / q.scale)) : q.qmax;
  const signed = a.kind === 'clip' && a.lo < 0 && q.signed;
  return { ...q, signed, qmax: hi, clip: hi * q.scale };
}

export function assignActivations(g: Graph, units: Unit[], observed: Map<string, Observed>, opts: Required<QuantizeOptions>): Map<string, ActivationQuant> {
  const pow2 = opts.scheme === 'pow2';
  const act = new Map<string, ActivationQuant>();
  const get = (t: string): ActivationQuant => {
    const q = act.get(t);
    if (!q) throw new Error(`no quantization for tensor '${t}'`);
    return q;
  };
  const choose = (t: string, signed: boolean, bits: 8 | 16 = 8): ActivationQuant => {
    const o = observed.get(t);
    if (!o) throw new Error(`tensor '${t}' was not calibrated`);
    return chooseActivation(o, opts.calibrate, pow2, signed, bits);
  };
  for (const name of g.inputs) {
    // Integer inputs are token ids: they index an embedding and pass through unscaled.
    act.set(name, g.tensors.get(name)?.dtype === 'float32' ? choose(name, observed.get(name)!.min < 0) : fixedActivation(1, true, 32));
  }
  const wide = softmaxFeeds(units);
  const written = new Map<string, ActivationQuant>(); // caches and the grid their first writer gave them
  for (const u of units) {
    switch (u.kind) {
      case 'linear':
      case 'matmul': {
        const factor = wide.get(u.out);
        const isWide = factor !== undefined && u.act.kind === 'none';
        const q = choose(u.out, !nonNegativeAct(u.act), isWide ? 16 : 8);
        // iSoftmax's log2 = ln2 / S must stay <= 1024 so its polynomial fits 32-bit words: S has a floor (at the
        // softmax input, which a scale unit between them multiplies by `factor`).
        const floor = (pow2 ? pow2Ceil(SOFTMAX_INPUT_FLOOR) : SOFTMAX_INPUT_FLOOR) / (factor ?? 1);
        act.set(u.out, isWide && q.scale < floor ? fixedActivation(floor, true, 16) : q);
        break;
      }
      case 'rmsnorm':
      case 'center':
      case 'mulconst':
        act.set(u.out, choose(u.out, true));
        break;
      case 'lut':
        act.set(u.out, choose(u.out, observed.get(u.out)!.min < 0));
        break;
      case 'mul':
        act.set(u.out, choose(u.out, get(u.a).signed || get(u.b).signed));
        break;
      case 'addconst':
        act.set(u.out, u.mask ? get(u.x) : choose(u.out, true, get(u.x).bits === 16 ? 16 : 8));
        break;
      case 'scale': {
        const q = get(u.x);
        act.set(u.out, { ...q, scale: Math.fround(q.scale * u.factor), clip: q.clip * u.factor });
        break;
      }
      case 'cache': {
        // The cache (a graph input fed back from this output) holds rows of x as they are. A prompt pass writes the
        // same cache (prompt-pass.ts): on the step's grid, or the rows would be read on another scale.
        const held = written.get(u.cache);
        const q = get(u.x);
        written.set(u.cache, q);
        if (held && (held.scale !== q.scale || held.signed !== q.signed || held.bits !== q.bits || held.qmax !== q.qmax)) {
          throw new GenError('unsupported', `the cache ${quoted(u.cache)} is written on two grids (scales ${held.scale} and ${q.scale}): the prompt pass and the step must compute its rows alike`, { node: u.name });
        }
        act.set(u.out, q);
        act.set(u.cache, q);
        break;
      }
      case 'posmask':
        act.set(u.out, get(u.x));
        break;
      case 'embed': {
        const maxAbs = u.table.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        act.set(u.out, fixedActivation(scaleFor(maxAbs, WEIGHT_MAX, pow2), true));
        break;
      }
      case 'add':
        act.set(u.out, choose(u.out, !(nonNegativeAct(u.act) || (!get(u.a).signed && !get(u.b).signed))));
        break;
      case 'gap':
      case 'avgpool':
        act.set(u.out, choose(u.out, get(u.x).signed && !nonNegativeAct(u.act)));
        break;
      case 'concat':
        act.set(u.out, choose(u.out, u.inputs.some((i) => get(i).signed)));
        break;
      case 'softmax':
        act.set(u.out, fixedActivation(1 / 255, false));
        break;
      case 'pass':
        act.set(u.out, get(u.x));
        break;
      case 'act':
        act.set(u.out, clipped(get(u.x), u.act));
        break;
    }
  }
  // A fused Clip(0, hi) or Clip(-a, a) also bounds the requantized output (the clip itself, in integers).
  for (const u of units) {
    if ((u.kind === 'linear' || u.kind === 'matmul' || u.kind === 'add' || u.kind === 'gap' || u.kind === 'avgpool') && u.act.kind === 'clip') {
      act.set(u.out, clipped(get(u.out), u.act));
    }
  }
  return act;
}

/**
 * Tensors that reach a Softmax through scale and mask units only (attention scores): quantized to 16 bits, the
 * integer softmax's fine input grid. Each maps to the product of the scale factors between it and the softmax.
 */
function softmaxFeeds(units: Unit[]): Map<string, number> {
  const wide = new Map<string, number>();
  for (const u of units) if (u.kind === 'softmax') wide.set(u.x, 1);
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i];
    const f = wide.get(u.out);
    if (f === undefined) continue;
    if (u.kind === 'scale') wide.set(u.x, f * u.factor);
    else if ((u.kind === 'addconst' && u.mask) || u.kind === 'posmask') wide.set(u.x, f);
  }
  return wide;
}

export function quantizeLinear(u: LinearUnit, inputQuant: ActivationQuant, opts: Required<QuantizeOptions>): LinearQuant {
  const { q, scales } = quantizeWeights(u.w, u.wShape, u.outAxis, opts.scheme !== 'per-tensor', opts.scheme === 'pow2');
  const channels = u.wShape[u.outAxis];
  const biasQ = new Float64Array(channels);
  for (let j = 0; j < channels; j++) biasQ[j] = quantizeBias(u.bias[j], biasScale(inputQuant.scale, scales[scales.length === 1 ? 0 : j]));
  return { wq: q, wScales: scales, biasQ };
}

/** The weight scale of output channel j. */
export function weightScale(l: LinearQuant, j: number): number {
  return l.wScales.length === 1 ? l.wScales[0] : l.wScales[j];
}
