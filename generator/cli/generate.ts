import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GenError, printable } from '../errors.js';
import { checkGeneration, generateOnEmulator, generateWithoutCache, stepLimits, windowLimits } from '../../runtime/node/generate.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { readTokenizer, type Tokenizer } from '../../runtime/node/tokenizer.js';
import { readSidecar } from '../../runtime/node/float-inputs.js';
import { sampling } from '../reference/sample.js';

/*
 * `gen run <dir> --prompt "text" --tokens N` (or --prompt-ids): generation with a decoder step firmware in the
 * emulator (runtime/node/generate.ts), greedy or (--temperature, --seed) sampled by reference/sample.ts's integer
 * sampler: in the firmware's own loop when it was built with --sampling, else in the host's loop (the same tokens). Prints the text, the cycles of the prompt and per new token, and tokens/s at
 * the chip's clock.
 */

export interface GenerateFlags {
  prompt?: string;
  promptIds?: string;
  tokens?: string;
  tokenizer?: string;
  maxCycles?: number;
  temperature?: string;
  seed?: string;
  quant?: string;
  hostLoop?: boolean;
  perToken?: boolean;
  cache?: boolean;
}

function promptIds(text: string): number[] {
  const ids = text.split(',').map((s) => Number(s.trim()));
  if (ids.length === 0 || ids.some((v) => !Number.isInteger(v) || v < 0)) throw new GenError('input', `--prompt-ids ${printable(text, 40)}: expected token ids like 3,14,15`);
  return ids;
}

/** The logits' scale from the quantization sidecar (--quant, or the firmware folder's model.int8.quant.json). */
function logitsScale(dir: string, logits: string, given?: string): number {
  const file = given ?? join(dir, 'model.int8.quant.json');
  if (!existsSync(file)) throw new GenError('input', '--temperature needs the logits\' scale: --quant <model.int8.quant.json> (written beside the int8 model by gen quantize)');
  const out = readSidecar(file, 'outputs').find((t) => t.name === logits);
  if (!out) throw new GenError('input', `no scale for output ${printable(logits, 60)}`, { file });
  return out.scale;
}

/** A flag's number as given ('' and words are NaN, which the checks refuse). */
const number = (text: string): number => (text.trim() === '' ? NaN : Number(text));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function generateCommand(dir: string, o: GenerateFlags): Promise<void> {
  const manifest = readManifest(dir);
  const noCache = o.cache === false; // commander's --no-cache sets cache false
  if (!manifest.generation && !noCache) {
    throw new GenError('input', 'this firmware is no decoder step graph: --prompt needs one quantized with --context (or --no-cache with a prompt graph)', { file: dir });
  }
  if (manifest.generation && noCache) throw new GenError('input', '--no-cache takes a prompt graph\'s firmware (ids [1, P] -> logits); this one is a step graph with caches', { file: dir });
  const tokens = Number(o.tokens ?? '32');
  if (!Number.isInteger(tokens) || tokens < 1) throw new GenError('input', `--tokens ${printable(String(o.tokens), 20)}: expected a whole number >= 1`);
  const tokFile = o.tokenizer ?? (existsSync(join(dir, 'tokenizer.json')) ? join(dir, 'tokenizer.json') : undefined);
  const tok: Tokenizer | undefined = tokFile ? readTokenizer(tokFile) : undefined;
  let prompt: number[];
  if (o.promptIds !== undefined) prompt = promptIds(o.promptIds);
  else if (!tok) throw new GenError('input', '--prompt needs a tokenizer: --tokenizer <json> (or tokenizer.json in the firmware folder), or give --prompt-ids');
  else prompt = tok.encode(o.prompt ?? '');
  if (prompt.length === 0) throw new GenError('input', 'the prompt is empty');
  // Checked before anything builds, runs or prints (the generation checks the same again).
  const limits = noCache ? windowLimits(manifest, dir) : stepLimits(manifest, dir);
  checkGeneration(prompt, tokens, limits);
  const logits = manifest.generation?.logits ?? manifest.outputs[0];
  const context = limits.positions;
  if (o.temperature === undefined && o.seed !== undefined) throw new GenError('input', '--seed goes with --temperature (sampling); without it the next token is the argmax');
  const sample = o.temperature === undefined ? undefined : sampling(number(o.temperature), number(o.seed ?? '0'), logitsScale(dir, logits, o.quant));
  // Generated text reaches the terminal through printable() line by line (newlines kept, other control characters escaped).
  const show = (ids: number[]): string => (tok ? tok.decode(ids).split('\n').map((l) => printable(l, 100000)).join('\n') : ids.join(' '));
  process.stdout.write(show(prompt));
  const hooks = { onToken: (t: number) => process.stdout.write(tok ? show([t]) : ` ${t}`), sampling: sample };
  const r = noCache
    ? await generateWithoutCache(dir, prompt, tokens, { maxCycles: o.maxCycles }, hooks)
    : await generateOnEmulator(dir, prompt, tokens, { maxCycles: o.maxCycles, hostLoop: o.hostLoop === true, profile: o.perToken === true }, hooks);
  process.stdout.write('\n');
  const hz = r.clockHz;
  const rate = (cycles: number): string => (hz ? `; ${(hz / cycles).toFixed(1)} tokens/s at ${(hz / 1e6).toFixed(0)} MHz` : '');
  if (r.loop === 'chip') {
    // With a prompt pass the loop runs it once for its tokens, then a step per remaining token.
    const steps = prompt.length + r.tokens.length - 1 - r.passTokens;
    const how = sample ? `, sampled on the cores (temperature ${sample.temperature}, seed ${sample.seed})` : '';
    if (r.passTokens > 0) {
      // The pass and the steps differ in cost: --host-loop gives each its cycles.
      console.log(`the prompt pass (${r.passTokens} of ${prompt.length} prompt tokens at once) and ${steps} steps in the firmware's own loop${how}: `
        + `${r.totalCycles} cycles (--host-loop: the pass's and each step's)`);
    } else {
      console.log(`${steps} steps in the firmware's own loop (prompt ${prompt.length} tokens, one step each${how}): ${r.totalCycles} cycles, `
        + `${Math.round(r.totalCycles / steps)} per step${rate(r.totalCycles / steps)}`);
    }
    console.log(`tokens: ${r.tokens.join(' ')}`);
    console.log(`emulated in ${(r.ms / 1000).toFixed(2)} s`);
    return;
  }
  if (noCache) {
    const mean = r.totalCycles / r.tokens.length;
    console.log(`no cache: the ${context}-token window recomputed per token, ${Math.round(mean)} cycles per token${rate(mean)}`);
    console.log(`tokens: ${r.tokens.join(' ')}`);
    return;
  }
  if (sample && !o.hostLoop) console.log('sampled in the host\'s loop: this firmware has no sampler (gen firmware --sampling puts it on the cores)');
  const promptCycles = r.stepCycles.slice(0, r.promptSteps).reduce((a, b) => a + b, 0);
  const perToken = r.stepCycles.slice(r.promptSteps);
  const mean = perToken.reduce((a, b) => a + b, 0) / perToken.length;
  const passed = r.passTokens > 0 ? `the parallel pass of ${r.passTokens} tokens ${r.stepCycles[0]} cycles${r.passTokens < prompt.length ? ', one step per token after it' : ''}` : 'one step per token';
  console.log(`prompt: ${prompt.length} tokens, ${promptCycles} cycles (${passed})`);
  if (perToken.length > 0) {
    console.log(`new tokens: ${r.tokens.length}, cycles per token min ${Math.min(...perToken)} / median ${median(perToken)} / max ${Math.max(...perToken)}`
      + rate(mean));
  }
  console.log(`tokens: ${r.tokens.join(' ')}`);
  if (r.perToken) printPerToken(r.perToken, mean);
  console.log(`emulated in ${(r.ms / 1000).toFixed(2)} s`);
}

/** `--per-token`: a new token's cycles by layer kernel (mean over the steps that read a generated token). */
function printPerToken(p: { byKernel: Map<string, number>; steps: number }, mean: number): void {
  if (p.steps === 0) {
    console.log('per token: no step read a generated token (--tokens 2 or more)');
    return;
  }
  const rows = [...p.byKernel].map(([kernel, cycles]) => ({ kernel, cycles: cycles / p.steps })).sort((a, b) => b.cycles - a.cycles);
  const inLayers = rows.reduce((a, r) => a + r.cycles, 0);
  console.log(`per token (mean of ${p.steps} steps): ${Math.round(mean)} cycles, ${Math.round(inLayers)} in layers`);
  const width = Math.max(6, ...rows.map((r) => r.kernel.length));
  console.log(`  ${'kernel'.padEnd(width)}  ${'cycles'.padStart(10)}  share`);
  for (const r of rows) console.log(`  ${printable(r.kernel, 40).padEnd(width)}  ${Math.round(r.cycles).toString().padStart(10)}  ${((100 * r.cycles) / mean).toFixed(1).padStart(5)} %`);
}
