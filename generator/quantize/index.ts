import { GenError } from '../errors.js';
import { cloneGraph, type Graph } from '../ir/graph.js';
import { inferGraph } from '../ir/infer.js';
import type { NDArray } from '../ir/ndarray.js';
import { analyzeGraph, checkOps } from './analyze.js';
import { hasLstm, refuseDynamicSequence, unrollLstms } from './expand-lstm.js';
import { foldConstants } from './fold.js';
import { correctBiases } from './bias-correction.js';
import { calibrate, splitSamples } from './calibrate.js';
import { equalize, type EqualizedPair } from './equalize.js';
import { lowerToInteger } from './lower.js';
import { assignActivations, quantizeLinear, type LinearQuant, type Plan } from './params.js';
import type { Perplexity } from './perplexity.js';
import { buildQdq } from './qdq.js';
import { hasExportedCaches } from './stateful.js';
import { quantizeStateful } from './stateful-quantize.js';
import { buildReport, measureSqnr, reportedTensors, type LayerReport } from './report.js';
import { isQuantPoint, type QuantizeOptions } from './types.js';

/*
 * Post-training static quantization of a float model (docs/quantization.md):
 *   analyze -> [equalise] -> calibrate (reference interpreter) -> activation scales -> int8 weights, int32 biases
 *   -> [bias correction, kept when it raises the output SQNR] -> integer model + QDQ model + report.
 */

/** Output SQNR (dB, mean over graph outputs) without and with a step, and whether it was kept. */
export interface StepResult {
  before: number | null;
  after: number | null;
  kept: boolean;
}

export interface BiasCorrectionResult extends StepResult {
  /** Largest change of an int32 bias, in its LSBs. */
  largestStep: number;
}

export interface Quantized {
  intGraph: Graph;
  /** The QDQ form; absent when the model has transformer units (opset 13 QDQ has no 16-bit or table forms of them). */
  qdqGraph?: Graph;
  plan: Plan;
  layers: LayerReport[];
  /** Layer pairs equalised (empty when equalisation was off, found none or was not kept). */
  equalized: EqualizedPair[];
  /** Set when equalisation ran in 'auto' mode: the model with the higher output SQNR was kept. */
  equalization?: StepResult;
  biasCorrection?: BiasCorrectionResult;
  samples: number;
  /** Float and int8 perplexity on held-out windows (language models, `--heldout`). */
  perplexity?: Perplexity;
}

const QDQ_KINDS = new Set(['linear', 'matmul', 'add', 'gap', 'avgpool', 'concat', 'softmax', 'pass', 'act']);

export function withDefaults(o: Partial<QuantizeOptions>): Required<QuantizeOptions> {
  const scheme = o.scheme ?? 'per-channel';
  // Equalisation evens out channel ranges, which matters most when channels share one weight scale.
  return {
    scheme, calibrate: o.calibrate ?? 'minmax', equalize: o.equalize ?? (scheme === 'per-channel' ? false : 'auto'), biasCorrection: o.biasCorrection ?? true,
    context: o.context ?? 0, multiplierBits: o.multiplierBits ?? 15,
  };
}

/** Graph inputs with a dynamic batch dimension are given batch 1 (the generator needs concrete shapes). */
function fixBatch(g: Graph): Graph {
  const out = cloneGraph(g);
  for (const name of out.inputs) {
    const t = out.tensors.get(name)!;
    if (t.shape[0] === -1) t.shape[0] = 1;
    if (t.shape.some((d) => d < 0)) throw new GenError('unsupported', 'the quantizer needs concrete input shapes (beyond the batch)', { tensor: name, file: g.source });
  }
  return out;
}

const mean = (xs: (number | null)[]): number | null => (xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a + b, 0) / xs.length);
/** null means exact: never worse. */
const better = (after: number | null, before: number | null): boolean => after === null || (before !== null && after > before);
const outputSqnr = (q: Quantized): number | null => mean(q.intGraph.outputs.map((o) => q.layers.find((l) => l.output === o)?.sqnrDb ?? null));

/** `promptModel`: a decoder's prompt graph to join a step graph as its parallel prompt pass (quantize/prompt-pass.ts). */
export function quantizeGraph(model: Graph, calibration: NDArray[], source: string, options: Partial<QuantizeOptions> = {}, promptModel?: Graph): Quantized {
  const opts = withDefaults(options);
  // LSTM cells unrolled into ops the units below cover (expand-lstm.ts).
  if (hasLstm(model)) {
    refuseDynamicSequence(model);
    model = unrollLstms(fixBatch(model));
  }
  if (hasExportedCaches(model)) return quantizeStateful(model, calibration, source, opts, promptModel);
  if (promptModel) throw new GenError('input', '--prompt-graph joins a step graph with caches (past.* inputs concatenated into present.* outputs)', { file: model.source });
  if (opts.equalize !== 'auto') return quantizeOnce(model, calibration, source, opts);
  const plain = quantizeOnce(model, calibration, source, { ...opts, equalize: false });
  const inferred = inferGraph(fixBatch(model));
  if (equalize(inferred, analyzeGraph(inferred)).pairs.length === 0) return plain;
  const eq = quantizeOnce(model, calibration, source, { ...opts, equalize: true });
  const step = { before: outputSqnr(plain), after: outputSqnr(eq), kept: better(outputSqnr(eq), outputSqnr(plain)) };
  return { ...(step.kept ? eq : plain), equalization: step };
}

function quantizeOnce(model: Graph, calibration: NDArray[], source: string, opts: Required<QuantizeOptions>): Quantized {
  let float = fixBatch(model);
  // float32 inputs, or int64/int32 token ids for an embedding; int8 inputs or Q/DQ nodes mean a quantized model.
  const inputOk = (i: string): boolean => ['float32', 'int64', 'int32'].includes(model.tensors.get(i)?.dtype ?? '');
  if (!model.inputs.every(inputOk) || model.nodes.some((n) => n.op === 'QuantizeLinear' || n.op === 'DequantizeLinear')) {
    throw new GenError('input', 'the model to quantize must have float32 inputs (is it quantized already?)', { file: model.source });
  }
  float = foldConstants(float);
  checkOps(float);
  let inferred = inferGraph(float);
  let units = analyzeGraph(inferred);
  let equalized: EqualizedPair[] = [];
  if (opts.equalize) {
    const eq = equalize(float, units);
    if (eq.pairs.length > 0) {
      float = eq.graph;
      inferred = inferGraph(float);
      units = analyzeGraph(inferred);
    }
    equalized = eq.pairs;
  }
  const samples = splitSamples(float, calibration, source);
  const points = [...float.inputs, ...units.filter(isQuantPoint).map((u) => u.out)];
  const means = units.flatMap((u) => (u.kind === 'linear' ? [{ tensor: u.pre, axis: u.op === 'Conv' ? 1 : (inferred.tensors.get(u.pre)?.shape.length ?? 2) - 1 }] : []));
  const cal = calibrate(float, samples, points, means);
  const act = assignActivations(float, units, cal.observed, opts);
  const linear = new Map<string, LinearQuant>();
  for (const u of units) if (u.kind === 'linear') linear.set(u.name, quantizeLinear(u, act.get(u.x)!, opts));
  const plan: Plan = { units, act, linear, options: opts };

  const tensors = reportedTensors(float, plan);
  let lowered = lowerToInteger(inferred, plan);
  let sqnr = measureSqnr(lowered.graph, plan, samples, cal, tensors);
  let biasCorrection: BiasCorrectionResult | undefined;
  if (opts.biasCorrection && linear.size > 0) {
    const saved = new Map([...linear].map(([k, l]) => [k, Float64Array.from(l.biasQ)]));
    const before = mean(float.outputs.map((o) => sqnr.get(o) ?? null));
    const largestStep = correctBiases(inferred, plan, samples.slice(0, cal.meanSamples), cal);
    const correctedLowered = lowerToInteger(inferred, plan);
    const corrected = measureSqnr(correctedLowered.graph, plan, samples, cal, tensors);
    const after = mean(float.outputs.map((o) => corrected.get(o) ?? null));
    // Keep the correction only when the outputs got closer to the float model.
    const kept = better(after, before);
    if (kept) {
      lowered = correctedLowered;
      sqnr = corrected;
    } else {
      for (const [k, b] of saved) linear.get(k)!.biasQ = b;
    }
    biasCorrection = { before, after, kept, largestStep };
  }
  return {
    intGraph: lowered.graph,
    qdqGraph: plan.units.every((u) => QDQ_KINDS.has(u.kind)) ? buildQdq(float, plan) : undefined,
    plan,
    layers: buildReport(float, plan, lowered.requant, cal, sqnr),
    equalized,
    biasCorrection,
    samples: samples.length,
  };
}
