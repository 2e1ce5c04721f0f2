import { GenError } from '../errors.js';
import { attrInt, attrNumber, hasAttr } from '../ir/attrs.js';
import { consumersOf, type Graph, type Node } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { transformerUnit } from './transformer.js';
import type { Activation, LinearUnit, Unit } from './types.js';

/*
 * Reads a float model (after shape inference) as a list of quantization units in execution order. Patterns:
 *   Conv | Gemm | MatMul(x, constant W) [+ Add(constant bias)] [+ Relu | Clip]   -> linear
 *   MatMul(a, b) of two activations [+ act]                                       -> matmul
 *   Add(a, b) of two activations [+ act]                                          -> add
 *   GlobalAveragePool | AveragePool [+ act]                                       -> gap | avgpool
 *   Concat, Softmax                                                               -> concat, softmax
 *   MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze, Identity            -> pass (scale unchanged)
 *   Pad with zeros (zero is exact at every scale; torch exports AvgPool2d with one) -> pass
 *   Relu | Clip after anything else                                               -> act
 *   the operators of a Llama-style decoder (transformer.ts), which also cover an LSTM cell once expand-lstm.ts
 *   has unrolled it (Sigmoid, Tanh, Mul of two activations)
 * Anything else is an 'unsupported' error naming the node.
 */

const PASS = new Set(['MaxPool', 'Flatten', 'Reshape', 'Transpose', 'Squeeze', 'Unsqueeze', 'Identity', 'Slice', 'Gather']);

const unsupported = (n: Node, why: string): GenError => new GenError('unsupported', why, { node: n.name, op: n.op });

function constData(g: Graph, name: string | undefined): Float64Array | undefined {
  return name ? g.tensors.get(name)?.data?.data : undefined;
}

/** The activation a Relu/Clip node applies (Clip bounds from inputs or opset-6 attributes). */
function activationOf(g: Graph, n: Node): Activation | undefined {
  if (n.op === 'Relu') return { kind: 'relu' };
  if (n.op !== 'Clip') return undefined;
  const bound = (i: number, attr: string, fallback: number): number | undefined => {
    if (n.inputs[i]) return constData(g, n.inputs[i])?.[0];
    return hasAttr(n, attr) ? attrNumber(n, attr) : fallback;
  };
  const lo = bound(1, 'min', -Infinity);
  const hi = bound(2, 'max', Infinity);
  if (lo === undefined || hi === undefined) throw unsupported(n, 'Clip bounds must be constants');
  if (lo > 0) throw unsupported(n, `Clip with a positive lower bound (${lo}) has no symmetric int8 form`);
  if (lo < 0 && lo !== -hi) throw unsupported(n, `Clip(${lo}, ${hi}): only Clip(0, hi) and Clip(-a, a) map onto the int8 ranges`);
  return lo === 0 ? (hi === Infinity ? { kind: 'relu' } : { kind: 'clip', lo, hi }) : { kind: 'clip', lo, hi };
}

const KNOWN = new Set([
  ...PASS, 'Pad', 'Conv', 'Gemm', 'MatMul', 'Add', 'GlobalAveragePool', 'AveragePool', 'Concat', 'Softmax', 'Relu', 'Clip',
  'CacheWrite', 'PositionMask', 'Gather', 'Slice', 'Pow', 'ReduceMean', 'Sqrt', 'Reciprocal', 'Div', 'Mul', 'Sigmoid', 'Tanh', 'Neg', 'Where', 'Cast', 'Sub', 'Erf',
]);

/** Fails on the first op the quantizer cannot map (before shape inference, which knows even fewer float ops). */
export function checkOps(g: Graph): void {
  const n = g.nodes.find((m) => !KNOWN.has(m.op) || m.domain !== '');
  if (n) throw unsupported(n, `the quantizer has no integer form for ${n.domain ? `${n.domain}.` : ''}${n.op}`);
}

export function analyzeGraph(g: Graph): Unit[] {
  const consumers = consumersOf(g);
  const sole = (t: string): Node | undefined => {
    const c = consumers.get(t) ?? [];
    return c.length === 1 && !g.outputs.includes(t) ? c[0] : undefined;
  };
  const isConst = (t: string): boolean => g.tensors.get(t)?.data !== undefined;
  const taken = new Set<Node>();
  /** Absorbs a following Relu/Clip into the unit: returns the activation and the unit's output tensor. */
  const fuseAct = (t: string, nodes: string[]): { act: Activation; out: string } => {
    const c = sole(t);
    const act = c ? activationOf(g, c) : undefined;
    if (!c || !act) return { act: { kind: 'none' }, out: t };
    taken.add(c);
    nodes.push(c.name);
    return { act, out: c.outputs[0] };
  };

  const units: Unit[] = [];
  for (const n of g.nodes) {
    if (taken.has(n)) continue;
    const acts = n.inputs.filter((i) => i && !isConst(i));
    const nodes = [n.name];
    const base = { name: n.name, nodes, node: n };
    const t = transformerUnit({ g, sole, isConst, taken }, n);
    if (t) {
      units.push(t);
      continue;
    }
    if ((n.op === 'Conv' || n.op === 'Gemm' || n.op === 'MatMul') && n.inputs[1] && isConst(n.inputs[1])) {
      units.push(linearUnit(g, n, sole, taken, fuseAct));
    } else if (n.op === 'MatMul') {
      units.push({ ...base, kind: 'matmul', a: n.inputs[0], b: n.inputs[1], ...fuseAct(n.outputs[0], nodes) });
    } else if (n.op === 'Add') {
      if (acts.length !== 2) throw unsupported(n, 'Add of a constant that follows no Conv/Gemm/MatMul is not supported');
      units.push({ ...base, kind: 'add', a: n.inputs[0], b: n.inputs[1], ...fuseAct(n.outputs[0], nodes) });
    } else if (n.op === 'GlobalAveragePool' || n.op === 'AveragePool') {
      if (n.op === 'AveragePool') checkAveragePool(n);
      units.push({ ...base, kind: n.op === 'AveragePool' ? 'avgpool' : 'gap', x: n.inputs[0], ...fuseAct(n.outputs[0], nodes) });
    } else if (n.op === 'Concat') {
      units.push({ ...base, kind: 'concat', inputs: acts, out: n.outputs[0] });
    } else if (n.op === 'Softmax') {
      const rank = g.tensors.get(n.inputs[0])?.shape.length ?? 0;
      const axis = attrInt(n, 'axis', -1);
      if (axis !== -1 && axis !== rank - 1) throw unsupported(n, 'only a Softmax over the last axis has an integer form (iSoftmax)');
      units.push({ ...base, kind: 'softmax', x: n.inputs[0], out: n.outputs[0] });
    } else if (n.op === 'Pad') {
      const mode = n.attrs.mode?.kind === 'string' ? n.attrs.mode.value : 'constant';
      const value = n.inputs[2] ? constData(g, n.inputs[2])?.[0] : hasAttr(n, 'value') ? attrNumber(n, 'value') : 0;
      if (mode !== 'constant' || value !== 0) throw unsupported(n, 'only Pad with zeros has an exact integer form (zero point 0)');
      units.push({ ...base, kind: 'pass', x: n.inputs[0], out: n.outputs[0] });
    } else if (PASS.has(n.op)) {
      units.push({ ...base, kind: 'pass', x: n.inputs[0], out: n.outputs[0] });
    } else if (activationOf(g, n)) {
      units.push({ ...base, kind: 'act', x: n.inputs[0], act: activationOf(g, n) as Activation, out: n.outputs[0] });
    } else {
      throw unsupported(n, `the quantizer has no integer form for ${n.op}`);
    }
  }
  return units;
}

function checkAveragePool(n: Node): void {
  if (attrInt(n, 'ceil_mode', 0) !== 0) throw unsupported(n, 'AveragePool with ceil_mode');
  const pads = hasAttr(n, 'pads') ? (n.attrs.pads.value as number[]) : [];
  if (pads.some((p) => p !== 0) && attrInt(n, 'count_include_pad', 0) === 0) {
    throw unsupported(n, 'padded AveragePool without count_include_pad divides edges by fewer taps (no single integer scale)');
  }
  const autoPad = n.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') throw unsupported(n, `AveragePool auto_pad ${autoPad.value}`);
}

type Sole = (t: string) => Node | undefined;
type FuseAct = (t: string, nodes: string[]) => { act: Activation; out: string };

function linearUnit(g: Graph, n: Node, sole: Sole, taken: Set<Node>, fuseAct: FuseAct): LinearUnit {
  const wT = g.tensors.get(n.inputs[1])!;
  const wData = wT.data!;
  let w = Float64Array.from(wData.data);
  const wShape = [...wData.shape];
  let outAxis: number;
  let inAxis: number;
  let biasTensor = n.inputs[2] || undefined;
  let biasScale = 1;
  if (n.op === 'Conv') {
    const group = attrInt(n, 'group', 1);
    outAxis = 0;
    inAxis = group === 1 ? 1 : group === wShape[0] && wShape[1] === 1 ? -1 : -2;
  } else if (n.op === 'Gemm') {
    if (attrInt(n, 'transA', 0) !== 0) throw unsupported(n, 'Gemm with transA');
    const alpha = attrNumber(n, 'alpha', 1);
    biasScale = attrNumber(n, 'beta', 1);
    w = w.map((v) => v * alpha);
    const transB = attrInt(n, 'transB', 0) !== 0;
    outAxis = transB ? 0 : 1;
    inAxis = transB ? 1 : 0;
  } else {
    if (wShape.length !== 2) throw unsupported(n, 'MatMul with constant weights of rank other than 2');
    outAxis = 1;
    inAxis = 0;
  }
  const channels = wShape[outAxis];
  const nodes = [n.name];
  let pre = n.outputs[0];
  // A following Add of a per-channel constant is the layer's bias (torch exports Linear on 3-D inputs that way).
  const next = sole(pre);
  if (!biasTensor && next?.op === 'Add') {
    const other = next.inputs[0] === pre ? next.inputs[1] : next.inputs[0];
    const c = g.tensors.get(other);
    const outRank = g.tensors.get(pre)?.shape.length ?? 0;
    if (c?.data && sizeOf(c.shape) === channels && channelOnly(c.shape, n.op === 'Conv' ? 1 : outRank - 1, outRank)) {
      biasTensor = other;
      taken.add(next);
      nodes.push(next.name);
      pre = next.outputs[0];
    }
  }
  const bias = new Float64Array(channels);
  if (biasTensor) {
    const b = g.tensors.get(biasTensor)!.data!;
    if (b.data.length === 1) bias.fill(b.data[0] * biasScale);
    else if (b.data.length === channels) b.data.forEach((v, i) => (bias[i] = v * biasScale));
    else throw unsupported(n, `bias of ${b.data.length} values for ${channels} output channels`);
  }
  const { act, out } = fuseAct(pre, nodes);
  return {
    kind: 'linear', name: n.name, nodes, node: n, op: n.op as LinearUnit['op'], x: n.inputs[0], w, wShape, outAxis, inAxis,
    bias, pre, act, out, wTensor: n.inputs[1], biasTensor,
  };
}

/** Whether a constant of `shape`, broadcast against an output of rank `rank`, varies along output axis `axis` only. */
function channelOnly(shape: readonly number[], axis: number, rank: number): boolean {
  if (shape.length > rank) return false;
  const at = axis - (rank - shape.length);
  return shape.every((d, i) => d === 1 || i === at);
}
