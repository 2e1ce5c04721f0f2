import { GenError } from '../../generator/errors.js';
import { sizeOf } from '../../generator/ir/ndarray.js';
import { argmax, generationSteps } from '../../generator/reference/generate.js';
import { sampler, samplingBlock, type Choose, type Sampling } from '../../generator/reference/sample.js';
import type { Manifest } from './manifest.js';
import { readEvents } from './emulator.js';
import { loadFirmware, readManifestTensor, startFirmware, writeManifestTensor, type LoadedFirmware, type RunOptions } from './run.js';

/*
 * Text generation with a decoder step firmware (firmware.json `generation`); the caches are written once, as zeros,
 * and never again by the host. Two ways to run the steps, with the same tokens (generator/reference/generate.ts):
 *   - the firmware's own loop (a control block [steps, prompt length, tokens...], ir/state.ts): the prompt goes in,
 *     one `_start` runs every step on the chip (the prompt one token per step, then the cores' next token fed back)
 *     and the tokens come out of the block; the cycles are the whole loop's;
 *   - the host's loop (hostLoop, a per-step hook, or sampling with a firmware built without a sampler): one emulator
 *     keeps the firmware's memory across steps; each step writes the token and its position, runs `_start` and reads
 *     the next token (or samples from the logits with the same integer sampler); cycles per step are the master
 *     clock's advance over the step.
 * Sampling (reference/sample.ts) runs in the firmware's loop when the firmware has a sampling block (gen firmware
 * --sampling): the host writes [1, seed, weights] into it before the run.
 */

export interface GenerationResult {
  /** The new tokens. */
  tokens: number[];
  /** Where the loop ran: in the firmware (one `_start` for all steps) or driven by the host (one per step). */
  loop: 'chip' | 'host';
  /** Cycles of all steps. */
  totalCycles: number;
  /** Cycles of each step, the prompt's first (host loop only; the chip loop gives the total). */
  stepCycles: number[];
  /** How many of stepCycles are the prompt's (the pass, when the firmware has one, counts as one). */
  promptSteps: number;
  /** Prompt tokens the firmware's parallel prompt pass took (0: none, every token a step). */
  passTokens: number;
  /**
   * With `profile` (host loop): the cycles of the steps after the prompt's (stepCycles from promptSteps on) by layer
   * kernel, as the master's layer events count them, summed over those steps; `steps` of them.
   */
  perToken?: { byKernel: Map<string, number>; steps: number };
  clockHz: number;
  /** Wall time of the emulation, ms. */
  ms: number;
}

export interface GenerationHooks {
  /** Each new token as it is chosen. */
  onToken?: (token: number) => void;
  /** After each step: its position and the firmware (its memory as the step left it). */
  onStep?: (step: number, firmware: LoadedFirmware) => void;
  /** Picks the next token from the logits on the host; absent: the chip's ArgMax (or the host's argmax). */
  choose?: Choose;
  /** Seeded sampling with a temperature: on the cores when the firmware has a sampler, else on the host. */
  sampling?: Sampling;
}

/** What a firmware can generate: its vocabulary and how many positions it holds (and what they are called). */
export interface GenerationLimits {
  vocab: number;
  positions: number;
  what: string;
}

/** A decoder step firmware's limits: its logits' vocabulary, its caches' context. */
export function stepLimits(m: Manifest, outDir: string): GenerationLimits {
  const g = m.generation;
  if (!g) throw new GenError('run', 'this firmware is no decoder step (firmware.json has no `generation`): quantize a step graph with --context', { file: outDir });
  return { vocab: lastDim(m, g.logits), positions: g.context, what: 'the firmware\'s context' };
}

/** A prompt graph's limits (`--no-cache`): one token-id input [1, P] and logits [1, P, V] first. */
export function windowLimits(m: Manifest, outDir: string): GenerationLimits {
  const idsShape = shapeOf(m, m.inputs[0]);
  const outShape = shapeOf(m, m.outputs[0]);
  const P = idsShape[idsShape.length - 1];
  if (m.inputs.length !== 1 || idsShape.length !== 2 || idsShape[0] !== 1 || outShape.length !== 3 || outShape[1] !== P) {
    throw new GenError('run', '--no-cache needs a prompt graph: one token-id input [1, P] and logits [1, P, V] first', { file: outDir });
  }
  return { vocab: outShape[2], positions: P, what: 'the window' };
}

/** The checks a generation makes before anything runs or prints: a prompt, tokens to make, room for both, known ids. */
export function checkGeneration(prompt: readonly number[], tokens: number, l: GenerationLimits): void {
  if (prompt.length === 0 || tokens < 1) throw new GenError('input', 'generation needs a prompt of at least one token and --tokens of at least 1');
  const bad = prompt.find((t) => !(Number.isInteger(t) && t >= 0 && t < l.vocab));
  if (bad !== undefined) throw new GenError('input', `token ${bad} is outside the vocabulary (0..${l.vocab - 1})`);
  if (generationSteps(prompt.length, tokens) > l.positions) {
    throw new GenError('input', `${prompt.length} prompt tokens + ${tokens} new exceed ${l.what} of ${l.positions}`);
  }
}

function shapeOf(m: Manifest, name: string): number[] {
  return m.tensors.find((t) => t.name === name)?.shape ?? [];
}

function lastDim(m: Manifest, name: string): number {
  const s = shapeOf(m, name);
  return s[s.length - 1] ?? 0;
}

export async function generateOnEmulator(outDir: string, prompt: readonly number[], tokens: number, opts: RunOptions & { hostLoop?: boolean; profile?: boolean } = {},
  hooks: GenerationHooks = {}): Promise<GenerationResult> {
  const f = await loadFirmware(outDir, opts);
  const limits = stepLimits(f.manifest, outDir);
  checkGeneration(prompt, tokens, limits);
  const { vocab } = limits;
  const g = f.manifest.generation!;
  const steps = generationSteps(prompt.length, tokens);
  const zeros = (name: string): Float64Array => new Float64Array(sizeOf(shapeOf(f.manifest, name)));
  const blocks = [g.control, g.sampling].filter((b): b is string => b !== undefined);
  for (const name of [...g.state.map((p) => p.input), ...blocks]) writeManifestTensor(f, name, zeros(name));
  const t0 = performance.now();
  const onChip = !hooks.choose && !hooks.onStep && !opts.hostLoop && !opts.profile && (!hooks.sampling || g.sampling !== undefined);
  if (g.control && g.next && onChip) {
    if (hooks.sampling) writeManifestTensor(f, g.sampling!, samplingBlock(hooks.sampling));
    // The firmware's own loop: the prompt into the control block, one run, the tokens back out of it.
    writeControl(f, g.control, steps, prompt);
    const before = Number(f.emu.total_cycles());
    await startFirmware(f, opts);
    const totalCycles = Number(f.emu.total_cycles()) - before;
    const back = readManifestTensor(f, g.control).data;
    const out = Array.from(back.subarray(2 + prompt.length, 2 + prompt.length + tokens));
    out.forEach((t) => hooks.onToken?.(t));
    return { tokens: out, loop: 'chip', totalCycles, stepCycles: [], promptSteps: prompt.length - 1, passTokens: passTokens(g, prompt), clockHz: f.manifest.clockHz ?? 0, ms: performance.now() - t0 };
  }
  const choose = hooks.choose ?? (hooks.sampling ? sampler(hooks.sampling) : undefined);
  const out: number[] = [];
  const stepCycles: number[] = [];
  const first = passTokens(g, prompt);
  if (first > 0) {
    // The prompt pass alone: the firmware's loop with as many steps as the pass takes tokens (it runs no step then),
    // its next token written after the prompt when the pass took it all; the steps below run one per `_start`.
    writeControl(f, g.control!, first, prompt);
    const before = Number(f.emu.total_cycles());
    await startFirmware(f, opts);
    stepCycles.push(Number(f.emu.total_cycles()) - before);
    if (first === prompt.length) {
      const pass = g.prompt!;
      const row = (): Float64Array => readManifestTensor(f, pass.logits).data.subarray((first - 1) * vocab, first * vocab);
      const next = choose ? choose(row()) : readManifestTensor(f, g.control!).data[2 + first];
      out.push(next);
      hooks.onToken?.(next);
    }
    writeManifestTensor(f, g.control!, zeros(g.control!)); // steps 0: one step per run from here
  }
  // With a pass: its run and the steps of the prompt's tokens past it are the prompt's (each later step reads a new token).
  const promptSteps = first > 0 ? 1 + prompt.length - first : prompt.length - 1;
  const perToken = opts.profile ? { byKernel: new Map<string, number>(), steps: 0 } : undefined;
  const kernelOf = new Map(f.manifest.layers.map((l) => [l.id, l.kernel ?? l.op ?? '?']));
  for (let t = first; t < steps; t++) {
    const token = t < prompt.length ? prompt[t] : out[t - prompt.length];
    if (!(Number.isInteger(token) && token >= 0 && token < vocab)) throw new GenError('run', `token ${token} is outside the vocabulary (0..${vocab - 1})`);
    writeManifestTensor(f, g.ids, [token]);
    writeManifestTensor(f, g.position, [t]);
    const before = Number(f.emu.total_cycles());
    const logged = f.emu.events_total();
    await startFirmware(f, opts);
    stepCycles.push(Number(f.emu.total_cycles()) - before);
    if (perToken && stepCycles.length > promptSteps) addLayerCycles(f, logged, kernelOf, perToken);
    hooks.onStep?.(t, f);
    if (t >= prompt.length - 1) {
      // The chip's own choice when the firmware computes it (ArgMax on the cores), else the host takes the argmax.
      const logits = (): Float64Array => readManifestTensor(f, g.logits).data;
      const next = choose ? choose(logits()) : g.next ? readManifestTensor(f, g.next).data[0] : argmax(logits());
      out.push(next);
      hooks.onToken?.(next);
    }
  }
  const totalCycles = stepCycles.reduce((a, b) => a + b, 0);
  return { tokens: out, loop: 'host', totalCycles, stepCycles, promptSteps, passTokens: first, ...(perToken ? { perToken } : {}), clockHz: f.manifest.clockHz ?? 0, ms: performance.now() - t0 };
}

/** The control block [steps, prompt length, tokens...] (ir/state.ts) with the prompt, into the firmware's memory. */
function writeControl(f: LoadedFirmware, control: string, steps: number, prompt: readonly number[]): void {
  const ctl = new Float64Array(sizeOf(shapeOf(f.manifest, control)));
  ctl[0] = steps;
  ctl[1] = prompt.length;
  prompt.forEach((p, i) => (ctl[2 + i] = p));
  writeManifestTensor(f, control, ctl);
}

/** One step's layer cycles (the master's layer events since `logged`) added by kernel; the step counted. */
function addLayerCycles(f: LoadedFirmware, logged: number, kernelOf: Map<number, string>, acc: { byKernel: Map<string, number>; steps: number }): void {
  const { events } = readEvents(f.emu, logged);
  if (f.emu.events_total() - logged > events.length) throw new GenError('run', 'the event log overflowed within one step: no per-token profile');
  for (const e of events) {
    if (e.kind !== 'layer' || e.agent !== 0) continue;
    const k = kernelOf.get(e.layer) ?? `layer ${e.layer}`;
    acc.byKernel.set(k, (acc.byKernel.get(k) ?? 0) + e.end - e.start);
  }
  acc.steps++;
}

/** Tokens of the prompt the firmware's prompt pass takes (its loop does the same): 0 without a pass. */
function passTokens(g: NonNullable<Manifest['generation']>, prompt: readonly number[]): number {
  return g.prompt && g.control ? Math.min(prompt.length, g.prompt.length) : 0;
}

/**
 * Generation without a cache (`gen run --no-cache`): a prompt graph (token ids [1, P] -> logits [1, P, V], no state)
 * recomputes the whole window each step: the tokens so far padded with zeros to P, the next token the argmax of the
 * logits at the last real position (causal attention: padding after it changes nothing). One emulator, one `_start`
 * per step; the cost of static shapes without a cache, for comparison with a step firmware.
 */
export async function generateWithoutCache(outDir: string, prompt: readonly number[], tokens: number, opts: RunOptions = {},
  hooks: GenerationHooks = {}): Promise<GenerationResult> {
  const f = await loadFirmware(outDir, opts);
  const m = f.manifest;
  const ids = m.inputs[0];
  const logits = m.outputs[0];
  const limits = windowLimits(m, outDir);
  checkGeneration(prompt, tokens, limits);
  const { vocab, positions: P } = limits;
  const t0 = performance.now();
  const seq = [...prompt];
  const choose = hooks.choose ?? (hooks.sampling ? sampler(hooks.sampling) : undefined);
  const stepCycles: number[] = [];
  const out: number[] = [];
  for (let k = 0; k < tokens; k++) {
    const window = new Float64Array(P);
    seq.forEach((t, i) => (window[i] = t));
    writeManifestTensor(f, ids, window);
    const before = Number(f.emu.total_cycles());
    await startFirmware(f, opts);
    stepCycles.push(Number(f.emu.total_cycles()) - before);
    const row = readManifestTensor(f, logits).data.subarray((seq.length - 1) * vocab, seq.length * vocab);
    const next = choose ? choose(row) : argmax(row);
    out.push(next);
    seq.push(next);
    hooks.onToken?.(next);
  }
  return { tokens: out, loop: 'host', totalCycles: stepCycles.reduce((a, b) => a + b, 0), stepCycles, promptSteps: 0, passTokens: 0, clockHz: m.clockHz ?? 0, ms: performance.now() - t0 };
}
