/**
 * `npm run bench:llm`: the small-language-model flow on Siracusa (issue 16). The example decoder
 * (examples/tiny-llama: hidden 64, 16 heads, 8 layers, feed-forward 256, char vocabulary) is quantized as a step
 * graph with caches (context 256), compiled for the cluster alone and with every linear layer on N-EUREKA (--engines
 * npu), and generates 256 tokens greedily from
 * a one-character prompt in the emulator (positions 0..255), every token checked against the reference
 * interpreter's generation. Printed, one JSON line each: tokens/s over the 256 steps at the chip clock; the speed-up
 * of the cache over recomputing a window per token (a prompt graph: the static-shape no-cache firmware; the example's
 * 16-token prompt.onnx by default, a longer export as the argument); the share of a step's cycles in data-movement layers; L2 used against its lower bound and the
 * caches' bytes; and the C itself on the emulator's RV32 core for one step at the middle position (the figures above
 * are the AS firmware's cost model); the parallel prompt pass against stepping the prompt (promptPass below); and
 * the caches in L3 (cachesInL3 below).
 * Reference point: the peer's published 340 tokens/s for this model size.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DType } from '../generator/ir/dtype.js';
import { inferGraph } from '../generator/ir/infer.js';
import { ndarray } from '../generator/ir/ndarray.js';
import { loadOnnxFile } from '../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../generator/onnx/npy.js';
import type { Manifest } from '../generator/backend/manifest.js';
import { generateFirmware } from '../generator/pipeline.js';
import { quantizeFile } from '../generator/quantize/files.js';
import { generateReference } from '../generator/reference/generate.js';
import { l3Detail, readEvents } from '../runtime/node/emulator.js';
import { generateOnEmulator } from '../runtime/node/generate.js';
import { runIss } from '../runtime/node/iss-run.js';
import { runFirmware } from '../runtime/node/run.js';
import { readTokenizer } from '../runtime/node/tokenizer.js';
import { heldOutPromptIds, TINY_LLAMA } from '../test/helpers/tiny-llama-prompt.js';

const example = TINY_LLAMA;
const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-llm-'));
const CONTEXT = 256;
const TOKENS = 256;

function emit(name: string, figure: number, unit: string, reference = ''): void {
  console.log(JSON.stringify({ name, figure: Number.isInteger(figure) ? figure : Number(figure.toPrecision(4)), unit, reference }));
}

const MOVEMENT = new Set(['copy', 'gather', 'cache-write', 'l3copy', 'l3-cache-write']);

async function main(): Promise<void> {
  const step = join(work, 'step.int8.onnx');
  quantizeFile({ model: join(example, 'step.onnx'), calibration: join(example, 'calibration.npz'), out: step, context: CONTEXT });
  const intGraph = inferGraph(loadOnnxFile(step));
  const prompt = [loadPromptToken()];
  const want = generateReference(intGraph, prompt, TOKENS);
  // The no-cache baseline: a prompt graph over a whole window, run once per token (static shapes cannot shrink).
  // Default: the example's prompt.onnx (16 tokens); `node dist/bench/llm.js <prompt.onnx>` for a longer window
  // (export.py --prompt-len 250). Calibrated on the example's windows, repeated to the window's length.
  const windowFile = process.argv[2] ?? join(example, 'prompt.onnx');
  const windowLength = loadOnnxFile(windowFile).tensors.get('input_ids')!.shape[1];
  const windows = [...readNpz(join(example, 'calibration.npz')).values()][0];
  const long = ndarray('int64', [4, windowLength], Array.from({ length: 4 * windowLength }, (_, i) => windows.data[i % windows.data.length]));
  const cal = join(work, 'window.npz');
  writeFileSync(cal, encodeNpz(new Map([['input_ids', long]])));
  const windowModel = join(work, 'window.int8.onnx');
  quantizeFile({ model: windowFile, calibration: cal, out: windowModel });
  const tokensPerSecond = { cluster: 0, npu: 0 };
  for (const engines of ['cluster', 'npu'] as const) {
    const out = join(work, `step-${engines}`);
    const { manifest } = generateFirmware({ model: step, platform: 'siracusa', out, engines });
    const r = await generateOnEmulator(out, prompt, TOKENS);
    if (r.tokens.join() !== want.join()) throw new Error(`${engines}: the firmware's tokens differ from the reference's`);
    // The firmware's own loop runs every step in one run: the mean step over all of them (positions 0..255).
    const steps = prompt.length + TOKENS - 1;
    const mean = r.totalCycles / steps;
    tokensPerSecond[engines] = r.clockHz / mean;
    emit(`tokens/s, ${engines}, ${steps} steps in the firmware's loop`, r.clockHz / mean, 'tokens/s at 360 MHz', 'peer: 340 tokens/s');
    emit(`cycles per token, ${engines}`, mean, 'cycles');
    const one = await runFirmware(out, manifest.inputs.map((n) => {
      const t = manifest.tensors.find((x) => x.name === n)!;
      return ndarray(t.dtype as DType, t.shape);
    }));
    // The C itself, on the emulator's RV32 core (CV32E40P timing, the cluster; N-EUREKA as its device, docs/iss.md):
    // one step at the middle position.
    const mid = CONTEXT / 2;
    const iss = await runIss(out, manifest.inputs.map((n) => {
      const t = manifest.tensors.find((x) => x.name === n)!;
      const a = ndarray(t.dtype as DType, t.shape);
      if (n === manifest.generation!.position) a.data[0] = mid;
      if (n === manifest.generation!.ids) a.data[0] = prompt[0];
      return a;
    }));
    emit(`C on the RV32 ISS, one step at position ${mid}, ${engines}`, iss.networkCycles, 'cycles');
    emit(`C on the RV32 ISS: tokens/s at position ${mid}, ${engines}`, r.clockHz / iss.networkCycles, 'tokens/s at 360 MHz', 'peer: 340 tokens/s');
    const moving = one.profile.layers.filter((l) => MOVEMENT.has(l.kernel)).reduce((a, l) => a + l.cycles, 0);
    emit(`data-movement share of a step, ${engines}`, (100 * moving) / one.cycles, '%');
    emit(`L2 used / lower bound, ${engines}`, manifest.memory.used / manifest.memory.lowerBound, 'ratio', `${manifest.memory.used} of bound ${manifest.memory.lowerBound} bytes`);
    const cacheBytes = manifest.generation!.state.reduce((a, p) => a + manifest.tensors.find((t) => t.name === p.input)!.bytes, 0);
    emit(`cache bytes, ${engines}`, cacheBytes, 'bytes');
    const wout = join(work, `window-${engines}`);
    const w = generateFirmware({ model: windowModel, platform: 'siracusa', out: wout, engines });
    const run = await runFirmware(wout, w.manifest.inputs.map((n) => {
      const t = w.manifest.tensors.find((x) => x.name === n)!;
      return ndarray(t.dtype as DType, t.shape);
    }));
    emit(`recomputing a ${windowLength}-token window per token, ${engines}`, run.cycles, 'cycles per token');
    emit(`cache speed-up over recomputing a ${windowLength}-token window, ${engines}`, run.cycles / mean, 'x');
  }
  await promptPass(step);
  await cachesInL3(step, prompt, want, tokensPerSecond);
}

function allCachesInL3(m: Manifest): boolean {
  return m.generation!.state.every((p) => m.tensors.find((t) => t.name === p.input)!.region === 'L3');
}

/**
 * Caches in L3 (midend/l3.ts): the step firmware with L2 cut until every cache lives in L3; the same 256 tokens, the
 * tokens/s against the caches in L2, the share of a step in the L3 copies and the bytes a step moves to and from L3
 * (at the first step and the last: the loads grow with the position).
 */
async function cachesInL3(step: string, prompt: number[], want: number[], inL2: Record<'cluster' | 'npu', number>): Promise<void> {
  for (const engines of ['cluster', 'npu'] as const) {
    const resident = generateFirmware({ model: step, platform: 'siracusa', out: join(work, `l2-${engines}`), engines });
    const cacheBytes = resident.manifest.generation!.state.reduce((a, p) => a + resident.manifest.tensors.find((t) => t.name === p.input)!.bytes, 0);
    // With L2 less the caches, the cluster's firmware moves weights (idle most of a step) rather than caches: cut
    // further until every cache is in L3 (L2 then holds a layer's weights and activations and one cache's copy).
    let l2 = resident.manifest.memory.used - cacheBytes;
    while (l2 > cacheBytes / 4 && !allCachesInL3(generateFirmware({ model: step, platform: 'siracusa', out: join(work, 'l3-probe'), engines, l2 }).manifest)) l2 -= cacheBytes / 4;
    const out = join(work, `l3-${engines}`);
    const { manifest } = generateFirmware({ model: step, platform: 'siracusa', out, engines, l2 });
    const moved: { toL3: number; fromL3: number }[] = [];
    const cycles: number[] = [];
    let seen = 0;
    const r = await generateOnEmulator(out, prompt, TOKENS, {}, {
      onStep: (_, f) => {
        const { events } = readEvents(f.emu, seen);
        seen = Number(f.emu.events_total());
        const l3 = events.filter((e) => e.kind === 'l3');
        const bytes = l3.map((e) => l3Detail(e.detail));
        moved.push({ toL3: bytes.filter((d) => d.toL3).reduce((a, d) => a + d.bytes, 0), fromL3: bytes.filter((d) => !d.toL3).reduce((a, d) => a + d.bytes, 0) });
        cycles.push(l3.reduce((a, e) => a + e.end - e.start, 0));
      },
    });
    if (r.tokens.join() !== want.join()) throw new Error(`${engines}: with the caches in L3 the firmware's tokens differ from the reference's`);
    const mean = r.totalCycles / r.stepCycles.length;
    if (!allCachesInL3(manifest)) throw new Error(`${engines}: no L2 budget puts every cache in L3`);
    emit(`caches in L3 (all ${manifest.generation!.state.length}, --l2 ${l2}): tokens/s, ${engines}`, r.clockHz / mean, 'tokens/s at 360 MHz',
      `caches in L2: ${inL2[engines].toPrecision(4)} tokens/s; L3 holds ${manifest.memory.far?.tensors} tensors, ${manifest.memory.far?.used} bytes`);
    emit(`caches in L3: share of a step in L3 copies, ${engines}`, (100 * cycles.reduce((a, b) => a + b, 0)) / r.totalCycles, '%');
    const last = moved[moved.length - 1];
    emit(`caches in L3: bytes to / from L3 per step, ${engines}`, last.toL3, 'bytes to L3', `from L3: ${moved[0].fromL3} at position 0, ${last.fromL3} at position ${moved.length - 1}`);
  }
}

/**
 * The parallel prompt pass (gen quantize --prompt-graph): the example's 16-token held-out prompt (reference.json) as
 * one pass of the prompt graph against 16 steps of the step-only firmware, to the first new token; then 16 more
 * tokens, every token checked against the reference's generation with the pass. The host's loop times each run.
 */
async function promptPass(stepOnly: string): Promise<void> {
  const joined = join(work, 'joined.int8.onnx');
  quantizeFile({ model: join(example, 'step.onnx'), promptGraph: join(example, 'prompt.onnx'), calibration: join(example, 'calibration.npz'), out: joined, context: CONTEXT });
  const ids = heldOutPromptIds();
  const tokens = 16;
  const want = generateReference(inferGraph(loadOnnxFile(joined)), ids, tokens);
  const stepped = generateReference(inferGraph(loadOnnxFile(stepOnly)), ids, tokens);
  let agree = 0;
  while (agree < tokens && want[agree] === stepped[agree]) agree++;
  emit('prompt pass: new tokens equal to the step-only model\'s before the first difference', agree, `of ${tokens}`);
  for (const engines of ['cluster', 'npu'] as const) {
    const out = join(work, `joined-${engines}`);
    const { manifest } = generateFirmware({ model: joined, platform: 'siracusa', out, engines });
    const r = await generateOnEmulator(out, ids, tokens, { hostLoop: true });
    if (r.tokens.join() !== want.join()) throw new Error(`${engines}: the prompt pass firmware's tokens differ from the reference's`);
    const base = await generateOnEmulator(join(work, `step-${engines}`), ids, 1, { hostLoop: true });
    const steps = base.stepCycles.reduce((a, b) => a + b, 0);
    emit(`first token after a ${ids.length}-token prompt, the pass, ${engines}`, r.stepCycles[0], 'cycles', `${ids.length} steps: ${steps}`);
    emit(`prompt pass speed-up over ${ids.length} steps, ${engines}`, steps / r.stepCycles[0], 'x');
    const perToken = r.stepCycles.slice(1);
    emit(`tokens/s after the pass, ${engines}`, r.clockHz / (perToken.reduce((a, b) => a + b, 0) / perToken.length), 'tokens/s at 360 MHz');
    emit(`L2 used with the pass / lower bound, ${engines}`, manifest.memory.used / manifest.memory.lowerBound, 'ratio', `${manifest.memory.used} bytes`);
  }
}

/** The prompt: one capital letter, as fortunes begin. */
function loadPromptToken(): number {
  return readTokenizer(join(example, 'tokenizer.json')).encode('T')[0];
}

main().finally(() => rmSync(work, { recursive: true, force: true }));
