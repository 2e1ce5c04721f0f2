import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { GenError } from '../errors.js';
import { loadOnnxFile } from '../onnx/load.js';
import { readNpz } from '../onnx/npy.js';
import { encodeModel } from '../onnx/save.js';
import { quantDType } from './builder.js';
import { splitSamples } from './calibrate.js';
import { quantizeGraph, type Quantized } from './index.js';
import { perplexity, perplexitySequences, type Perplexity } from './perplexity.js';
import { foldConstants } from './fold.js';
import { hasExportedCaches, makeStateful } from './stateful.js';
import type { Graph } from '../ir/graph.js';
import type { QuantizeOptions } from './types.js';

/*
 * gen quantize: a float .onnx and calibration .npz in; the integer model, its sidecar JSON and optionally the QDQ
 * model out. The sidecar (<model>.quant.json) is how a user talks to the integer model: it gives each graph input
 * the scale to quantize float data with (q = clamp(round_half_even(x / scale), lo, hi), zero point 0) and each
 * output the scale that turns its integers back into real values, followed by the per-layer report.
 * Nothing in the files depends on the time or the machine, so quantizing twice gives byte-identical files.
 */

export interface QuantizeFileOptions extends Partial<QuantizeOptions> {
  model: string;
  calibration: string;
  out: string;
  qdq?: string;
  /** Also the QOperator form (QLinearConv, QGemm, QLinearMatMul, QLinearAdd; qoperator.ts). */
  qoperator?: string;
  /** Held-out token windows (.npz, [N, P] ids): float and int8 perplexity go to the report. */
  heldout?: string;
  /** A decoder's prompt graph, joined to the step graph as its parallel prompt pass (prompt-pass.ts). */
  promptGraph?: string;
}

export interface BoundaryTensor {
  name: string;
  dtype: string;
  scale: number;
  zeroPoint: 0;
  /** Integer range of the tensor. */
  range: [number, number];
}

export { sidecarPath } from './sidecar-path.js';
import { sidecarPath } from './sidecar-path.js';
import { qoperatorFromQdq } from './qoperator.js';

export function boundary(q: Quantized, names: string[]): BoundaryTensor[] {
  return names.map((name) => {
    const a = q.plan.act.get(name)!;
    return { name, dtype: quantDType(a.signed, a.bits), scale: a.scale, zeroPoint: 0, range: [a.signed ? -(a.qmax + 1) : 0, a.qmax] };
  });
}

export function sidecar(q: Quantized, model: string, calibration: string): Record<string, unknown> {
  const o = q.plan.options;
  return {
    format: 'firmgen-quantization/1',
    model: basename(model),
    calibration: { file: basename(calibration), samples: q.samples, method: o.calibrate },
    scheme: o.scheme,
    equalized: q.equalized,
    equalization: q.equalization ?? null,
    biasCorrection: q.biasCorrection ?? null,
    inputs: boundary(q, q.intGraph.inputs),
    outputs: boundary(q, q.intGraph.outputs),
    layers: q.layers,
    ...(q.perplexity ? { perplexity: q.perplexity } : {}),
  };
}

export function quantizeFile(o: QuantizeFileOptions): Quantized {
  const graph = loadOnnxFile(o.model);
  const arrays = [...readNpz(o.calibration).values()];
  let q: Quantized;
  try {
    q = quantizeGraph(graph, arrays, o.calibration, o, o.promptGraph ? loadOnnxFile(o.promptGraph) : undefined);
    if (o.heldout) q.perplexity = heldoutPerplexity(graph, q, o.heldout, o.context ?? 0);
  } catch (e) {
    if (e instanceof GenError) throw e.withSite({ file: o.model });
    throw e;
  }
  if ((o.qdq || o.qoperator) && !q.qdqGraph) {
    throw new GenError('unsupported', `no ${o.qdq ? 'QDQ' : 'QOperator'} form for this model: its tables (Sigmoid, Tanh, GELU), products of activations, RMSNorms and masks (transformers, LSTM cells) are integer-only`, { file: o.model });
  }
  write(o.out, encodeModel(q.intGraph, { opset: 13, producer: 'firmgen quantize' }));
  write(sidecarPath(o.out), `${JSON.stringify(sidecar(q, o.model, o.calibration), null, 2)}\n`);
  if (o.qdq && q.qdqGraph) write(o.qdq, encodeModel(q.qdqGraph, { opset: 13, producer: 'firmgen quantize' }));
  if (o.qoperator && q.qdqGraph) write(o.qoperator, encodeModel(qoperatorFromQdq(q.qdqGraph), { opset: 13, producer: 'firmgen quantize' }));
  return q;
}

function heldoutPerplexity(graph: Graph, q: Quantized, file: string, context: number): Perplexity {
  const arrays = [...readNpz(file).values()];
  if (!hasExportedCaches(graph)) return perplexity(graph, q.intGraph, q.plan, splitSamples(graph, arrays, file));
  const windows = arrays[0];
  if (!windows || windows.shape.length !== 2) throw new GenError('input', 'held-out windows of a step graph: one integer array [N, L]', { file });
  return perplexitySequences(foldConstants(makeStateful(graph, context).graph), q.intGraph, q.plan, windows);
}

function write(path: string, data: Uint8Array | string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, data);
  } catch (e) {
    throw new GenError('input', `cannot write: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { file: path });
  }
}
