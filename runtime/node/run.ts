/**
 * Runs generated firmware in the emulator: build (cached), instantiate emulator + firmware on one memory, load the
 * constant images and the inputs, run `_start`, read outputs, clocks and the event log (docs/firmware-abi.md).
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { GenError, quoted } from '../../generator/errors.js';
import { formatShape, sizeOf, type NDArray } from '../../generator/ir/ndarray.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { buildFirmware, type FirmwareBuild } from './asc-build.js';
import {
  agentName as nameOfAgent, bss2Detail, createEmulator, faultError, gemminiDetail, readEvents, readRegions, type DmaDetail,
  type Bss2Detail, type EmulatorExports, type NpuDetail, type Region,
} from './emulator.js';
import { readManifest, type Manifest, type ManifestImage, type ManifestTensor } from './manifest.js';
import { buildProfile, type Profile } from './profile.js';
import { readTensor, writeTensor } from './tensor-io.js';
import { wasmerHost, type WasiHost } from './wasi.js';
import { liteHost, liteSupports } from './wasi-lite.js';
import { readS2Description, readS2Times, type S2Times } from './spinnaker2-times.js';
import { builtCodeBytes } from './code-bytes.js';
import { deviceTimings } from './device-timings.js';

export interface RunOptions {
  /** Cluster cores to model (0: the chip's own count); overrides the manifest's `cores`. */
  cores?: number;
  /** Default: the in-process fd_write/proc_exit host when the firmware needs no more WASI, else @wasmer/wasi. */
  wasi?: WasiHost;
  /** Called as each stage begins ('asc build', 'emulate'), for progress display. */
  onStage?: (stage: string) => void;
  /** The watchdog: a fault when any agent's clock passes this many cycles (0 or absent: no limit). */
  maxCycles?: number;
  /**
   * The L1 bank replay's start skew in cycles (docs/timing.md "L1 bank conflicts"), instead of the chip's measured
   * one: the cost fit's sweep and hand-worked tests (0: the cores in lockstep).
   */
  bankSkew?: number;
  /**
   * Cycles per unit of cost classes (COST_CLASSES order, whole 64ths) that replace the chip's table for this run:
   * the cost fit measures against a fixed table (scripts/cost-fit/measure.ts).
   */
  costs?: readonly number[];
  /**
   * Price each layer's cold code at its compiled size where the output directory's rv32 build is up to date (its
   * layer functions' sizes: code-bytes.ts), not at the generator's estimate from the C's bytes (what `gen run`
   * prints): the cost fit measures the price of a compiled byte so (scripts/cost-fit), bench:iss-vs-as reports both.
   */
  builtCode?: boolean;
}

export interface LayerTiming {
  layer: number;
  /** From the manifest's layer table ('' when the layer id is not in it). */
  name: string;
  agent: number;
  agentName: string;
  start: number;
  end: number;
  cycles: number;
}

/** One cluster core's work in one phase of a fork (emulator event kind `share`). */
export interface ShareTiming {
  /** The master's open layer when the phase ended (-1: none). */
  layer: number;
  agent: number;
  agentName: string;
  /** Phase index within the fork: 0, then +1 per barrier. */
  phase: number;
  start: number;
  end: number;
}

/** One cluster DMA transfer (emulator event kind `dma`): the engine's busy interval and what it moved. */
export interface DmaTiming extends DmaDetail {
  /** The issuing agent and its open layer (-1: none). */
  agent: number;
  agentName: string;
  layer: number;
  start: number;
  end: number;
}

/** One L3 copy (emulator event kind `l3`): its interval on the caller's clock, the bytes and the direction. */
export interface L3Timing {
  bytes: number;
  toL3: boolean;
  agent: number;
  agentName: string;
  layer: number;
  start: number;
  end: number;
}

/** One N-EUREKA job (emulator event kind `npu`): the engine's busy interval and what the job was. */
export interface NpuTiming extends NpuDetail {
  /** The agent that triggered it and its open layer (-1: none). */
  agent: number;
  agentName: string;
  layer: number;
  start: number;
  end: number;
}

export interface RunResult {
  /** In the manifest's output order, with its dtype and shape. */
  outputs: NDArray[];
  outputNames: string[];
  /** The master clock when `_start` returned: the network's latency in cycles. */
  cycles: number;
  /** Cycles the master spent in compute() itself (not waiting for the cluster). */
  masterBusy: number;
  /** L1 bank-conflict stalls charged to all cores over the run (0 on a chip without the bank model). */
  l1StallCycles: number;
  /** Final clock and busy (compute) cycles of each cluster core; empty on a chip without a cluster. */
  coreCycles: number[];
  coreBusy: number[];
  /** Units of work of each cost class over the run, all cores, indexed as COST_CLASSES (the cost fit reads them). */
  units: number[];
  layers: LayerTiming[];
  /** Per-core shares of every fork phase, in the order they ended. */
  shares: ShareTiming[];
  /** Cluster DMA transfers, in issue order. */
  dma: DmaTiming[];
  /** Siracusa N-EUREKA jobs, in trigger order (= run order). */
  npu: NpuTiming[];
  /** Siracusa's HyperRAM DMA copies (L2 <-> L3), each blocking its caller. */
  l3: L3Timing[];
  /** Gemmini's array computes (execute-unit events), each its 16-row stream: the array's busy intervals. */
  gemminiArray: { layer: number; start: number; end: number }[];
  /** BrainScaleS-2's device calls, one record per phase (link in, analog run, link out, block write). */
  bss2: ({ layer: number; start: number; end: number; cycles: number } & Bss2Detail)[];
  /** Event records the ring buffer overwrote (the oldest ones). */
  eventsDropped: number;
  stdout: string;
  build: FirmwareBuild;
  /** Wall time of instantiate + load + run, ms. */
  runMs: number;
  /** Wall time of the firmware's `_start` alone (the network itself, in the emulator), ms. */
  execMs: number;
  /** SpiNNaker2: the time stamps the firmware wrote into the DRAM's time-measurement area. */
  spinnaker2?: S2Times;
  /** The per-layer profile of this run (profile.ts; what `gen run` prints and writes to profile.json). */
  profile: Profile;
  /** The rv32 build whose layer functions priced the cold code (RunOptions.builtCode); undefined: the generator's estimate. */
  codeBytesFrom?: string;
  /** SpiNNaker2 MLA jobs, in the order they were started: the PE, its open layer, 4x16 blocks, busy interval. */
  mla: { agent: number; layer: number; blocks: number; start: number; end: number }[];
}

const modules = new Map<string, Promise<WebAssembly.Module>>();

/** Compiled firmware, by path: cache file names are content hashes, so a path never changes meaning. */
function firmwareModule(path: string): Promise<WebAssembly.Module> {
  let m = modules.get(path);
  if (!m) {
    m = readFile(path).then((b) => WebAssembly.compile(b));
    modules.set(path, m);
  }
  return m;
}

/** A firmware loaded into a fresh emulator: images in memory, ready for inputs and `_start` (once or per step). */
export interface LoadedFirmware {
  manifest: Manifest;
  build: FirmwareBuild;
  module: WebAssembly.Module;
  emu: EmulatorExports;
  regions: Region[];
  /** Linear (emulator memory) address of every manifest tensor. */
  linear: Map<string, number>;
  layerNames: Map<number, string>;
  nameOf: (layer: number) => string;
  /** performance.now() when emulation began (after the build): the start of RunResult.runMs. */
  t0: number;
  /** RunResult.codeBytesFrom. */
  codeBytesFrom?: string;
}

export async function loadFirmware(outDir: string, opts: RunOptions = {}): Promise<LoadedFirmware> {
  const manifest = readManifest(outDir);
  opts.onStage?.('asc build');
  const build = await buildFirmware(join(outDir, 'as'));
  const module = await firmwareModule(build.wasmPath);
  opts.onStage?.('emulate');
  const t0 = performance.now();
  const emu = await createEmulator(manifest.platform, opts.cores ?? manifest.cores);
  const regions = readRegions(emu);
  checkRegions(manifest, regions);
  const linear = new Map(manifest.tensors.map((t) => [t.name, linearAddress(t, regions)]));
  loadImages(outDir, manifest, emu, regions);
  if (opts.maxCycles) emu.set_cycle_limit(BigInt(Math.floor(opts.maxCycles)));
  if (opts.bankSkew !== undefined) emu.set_bank_skew(opts.bankSkew);
  opts.costs?.forEach((v, cls) => emu.set_cost_64ths(cls, Math.round(v * 64)));
  const built = opts.builtCode ? builtCodeBytes(outDir) : undefined;
  built?.bytes.forEach((bytes, layer) => emu.set_layer_code_bytes(layer, bytes));
  const layerNames = new Map(manifest.layers.map((l) => [l.id, l.name]));
  const nameOf = (layer: number): string => quoted(layerNames.get(layer) ?? '');
  return { manifest, build, module, emu, regions, linear, layerNames, nameOf, t0, codeBytesFrom: built?.elf };
}

/**
 * One run of the firmware's `_start` in a fresh instance over the emulator's memory (which keeps everything the
 * previous run left: a decoder's caches), then the end-of-run checks. Returns the wall time of `_start` and stdout.
 */
export async function startFirmware(f: LoadedFirmware, opts: RunOptions = {}): Promise<{ execMs: number; stdout: string }> {
  const { emu, nameOf } = f;
  const chip = deviceImports(f.module, emu);
  const host = opts.wasi ?? (liteSupports(f.module) ? liteHost : wasmerHost);
  const session = await host.session(['firmware'], {});
  try {
    session.instantiate(f.module, { env: { memory: emu.memory }, chip });
  } catch (e) {
    throw new GenError('run', `the firmware does not link against the emulator: ${(e as Error).message}`);
  }
  let code: number;
  const tStart = performance.now();
  try {
    code = session.start();
  } catch (e) {
    throw faultError(emu, e, nameOf);
  }
  const execMs = performance.now() - tStart;
  if (code !== 0) {
    const err = session.stderr().trim();
    throw new GenError('run', `the firmware exited with code ${code}${err ? `: ${err}` : ''}`);
  }
  try {
    emu.dma_finish(); // a transfer never waited for is a firmware bug: its data may not have arrived
    emu.pe_dma_finish();
    emu.pe_finish(); // SpiNNaker2: every interrupt taken, every completion signal waited for
    emu.npu_finish(); // every N-EUREKA job observed finished: else its outputs never landed
    if (emu.mla_busy() >= 0) throw new GenError('run', `fault: mla: PE ${emu.mla_busy()} ended with an MLA job never waited for`);
  } catch (e) {
    throw faultError(emu, e, nameOf);
  }
  return { execMs, stdout: session.stdout() };
}

/** A manifest tensor's current value in the emulator's memory. */
export function readManifestTensor(f: LoadedFirmware, name: string): NDArray {
  const t = tensorNamed(f.manifest, name);
  return readTensor(f.emu.memory, f.linear.get(name)!, t.dtype, t.shape);
}

/** Writes one input (by manifest name) into the emulator's memory. */
export function writeManifestTensor(f: LoadedFirmware, name: string, data: ArrayLike<number>): void {
  const t = tensorNamed(f.manifest, name);
  if (data.length !== sizeOf(t.shape)) throw new GenError('run', `${data.length} values for a tensor of shape ${formatShape(t.shape)}`, { tensor: name });
  writeTensor(f.emu.memory, f.linear.get(name)!, t.dtype, Float64Array.from(data), name);
}

export async function runFirmware(outDir: string, inputs: NDArray[], opts: RunOptions = {}): Promise<RunResult> {
  const loaded = await loadFirmware(outDir, opts);
  const { manifest, build, emu, regions, linear, layerNames, t0, codeBytesFrom } = loaded;
  writeInputs(manifest, inputs, emu, linear);
  const { execMs, stdout } = await startFirmware(loaded, opts);

  const outputs = manifest.outputs.map((name) => {
    const t = tensorNamed(manifest, name);
    return readTensor(emu.memory, linear.get(name)!, t.dtype, t.shape);
  });
  const cores = Array.from({ length: emu.core_count() }, (_, c) => c + 1);
  const agentName = (a: number): string => nameOfAgent(a, manifest.platform);
  const { events, dropped } = readEvents(emu);
  const dram = regions.find((x) => x.name === 'DRAM');
  const spinnaker2 = manifest.platform === 'spinnaker2' && dram
    ? readS2Times(readS2Description(outDir), new Uint8Array(emu.memory.buffer, dram.linear, dram.size), dram.chip,
      manifest.clockHz ?? 0, layerNames)
    : undefined;
  const result: Omit<RunResult, 'profile'> = {
    spinnaker2,
    mla: events.filter((e) => e.kind === 'mla').map((e) => ({ agent: e.agent, layer: e.layer, blocks: e.detail, start: e.start, end: e.end })),
    outputs,
    outputNames: [...manifest.outputs],
    cycles: Number(emu.total_cycles()),
    masterBusy: Number(emu.agent_busy(0)),
    l1StallCycles: Number(emu.l1_stall_cycles()),
    coreCycles: cores.map((a) => Number(emu.agent_cycles(a))),
    coreBusy: cores.map((a) => Number(emu.agent_busy(a))),
    units: Array.from({ length: COST_CLASSES.length }, (_, c) => Number(emu.units_of(c))),
    layers: events.filter((e) => e.kind === 'layer').map((e) => ({
      layer: e.layer,
      name: layerNames.get(e.layer) ?? '',
      agent: e.agent,
      agentName: agentName(e.agent),
      start: e.start,
      end: e.end,
      cycles: e.end - e.start,
    })),
    shares: events.filter((e) => e.kind === 'share').map((e) => ({
      layer: e.layer, agent: e.agent, agentName: agentName(e.agent), phase: e.detail, start: e.start, end: e.end,
    })),
    ...deviceTimings(events, agentName),
    gemminiArray: events.filter((e) => e.kind === 'gemmini' && gemminiDetail(e.detail).unit === 'execute')
      .map((e) => ({ layer: e.layer, start: e.start, end: e.end })),
    bss2: events.filter((e) => e.kind === 'bss2').map((e) => ({ layer: e.layer, start: e.start, end: e.end, cycles: e.end - e.start, ...bss2Detail(e.detail) })),
    eventsDropped: dropped,
    stdout,
    build,
    runMs: performance.now() - t0,
    execMs,
    codeBytesFrom,
  };
  return { ...result, profile: buildProfile(manifest, result) };
}

/**
 * The emulator exports the firmware imports from module "chip", as a plain object (@wasmer/wasi traps when handed
 * the exports object itself). Missing names are reported here: wasmer's own link error does not name them.
 */
function deviceImports(module: WebAssembly.Module, emu: EmulatorExports): WebAssembly.ModuleImports {
  const exports = emu as unknown as Record<string, WebAssembly.ImportValue>;
  const chip: WebAssembly.ModuleImports = {};
  const missing: string[] = [];
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'chip') continue;
    if (imp.kind === 'function' && typeof exports[imp.name] === 'function') chip[imp.name] = exports[imp.name];
    else missing.push(imp.name);
  }
  if (missing.length > 0) {
    throw new GenError('run', `the firmware does not link against the emulator: no device call ${missing.join(', ')}`);
  }
  return chip;
}

function tensorNamed(m: Manifest, name: string): ManifestTensor {
  const t = m.tensors.find((x) => x.name === name);
  if (!t) throw new GenError('run', `manifest: no tensor named '${name}'`);
  return t;
}

const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;

/** The manifest's regions (what the generator planned against) must be the emulator's. */
function checkRegions(m: Manifest, regions: Region[]): void {
  for (const r of m.regions) {
    const e = regions.find((x) => x.name === r.name);
    if (!e) throw new GenError('run', `manifest region '${r.name}' does not exist on the emulated ${m.platform}`);
    if (e.chip !== r.address || e.size !== r.size) {
      throw new GenError('run', `manifest region '${r.name}' (${hex(r.address)}, ${r.size} bytes) differs from the ` +
        `emulator's (${hex(e.chip)}, ${e.size} bytes)`);
    }
  }
}

/** Linear address of a tensor from its region and chip address; it must lie inside the region. */
function linearAddress(t: ManifestTensor, regions: Region[]): number {
  const r = regions.find((x) => x.name === t.region);
  if (!r) throw new GenError('run', `manifest: region '${t.region}' does not exist`, { tensor: t.name });
  if (t.address < r.chip || t.address + t.bytes > r.chip + r.size) {
    throw new GenError('run', `manifest: ${hex(t.address)} + ${t.bytes} bytes lies outside region ${r.name}`, {
      tensor: t.name,
    });
  }
  const linear = r.linear + (t.address - r.chip);
  if (t.linear !== undefined && t.linear !== linear) {
    throw new GenError('run', `manifest: linear address ${hex(t.linear)} should be ${hex(linear)}`, { tensor: t.name });
  }
  return linear;
}

/**
 * Constant images into their regions: the manifest's `images` list, or without one every out/memory/<region>.bin
 * (region name lower-case) at the start of its region. An image for a region the chip lacks, or one that does not
 * fit, is an error.
 */
function loadImages(outDir: string, m: Manifest, emu: EmulatorExports, regions: Region[]): void {
  const dir = join(outDir, 'memory');
  const images: ManifestImage[] = m.images ?? (existsSync(dir) ? readdirSync(dir) : [])
    .filter((f) => f.endsWith('.bin'))
    .map((f) => {
      const stem = f.slice(0, -'.bin'.length);
      return { region: regions.find((r) => r.name.toLowerCase() === stem)?.name ?? stem, file: `memory/${f}`, offset: 0 };
    });
  for (const img of images) {
    const file = insideFolder(outDir, img.file);
    if (!existsSync(file)) throw new GenError('run', `memory image for region ${quoted(img.region)} is missing`, { file });
    const r = regions.find((x) => x.name === img.region);
    if (!r) throw new GenError('run', `memory image for region '${img.region}', which the chip does not have`, { file });
    const bytes = readFileSync(file);
    if (img.offset + bytes.length > r.size) {
      throw new GenError('run', `image of ${bytes.length} bytes at offset ${img.offset} exceeds region ${r.name} ` +
        `(${r.size} bytes)`, { file });
    }
    new Uint8Array(emu.memory.buffer, r.linear + img.offset, bytes.length).set(bytes);
  }
}

/**
 * A file the manifest names, resolved inside the firmware folder: a path that leaves it (`../`, absolute, or a link
 * pointing out) is refused, so a firmware folder from elsewhere cannot make `gen run` read the user's files.
 */
function insideFolder(outDir: string, name: string): string {
  const root = realpathSync(outDir);
  const file = resolve(root, name);
  const outside = (p: string): boolean => {
    const rel = relative(root, p);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel);
  };
  if (outside(file) || (existsSync(file) && outside(realpathSync(file)))) {
    throw new GenError('run', `manifest: memory image ${quoted(name)} lies outside the firmware folder`, { file: join(outDir, 'firmware.json') });
  }
  return file;
}

function writeInputs(m: Manifest, inputs: NDArray[], emu: EmulatorExports, linear: Map<string, number>): void {
  if (inputs.length !== m.inputs.length) {
    throw new GenError('run', `the firmware takes ${m.inputs.length} inputs (${m.inputs.join(', ')}), got ${inputs.length}`);
  }
  m.inputs.forEach((name, i) => {
    const t = tensorNamed(m, name);
    if (sizeOf(inputs[i].shape) !== sizeOf(t.shape)) {
      throw new GenError('run', `input of shape ${formatShape(inputs[i].shape)} for a tensor of shape ` +
        `${formatShape(t.shape)}`, { tensor: name });
    }
    writeTensor(emu.memory, linear.get(name)!, t.dtype, inputs[i].data, name);
  });
}
