import type { Command } from 'commander';
import { addQuantizeOptions, quantizeOptions, type QuantizeFlags } from './quantize-options.js';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { quoted } from '../errors.js';
import { sidecarPath, quantizeFile } from '../quantize/files.js';
import type { Quantized } from '../quantize/index.js';
import type { NDArray } from '../ir/ndarray.js';
import { readNpz } from '../onnx/npy.js';
import { formatReport, quantizeInput } from '../quantize/report.js';

/** Prints the summary lines and the per-layer table of a quantization. */
export function printQuantization(q: Quantized, out: string, ms: number): void {
  console.log(formatReport(q.layers));
  const o = q.plan.options;
  const bc = q.biasCorrection;
  const db = (v: number | null): string => (v === null ? 'exact' : `${v.toFixed(2)} dB`);
  console.log(`scheme ${o.scheme}, calibration ${o.calibrate} on ${q.samples} samples`
    + `; equalised pairs: ${q.equalized.length ? q.equalized.map((p) => `${p.first}->${p.second}`).join(', ') : 'none'}`
    + (q.equalization ? ` (tried: output SQNR ${db(q.equalization.before)} -> ${db(q.equalization.after)}, ${q.equalization.kept ? 'kept' : 'not kept'})` : '')
    + (bc ? `; bias correction: output SQNR ${db(bc.before)} -> ${db(bc.after)} (${bc.kept ? 'kept' : 'reverted'})` : ''));
  for (const t of q.intGraph.inputs) {
    const a = q.plan.act.get(t)!;
    console.log(`input ${quoted(t)}: quantize as q = clamp(round_half_even(x / ${a.scale}), ${a.signed ? -(a.qmax + 1) : 0}, ${a.qmax})`);
  }
  for (const t of q.intGraph.outputs) console.log(`output ${quoted(t)}: real value = q * ${q.plan.act.get(t)!.scale}`);
  const p = q.perplexity;
  if (p) {
    console.log(`perplexity on ${p.windows} held-out windows (${p.tokens} tokens): float ${p.float.toFixed(3)}, int8 ${p.int8.toFixed(3)}`
      + ` (${p.int8 >= p.float ? '+' : ''}${((100 * (p.int8 - p.float)) / p.float).toFixed(2)} %)`);
  }
  console.log(`${(ms / 1000).toFixed(2)} s -> ${out}, ${sidecarPath(out)}`);
}

export function quantizeCommand(program: Command): void {
  const c = program
    .command('quantize')
    .description('post-training static quantization of a float ONNX model to the int8 integer form the generator consumes')
    .argument('<model>', 'float ONNX model')
    .requiredOption('-o, --out <onnx>', 'integer model to write (its report and input scales go to <out>.quant.json)')
    .option('--qdq <onnx>', 'also write the quantization as standard QDQ ONNX (runs in onnxruntime)')
    .option('--qoperator <onnx>', 'also write it in the QOperator format (QLinearConv, QGemm, QLinearMatMul, QLinearAdd; the rest QDQ)')
    .option('--heldout <npz>', 'language models: held-out windows of token ids [N, P]; reports float and int8 perplexity')
    .option('--prompt-graph <onnx>', 'language models: the prompt graph (ids [1, P] -> logits, present.*) to join the step graph as its parallel prompt pass: one integer model, one firmware');
  addQuantizeOptions(c, true)
    .addHelpText('after', '\nExample:\n  gen quantize model.onnx --calibration calibration.npz -o model.int8.onnx --qdq model.qdq.onnx')
    .action((model: string, o: QuantizeFlags & { out: string; qdq?: string; qoperator?: string; heldout?: string; promptGraph?: string }) => {
      const t0 = performance.now();
      const q = quantizeFile({ model, calibration: o.calibration, out: o.out, qdq: o.qdq, qoperator: o.qoperator, heldout: o.heldout, promptGraph: o.promptGraph, ...quantizeOptions(o) });
      printQuantization(q, o.out, performance.now() - t0);
    });
}

/**
 * `gen firmware --calibration`: quantizes the float model into a private folder first; `keep(true)` then copies
 * the integer model and its sidecar into the firmware folder (model.int8.onnx, model.int8.quant.json), where
 * the user finds the input scales, and removes the private folder (`keep(false)` after a failure).
 */
export function quantizeForFirmware(model: string, o: QuantizeFlags, out: string): { model: string; label: string; samples?: NDArray[]; keep(written: boolean): void } {
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-quantize-'));
  const intModel = join(dir, 'model.int8.onnx');
  const t0 = performance.now();
  let q: Quantized;
  try {
    q = quantizeFile({ model, calibration: o.calibration, out: intModel, ...quantizeOptions(o) });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true }); // a refused model leaves nothing behind
    throw e;
  }
  printQuantization(q, join(out, basename(intModel)), performance.now() - t0);
  return {
    model: intModel,
    samples: integerCalibration(q, o.calibration),
    // Where the quantized model ends up (keep): the name firmware.json and messages give it, never the private folder.
    label: join(out, basename(intModel)),
    keep(written: boolean): void {
      if (written) for (const f of [intModel, sidecarPath(intModel)]) copyFileSync(f, join(out, basename(f)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The calibration set as the integer model's inputs (quantized as `gen run` quantizes float inputs), for a platform
 * whose mapping learns from samples (platforms/options.ts ConfigureContext); undefined where an input has no
 * activation quantization (a language model's token ids and caches).
 */
function integerCalibration(q: Quantized, file: string): NDArray[] | undefined {
  const arrays = [...readNpz(file).values()];
  if (arrays.length !== q.intGraph.inputs.length) return undefined;
  const acts = q.intGraph.inputs.map((name) => q.plan.act.get(name));
  if (acts.some((a) => a === undefined)) return undefined;
  return arrays.map((a, i) => quantizeInput(a, acts[i]!));
}
