import { GenError } from '../../generator/errors.js';
import { sizeOf } from '../../generator/ir/ndarray.js';
import { argmax, generationSteps } from '../../generator/reference/generate.js';
import type { Choose } from '../../generator/reference/sample.js';
import { loadFirmware, readManifestTensor, startFirmware, writeManifestTensor, type LoadedFirmware, type RunOptions } from './run.js';

/*
 * Text generation with a decoder step firmware (firmware.json `generation`): one emulator holds the firmware's memory
 * for the whole generation, so the caches stay where the previous step left them (written once, as zeros, before
 * the first step; never copied by the host). Each step writes the token and its position, runs `_start` and reads the
 * logits; the prompt goes in one token per step, then the argmax is fed back (generator/reference/generate.ts does
 * the same in the reference interpreter). Cycles per step are the master clock's advance over the step.
 */

export interface GenerationResult {
  /** The new tokens. */
  tokens: number[];
  /** Cycles of each step: the prompt's steps first. */
  stepCycles: number[];
  promptSteps: number;
  clockHz: number;
  /** Wall time of the emulation, ms. */
  ms: number;
}

export interface GenerationHooks {
  /** Each new token as it is chosen. */
  onToken?: (token: number) => void;
  /** After each step: its position and the firmware (its memory as the step left it). */
  onStep?: (step: number, firmware: LoadedFirmware) => void;
  /** Picks the next token from the logits on the host (sampling); absent: the chip's ArgMax (or the host's argmax). */
  choose?: Choose;
}

export async function generateOnEmulator(outDir: string, prompt: readonly number[], tokens: number, opts: RunOptions = {},
  hooks: GenerationHooks = {}): Promise<GenerationResult> {
  const f = await loadFirmware(outDir, opts);
  const g = f.manifest.generation;
  if (!g) throw new GenError('run', 'this firmware is no decoder step (firmware.json has no `generation`): quantize a step graph with --context', { file: outDir });
  if (prompt.length === 0 || tokens < 1) throw new GenError('run', 'generation needs a prompt of at least one token and --tokens of at least 1');
  const steps = generationSteps(prompt.length, tokens);
  if (steps > g.context) throw new GenError('run', `${prompt.length} prompt tokens + ${tokens} new exceed the firmware's context of ${g.context}`);
  const vocab = sizeOf(f.manifest.tensors.find((t) => t.name === g.logits)!.shape);
  for (const p of g.state) writeManifestTensor(f, p.input, new Float64Array(sizeOf(f.manifest.tensors.find((t) => t.name === p.input)!.shape)));
  const t0 = performance.now();
  const out: number[] = [];
  const stepCycles: number[] = [];
  for (let t = 0; t < steps; t++) {
    const token = t < prompt.length ? prompt[t] : out[t - prompt.length];
    if (!(Number.isInteger(token) && token >= 0 && token < vocab)) throw new GenError('run', `token ${token} is outside the vocabulary (0..${vocab - 1})`);
    writeManifestTensor(f, g.ids, [token]);
    writeManifestTensor(f, g.position, [t]);
    const before = Number(f.emu.total_cycles());
    await startFirmware(f, opts);
    stepCycles.push(Number(f.emu.total_cycles()) - before);
    hooks.onStep?.(t, f);
    if (t >= prompt.length - 1) {
      // The chip's own choice when the firmware computes it (ArgMax on the cores), else the host takes the argmax.
      const logits = (): Float64Array => readManifestTensor(f, g.logits).data;
      const next = hooks.choose ? hooks.choose(logits()) : g.next ? readManifestTensor(f, g.next).data[0] : argmax(logits());
      out.push(next);
      hooks.onToken?.(next);
    }
  }
  return { tokens: out, stepCycles, promptSteps: prompt.length - 1, clockHz: f.manifest.clockHz ?? 0, ms: performance.now() - t0 };
}
