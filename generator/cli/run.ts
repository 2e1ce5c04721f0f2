import { outsidePosition } from '../validate/positions.js';
import type { Command } from 'commander';
import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EXIT_MISMATCH, GenError, printable, quoted } from '../errors.js';
import { formatShape, sizeOf, type NDArray } from '../ir/ndarray.js';
import { encodeNpz, readNpz } from '../onnx/npy.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { readManifest, type Manifest } from '../../runtime/node/manifest.js';
import { DEFAULT_MAX_CYCLES, DEFAULT_TIMEOUT_S, runFirmwareGuarded } from '../../runtime/node/run-guarded.js';
import { quantizeFloatInputs } from '../../runtime/node/float-inputs.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runQemu } from '../../runtime/node/qemu.js';
import { formatIssProfile, runIss } from '../../runtime/node/iss-run.js';
import { formatHotspots } from '../../runtime/node/iss-hotspots.js';
import { buildProfile } from '../../runtime/node/profile.js';
import { formatProfile } from '../../runtime/node/profile-table.js';
import { formatS2Table, s2Table } from '../../runtime/node/spinnaker2-times.js';
import { buildIssTrace, buildTrace } from '../../runtime/node/trace.js';
import { reportHtml } from '../../runtime/node/report/html.js';
import { generateCommand, type GenerateFlags } from './generate.js';
import { spinner } from './progress.js';
import { checkExpectedSamples, sampleCount, sampleOf, stackSamples } from './run-batch.js';

interface RunFlags {
  inputs?: string;
  expect?: string;
  outputs?: string;
  on: 'emulator' | 'host' | 'qemu' | 'iss';
  trace?: string;
  report?: string;
  maxCycles: string;
  timeout: string;
  quant?: string;
  /** true, or a layer id (the profile within that layer's cycles). */
  hotspots?: boolean | string;
}

/**
 * The bytes a .npz of these tensors may inflate to (`samples` of each: gen run on a set of samples): the widest dtype
 * numpy writes (8 bytes), with room for extras.
 */
function npzBound(m: Manifest, names: string[], samples = 1): number {
  const elements = names.reduce((n, name) => n + sizeOf(m.tensors.find((t) => t.name === name)?.shape ?? []), 0);
  return Math.max(64 << 20, 16 * 8 * elements * samples);
}

/**
 * The arrays of an .npz for the given graph tensors: by name when the file has an array for every one of them (as
 * onnxruntime feeds a session, and as `--outputs` writes them: the exact name or its npz key), else in file order
 * (the test vectors name their arrays input_0, input_1, ...).
 */
function arraysFor(file: Map<string, NDArray>, names: string[]): NDArray[] {
  const keys = npzKeys(names);
  const named = names.map((n, i) => file.get(n) ?? file.get(keys[i]));
  if (named.every((a): a is NDArray => a !== undefined)) return named;
  return [...file.values()];
}

/** The arrays of an .npz for the graph inputs (extra arrays are ignored, as in the peer's files). */
function inputArrays(path: string, m: Manifest): NDArray[] {
  const count = m.inputs.length;
  const arrays = arraysFor(readNpz(path, npzBound(m, m.inputs)), m.inputs);
  if (arrays.length < count) throw new GenError('input', `holds ${arrays.length} arrays, the model has ${count} inputs`, { file: path });
  return arrays.slice(0, count);
}

/**
 * An input read as a position (firmware.json's tensor `limit`) holds values in [0, limit): the reference refuses
 * others and the firmware would clamp them into another answer (generator/validate/positions.ts).
 */
function checkPositionInputs(m: Manifest, arrays: NDArray[], path: string): void {
  m.inputs.forEach((name, i) => {
    const limit = m.tensors.find((t) => t.name === name)?.limit;
    if (limit === undefined) return;
    const bad = outsidePosition(arrays[i].data, limit);
    if (bad !== undefined) {
      throw new GenError('input', `array ${i} (input ${quoted(name)}): position ${bad} lies outside [0, ${limit})`, { file: path });
    }
  });
}

/** Expected outputs, checked to be one array per output with the output's element count before anything runs. */
function expectedArrays(path: string, m: Manifest, samples: number): NDArray[] {
  const arrays = arraysFor(readNpz(path, npzBound(m, m.outputs, samples)), m.outputs);
  if (arrays.length < m.outputs.length) {
    throw new GenError('input', `holds ${arrays.length} arrays, the model has ${m.outputs.length} outputs`, { file: path });
  }
  if (samples > 1) {
    checkExpectedSamples(m, arrays, samples, path);
    return arrays;
  }
  m.outputs.forEach((name, i) => {
    const t = m.tensors.find((x) => x.name === name);
    if (t && sizeOf(arrays[i].shape) !== sizeOf(t.shape)) {
      throw new GenError('input', `array ${i} has shape ${formatShape(arrays[i].shape)}, output ${quoted(name)} has ` +
        `${formatShape(t.shape)}`, { file: path });
    }
  });
  return arrays;
}

/** One inference in the chosen place: its outputs and, where measured, its cycles; the first prints the profile. */
async function runSample(dir: string, manifest: Manifest, inputs: NDArray[], o: RunFlags, first: boolean, maxCycles: number, timeoutS: number): Promise<{ outputs: NDArray[]; cycles?: number }> {
  if (o.on === 'host') return { outputs: runHostC(dir, inputs) };
  if (o.on === 'qemu') return { outputs: runQemu(dir, inputs).outputs };
  if (o.on === 'iss') {
    // checked against the manifest before the run (hotspotLayer)
    const layer = typeof o.hotspots === 'string' ? Number(o.hotspots) : undefined;
    let r = await runIss(dir, inputs, { hotspots: first && o.hotspots !== undefined && layer === undefined });
    let within: string | undefined;
    if (first && layer !== undefined) {
      // The layer's span from this run's marks, then the same (deterministic) run profiled within it.
      const span = r.layers.find((l) => l.layer === layer);
      if (!span) throw new GenError('input', `--hotspots ${layer}: the run marked no such layer`);
      r = await runIss(dir, inputs, { hotspots: true, hotspotWindow: [span.start, span.end] });
      within = `within layer ${layer} (cycles ${span.start} .. ${span.end})`;
    }
    if (first) {
      console.log(formatIssProfile(r, manifest.clockHz));
      if (r.hotspots) console.log(`\n${formatHotspots(r.hotspots, 15, within)}\n`);
      if (o.trace) writeFileSync(o.trace, JSON.stringify(buildIssTrace(manifest, r)));
      console.log(`Cycles: ${r.networkCycles}`);
    }
    return { outputs: r.outputs, cycles: r.networkCycles };
  }
  if (!first) {
    const r = await runFirmwareGuarded(dir, inputs, { maxCycles, timeoutS });
    return { outputs: r.outputs, cycles: r.cycles };
  }
  const progress = spinner();
  let r;
  try {
    r = await runFirmwareGuarded(dir, inputs, { onStage: progress.stage, maxCycles, timeoutS });
  } finally {
    progress.done();
  }
  const profile = buildProfile(manifest, r);
  // The profile lands beside the firmware it measures; `Cycles:` stays the line scripts grep for.
  writeFileSync(join(dir, 'profile.json'), `${JSON.stringify(profile, null, 2)}\n`);
  console.log(formatProfile(profile));
  if (r.spinnaker2) {
    const table = s2Table(r.spinnaker2);
    writeFileSync(join(dir, 'spinnaker2-times.json'), `${JSON.stringify({ stamps: r.spinnaker2, table }, null, 2)}\n`);
    console.log(`\n${formatS2Table(table, `SpiNNaker2 run of ${printable(manifest.model ?? 'the model', 60)}`)}`);
  }
  const trace = buildTrace(manifest, r);
  if (o.trace) writeFileSync(o.trace, JSON.stringify(trace));
  if (o.report) writeFileSync(o.report, reportHtml(manifest, profile, trace));
  console.log(`Cycles: ${r.cycles}`);
  return { outputs: r.outputs, cycles: r.cycles };
}

/** A file the run will write: its folder must exist and be writable, checked before the run rather than after it. */
function writable(path: string | undefined, flag: string): void {
  if (!path) return;
  const dir = dirname(resolve(path));
  try {
    if (existsSync(path) && statSync(path).isDirectory()) throw new Error('it is a folder');
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`no folder ${dir}`);
    accessSync(existsSync(path) ? path : dir, constants.W_OK);
  } catch (e) {
    throw new GenError('input', `${flag}: cannot write here (${(e as Error).message})`, { file: path });
  }
}

/**
 * Archive keys for the graph's output names: what numpy's np.load gives back as keys. Only [A-Za-z0-9_.-] pass
 * (a name from a model must not become a path when someone unzips the archive); clashes get a numeric suffix.
 */
export function npzKeys(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((name, i) => {
    let key = name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_') || `output_${i}`;
    for (let k = 1; used.has(key); k++) key = `${key}_${k}`;
    used.add(key);
    return key;
  });
}

/** What `--on host|qemu` prints when nothing is compared or written: each output's shape, first values, checksum. */
function outputSummary(m: Manifest, outputs: NDArray[]): string[] {
  return outputs.map((a, i) => {
    let sum = 0;
    for (let k = 0; k < a.data.length; k++) sum = (sum * 31 + Number(a.data[k])) >>> 0;
    const first = Array.from(a.data.slice(0, 8), (v) => String(v)).join(' ');
    return `${printable(m.outputs[i], 60)} ${a.dtype}${formatShape(a.shape)}: ${first}${a.data.length > 8 ? ' ...' : ''} ` +
      `(checksum ${sum.toString(16).padStart(8, '0')})`;
  });
}

/** `--hotspots <layer>`: a layer id of the firmware's manifest. */
function hotspotLayer(text: string, manifest: Manifest): number {
  const id = Number(text);
  if (!/^\d+$/.test(text) || !manifest.layers.some((l) => l.id === id)) {
    throw new GenError('input', `--hotspots ${printable(text, 40)}: expected a layer id of the firmware (${manifest.layers.map((l) => l.id).slice(0, 12).join(', ')}${manifest.layers.length > 12 ? ', ...' : ''})`);
  }
  return id;
}

function positive(text: string, flag: string): number {
  const v = Number(text);
  if (!Number.isFinite(v) || v < 0) throw new GenError('input', `${flag} ${printable(text, 40)}: expected a number >= 0 (0: no bound)`);
  return v;
}

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('run generated firmware: in the emulator (cycles, per-layer profile), as host-built C or as a bare-metal rv32 ELF under qemu; compare with expected outputs')
    .argument('<dir>', 'output directory of `gen firmware`')
    .option('-i, --inputs <npz>', 'input arrays (.npz): by graph-input name when it has them all, else in graph-input order')
    .option('--prompt <text>', 'decoder step firmware: generate from this text (needs --tokenizer or tokenizer.json in <dir>)')
    .option('--prompt-ids <ids>', 'decoder step firmware: generate from these token ids (3,14,15)')
    .option('--tokens <n>', 'with --prompt: tokens to generate (default 32)')
    .option('--tokenizer <json>', 'with --prompt: the model\'s tokenizer.json')
    .option('--temperature <t>', 'with --prompt: sample the next token at this temperature (seeded, integer sampler: on the cores when the firmware was generated with --sampling, else on the host) instead of the argmax')
    .option('--seed <n>', 'with --temperature: the sampler\'s seed, 0 to 4294967295 (default 0)')
    .option('--no-cache', 'with --prompt: a prompt graph\'s firmware (no caches) recomputes the whole window per token, for comparison')
    .option('--host-loop', 'with --prompt: drive the steps from the host (cycles per step) instead of the firmware\'s own loop')
    .option('--per-token', 'with --prompt: a profile of a new token, cycles by layer kernel averaged over the steps (drives the steps from the host)')
    .option('-e, --expect <npz>', 'expected outputs (.npz, by output name or in order): prints "Errors: X out of Y", exit 1 if any differs')
    .option('--outputs <npz>', 'write the outputs to this .npz, under the graph\'s output names')
    .option('--trace <json>', 'write a Chrome/Perfetto trace (open in ui.perfetto.dev): one track per core, layers and kernels as slices (with --on iss: what each hart ran and waited for, measured on the rv32 ELF)')
    .option('--report <html>', 'write a self-contained HTML page: per-layer table, timeline, memory plan')
    .option('--on <where>', 'emulator (AssemblyScript firmware in the chip emulator), host (the C built with the host compiler), qemu (the C built for bare-metal rv32, run by qemu-system-riscv32) or iss (that rv32 ELF on the emulator\'s cycle-counting RV32 core: per-layer cycles of the C itself)', 'emulator')
    .option('--hotspots [layer]', 'with --on iss: where the cycles went, by function and by instruction (every hart, stalls and sleep included); with a layer id, within that layer\'s cycles only')
    .option('--quant <json>', 'quantization of the model (model.quant.json): float inputs are quantized with it (default: the firmware folder\'s model.int8.quant.json, when there is one)')
    .option('--max-cycles <n>', 'emulator watchdog: stop with a fault when any core passes this many cycles (0: none)', String(DEFAULT_MAX_CYCLES))
    .option('--timeout <s>', 'emulator: stop when the emulation runs longer than this many seconds of wall time (0: none)', String(DEFAULT_TIMEOUT_S))
    .addHelpText('after', '\nExamples:\n  gen run out/ --inputs inputs.npz --expect outputs.npz\n  gen run out/ --inputs inputs.npz --trace trace.json --report report.html')
    .action(async (dir: string, o: RunFlags & GenerateFlags) => {
      if (o.prompt !== undefined || o.promptIds !== undefined) {
        if (o.on !== 'emulator' || o.inputs || o.expect) throw new GenError('input', '--prompt runs in the emulator, without --inputs, --expect or --on');
        return generateCommand(dir, { ...o, maxCycles: positive(o.maxCycles, '--max-cycles') });
      }
      // The generation loop's own flags mean nothing for a run on --inputs: refused rather than ignored.
      const loopFlag = o.perToken ? '--per-token' : o.hostLoop ? '--host-loop' : undefined;
      if (loopFlag) throw new GenError('input', `${loopFlag} goes with --prompt or --prompt-ids (generation with a decoder step firmware)`);
      if (!o.inputs) throw new GenError('input', 'give --inputs <npz> (or --prompt for a decoder step firmware)');
      if (!['emulator', 'host', 'qemu', 'iss'].includes(o.on)) throw new GenError('input', `--on ${printable(o.on, 40)}: expected emulator, host, qemu or iss`);
      if (o.trace && o.on !== 'emulator' && o.on !== 'iss') throw new GenError('input', '--trace needs --on emulator or --on iss');
      if (o.report && o.on !== 'emulator') throw new GenError('input', '--report needs --on emulator');
      if (o.hotspots && o.on !== 'iss') throw new GenError('input', '--hotspots needs --on iss');
      const maxCycles = positive(o.maxCycles, '--max-cycles');
      const timeoutS = positive(o.timeout, '--timeout');
      // Everything the run reads or writes is checked first: a bad path fails at once, not after the whole run.
      const manifest = readManifest(dir);
      if (typeof o.hotspots === 'string') hotspotLayer(o.hotspots, manifest);
      const given = quantizeFloatInputs(dir, manifest, inputArrays(o.inputs, manifest), o.quant);
      for (const n of given.notes) console.log(`note: ${n}`);
      const inputs = given.arrays;
      checkPositionInputs(manifest, inputs, o.inputs);
      // A set of samples along the first axis runs as that many inferences (run-batch.ts); the profile, trace and
      // report are the first sample's.
      const samples = sampleCount(manifest, inputs);
      const expected = o.expect ? expectedArrays(o.expect, manifest, samples) : undefined;
      writable(o.outputs, '--outputs');
      writable(o.trace, '--trace');
      writable(o.report, '--report');
      const perSample: NDArray[][] = [];
      const cycles: number[] = [];
      for (let k = 0; k < samples; k++) {
        const x = samples === 1 ? inputs : sampleOf(manifest, inputs, k);
        const r = await runSample(dir, manifest, x, o, k === 0, maxCycles, timeoutS);
        perSample.push(r.outputs);
        if (r.cycles !== undefined) cycles.push(r.cycles);
      }
      const outputs = samples === 1 ? perSample[0] : stackSamples(perSample);
      if (samples > 1) {
        const sorted = [...cycles].sort((a, b) => a - b);
        const spread = sorted.length ? `; cycles per sample min ${sorted[0]}, median ${sorted[sorted.length >> 1]}, max ${sorted[sorted.length - 1]}` : '';
        console.log(`Samples: ${samples} (the profile above is the first one's)${spread}`);
      }
      if (o.outputs) {
        const keys = npzKeys(manifest.outputs);
        writeFileSync(o.outputs, encodeNpz(new Map(keys.map((k, i) => [k, outputs[i]]))));
      }
      if (expected) {
        const c = compareOutputs(manifest.outputs.map((n) => printable(n, 60)), outputs, expected);
        for (const d of c.details) console.log(`  ${d}`);
        console.log(`Errors: ${c.errors} out of ${c.total}`);
        if (c.errors > 0) process.exitCode = EXIT_MISMATCH;
      } else if (!o.outputs && (o.on === 'host' || o.on === 'qemu')) {
        for (const line of outputSummary(manifest, outputs)) console.log(line);
      }
    });
}
