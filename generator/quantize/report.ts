import type { Graph } from '../ir/graph.js';
import { printable } from '../errors.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';
import { runReference } from '../reference/interpreter.js';
import { quantizeValue } from '../reference/ops/quantize.js';
import type { ActivationQuant } from './clipping.js';
import type { Calibration } from './calibrate.js';
import type { MulShift } from './fixed-point.js';
import { runBatched } from './batch.js';
import { quantDType } from './builder.js';
import type { Plan } from './params.js';
import { isQuantPoint } from './types.js';

/*
 * The report: per quantized tensor, its scale, clipping range and quantization error against the float model on
 * the calibration data, as SQNR = 10 log10(sum x^2 / sum (x - s q)^2) in dB, where x is the float model's value
 * and q the integer model's (errors accumulate along the network: a layer's SQNR includes its inputs' errors).
 */

export interface LayerReport {
  layer: string;
  /** The float ops the layer stands for, e.g. "Conv+Relu". */
  ops: string;
  output: string;
  dtype: string;
  scale: number;
  /** Real range the integer type covers (the clipping range). */
  clip: [number, number];
  /** Range the float model produced on the calibration data. */
  observed: [number, number];
  /** Weight scales, smallest and largest over output channels. */
  weightScale?: [number, number];
  /** Requantization multipliers (smallest and largest) and the shared shift. */
  requant?: { mul: [number, number]; shift: number };
  /** null: the integer model reproduces the float values exactly. */
  sqnrDb: number | null;
}

/** The integer input of a quantized model: saturate(round_half_even(x / scale)), as QuantizeLinear with zero point 0. */
export function quantizeInput(x: NDArray, q: ActivationQuant): NDArray {
  const dtype = quantDType(q.signed, q.bits);
  const r = q.signed ? { min: -(q.qmax + 1), max: q.qmax } : { min: 0, max: q.qmax };
  const scale = Math.fround(q.scale);
  return ndarray(dtype, x.shape, Array.from(x.data, (v) => quantizeValue(v, scale, 0, r)));
}

/** The integer inputs of one float sample. */
export function integerSample(intGraph: Graph, plan: Plan, sample: NDArray[]): NDArray[] {
  return intGraph.inputs.map((name, i) => quantizeInput(sample[i], plan.act.get(name)!));
}

/** Every tensor value of the integer model for one float sample. */
export function runInteger(intGraph: Graph, plan: Plan, sample: NDArray[]): Map<string, NDArray> {
  return runReference(intGraph, integerSample(intGraph, plan, sample));
}

/** The tensors the report covers: graph inputs, then every unit with a scale of its own, in execution order. */
export function reportedTensors(g: Graph, plan: Plan): string[] {
  return [...g.inputs, ...plan.units.filter(isQuantPoint).map((u) => u.out)];
}

function toDb(signal: number, noise: number): number | null {
  if (noise === 0) return null;
  return 10 * Math.log10(signal / noise);
}

/** Signal and noise of integer values against the float values kept by calibration, visited in the same order. */
export class SqnrMeter {
  private readonly acc: Map<string, { signal: number; noise: number; at: number }>;

  constructor(private readonly plan: Plan, private readonly cal: Calibration, private readonly tensors: string[]) {
    this.acc = new Map(tensors.map((t) => [t, { signal: 0, noise: 0, at: 0 }]));
  }

  add(values: Map<string, NDArray>): void {
    for (const t of this.tensors) {
      const a = this.acc.get(t)!;
      const ref = this.cal.observed.get(t)!.values;
      const q = values.get(t);
      if (!q) continue; // a tensor of the other phase of a graph with a prompt pass (quantize/prompt-pass.ts)
      if (a.at + q.data.length > ref.length) continue; // samples past the stored ones
      const scale = this.plan.act.get(t)!.scale;
      for (let i = 0; i < q.data.length; i++) {
        const x = ref[a.at + i];
        const e = x - q.data[i] * scale;
        a.signal += x * x;
        a.noise += e * e;
      }
      a.at += q.data.length;
    }
  }

  db(): Map<string, number | null> {
    return new Map([...this.acc].map(([t, a]) => [t, toDb(a.signal, a.noise)]));
  }
}

/** SQNR of every reported tensor over the calibration samples whose float values were kept. */
export function measureSqnr(intGraph: Graph, plan: Plan, samples: NDArray[][], cal: Calibration, tensors: string[]): Map<string, number | null> {
  const meter = new SqnrMeter(plan, cal, tensors);
  runBatched(intGraph, samples.map((s) => integerSample(intGraph, plan, s)), tensors, (values) => meter.add(values));
  return meter.db();
}

export function buildReport(g: Graph, plan: Plan, requant: Map<string, MulShift>, cal: Calibration, sqnr: Map<string, number | null>): LayerReport[] {
  const row = (layer: string, ops: string, t: string): LayerReport => {
    const q = plan.act.get(t)!;
    const o = cal.observed.get(t)!;
    return {
      layer, ops, output: t, dtype: quantDType(q.signed, q.bits), scale: q.scale,
      clip: [q.signed ? -q.clip : 0, q.clip], observed: [o.min, o.max], sqnrDb: sqnr.get(t) ?? null,
    };
  };
  const rows = g.inputs.map((t) => row('(input)', 'QuantizeLinear', t));
  const ops = new Map(g.nodes.map((n) => [n.name, n.op]));
  for (const u of plan.units) {
    if (!isQuantPoint(u)) continue;
    const r = row(u.name, u.nodes.map((n) => ops.get(n) ?? n).join('+'), u.out);
    const l = plan.linear.get(u.name);
    if (l) r.weightScale = [Math.min(...l.wScales), Math.max(...l.wScales)];
    const ms = requant.get(u.name);
    if (ms) r.requant = { mul: [Math.min(...ms.mul), Math.max(...ms.mul)], shift: ms.shift };
    rows.push(r);
  }
  return rows;
}

const fmt = (v: number): string => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : v.toPrecision(4));

/** The report as a text table. */
export function formatReport(rows: LayerReport[]): string {
  const head = ['layer', 'ops', 'type', 'scale', 'clip range', 'observed range', 'weight scale', 'mul / shift', 'SQNR dB'];
  const body = rows.map((r) => [
    printable(r.layer, 40), printable(r.ops, 40), r.dtype, fmt(r.scale), `[${fmt(r.clip[0])}, ${fmt(r.clip[1])}]`, `[${fmt(r.observed[0])}, ${fmt(r.observed[1])}]`,
    r.weightScale ? (r.weightScale[0] === r.weightScale[1] ? fmt(r.weightScale[0]) : `${fmt(r.weightScale[0])}..${fmt(r.weightScale[1])}`) : '',
    r.requant ? `${r.requant.mul[0] === r.requant.mul[1] ? r.requant.mul[0] : `${r.requant.mul[0]}..${r.requant.mul[1]}`} / ${r.requant.shift}` : '',
    r.sqnrDb === null ? 'exact' : r.sqnrDb.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
