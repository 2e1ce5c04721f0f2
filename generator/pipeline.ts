import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { emitFirmware, tableName } from './backend/emit.js';
import { planTiling, type TilingPlan } from './midend/tiling/plan-tiles.js';
import { tableBytes } from './midend/tiling/table.js';
import type { Manifest } from './backend/manifest.js';
import { writeDirectoryAtomically } from './backend/write.js';
import { GenError } from './errors.js';
import { selectKernels, type Layer } from './frontend/select.js';
import type { IntRange } from './ir/dtype.js';
import type { Graph } from './ir/graph.js';
import { inferGraph, inputRangesFromArrays } from './ir/infer.js';
import { overflowError, planMemory, type MemoryPlan } from './midend/plan.js';
import { chooseSpills, stageThroughL2 } from './midend/l3.js';
import { alignUp } from './midend/lifetimes.js';
import { l3CopyKernel } from './kernels/l3copy.js';
import { memoryOf } from './platforms/types.js';
import { planNms } from './midend/nms.js';
import { siracusaWith, type EngineOptions } from './platforms/siracusa/engines.js';
import { npuOriginOf, type NpuFallback } from './frontend/passes/lower-npu.js';
import { sanitizeComment } from './backend/sanitize.js';
import { loadOnnxFile } from './onnx/load.js';
import { readNpz } from './onnx/npy.js';
import { platformByName } from './platforms/index.js';
import type { Platform } from './platforms/types.js';

export interface FirmwareOptions {
  model: string;
  platform: string;
  out: string;
  /**
   * Sample inputs (.npz) whose value ranges give the graph inputs their device types. The integer dialect
   * declares inputs FLOAT; without samples firmgen looks for inputs.npz beside the model, then assumes int8.
   */
  sampleInputs?: string;
  /** Called as each stage begins (load, lower, plan, emit), for progress display. */
  onStage?: (stage: string) => void;
  /** Bytes of L1 for tile buffers (default: all of it). */
  l1?: number;
  /** Bytes of the home memory (L2) for tensors (default: the platform's arena). */
  l2?: number;
  /** Bytes of the far memory (Siracusa L3) for tensors L2 cannot hold (default: all of it; 0: none). */
  l3?: number;
  /** Double buffering (default) overlaps DMA with compute; single buffering waits for each transfer. */
  buffering?: 'single' | 'double';
  /**
   * Keep tiled convs' weights dense in L1 (no padded filter rows against bank conflicts, tiling/filter-layout.ts):
   * to measure what the padding buys.
   */
  denseFilters?: boolean;
  /** Keep every kernel on the home memory (no tiles, no DMA), as before tiling existed. */
  untiled?: boolean;
  /** SpiNNaker2: processing elements of the chip to use, scheduler included (default: all 152). */
  pes?: number;
  /** Siracusa: engines that run layers (default 'cluster'), where N-EUREKA weights live, cluster cores. */
  engines?: EngineOptions['engines'];
  weightsIn?: EngineOptions['weightsIn'];
  cores?: number;
}

export interface Compiled {
  graph: Graph;
  lowered: Graph;
  layers: Layer[];
  plan: MemoryPlan;
  tiling?: TilingPlan;
  platform: Platform;
  notes: string[];
  /** N-EUREKA weights in the neural memory: offset by tensor. */
  nms: Map<string, number>;
}

/** load -> infer -> lower -> select -> plan (DESIGN.md pipeline), without writing anything. */
export function compileModel(opts: Omit<FirmwareOptions, 'out'>): Compiled {
  return withNpuFallback(opts, (fallback) => compileOnce(opts, fallback));
}

/**
 * --engines npu / cluster+npu never reject a model the cluster runs: when a layer the NPU lowering rewrote fails
 * further down (its tiles do not fit the L1 given, a kernel refuses its layout change), that layer stays on the
 * cluster with the failure in its engineNote and the model is compiled again, one such layer per round. Failures
 * elsewhere are the model's own and are thrown as they are.
 */
function withNpuFallback<T>(opts: Omit<FirmwareOptions, 'out'>, run: (fallback?: NpuFallback) => T): T {
  if ((opts.engines ?? 'cluster') === 'cluster') return run(undefined);
  const keep = new Map<string, string>();
  for (;;) {
    const fallback: NpuFallback = { keep, lowered: new Set() };
    try {
      return run(fallback);
    } catch (e) {
      if (!(e instanceof GenError) || e.kind === 'input' || !e.site.node) throw e;
      const origin = npuOriginOf(fallback, e.site.node);
      if (!origin || keep.has(origin)) throw e;
      keep.set(origin, `its N-EUREKA version failed (${e.kind}: ${sanitizeComment(e.reason)})`);
    }
  }
}

function compileOnce(opts: Omit<FirmwareOptions, 'out'>, fallback: NpuFallback | undefined): Compiled {
  const stage = opts.onStage ?? (() => undefined);
  const named = platformByName(opts.platform);
  if (opts.pes !== undefined && !named.backend) throw new GenError('input', `--pes applies to spinnaker2, not to ${named.name}`);
  let platform = opts.pes === undefined || !named.backend ? named : named.backend.withCores(named, opts.pes);
  if (opts.engines !== undefined || opts.weightsIn !== undefined || opts.cores !== undefined) {
    if (named.name !== 'siracusa') throw new GenError('input', `--engines, --weights-in and --cores apply to siracusa, not to ${named.name}`);
    const engines = opts.engines ?? 'cluster';
    if (engines !== 'cluster' && opts.untiled) throw new GenError('input', '--untiled cannot run N-EUREKA layers: the engine reads L1 only');
    platform = siracusaWith(platform, { engines, weightsIn: opts.weightsIn ?? 'nms', cores: opts.cores, fallback });
  }
  if (opts.l3 !== undefined) {
    const far = named.far ? memoryOf(named, named.far.memory) : undefined;
    if (!far) throw new GenError('input', `--l3 applies to a platform with an L3 (siracusa), not to ${named.name}`);
    if (!Number.isInteger(opts.l3) || opts.l3 < 0 || opts.l3 > far.size) throw new GenError('input', `--l3 ${opts.l3}: ${far.name} has 0..${far.size} bytes`);
  }
  stage('load');
  const graph = loadOnnxFile(opts.model);
  const notes: string[] = [];
  let ranges: Map<string, IntRange> | undefined;
  const sample = opts.sampleInputs ?? join(dirname(opts.model), 'inputs.npz');
  if (opts.sampleInputs || existsSync(sample)) {
    ranges = inputRangesFromArrays(graph, [...readNpz(sample).values()]);
    notes.push(`input types from the value ranges in ${sample}`);
  } else if (graph.inputs.some((i) => graph.tensors.get(i)?.dtype === 'float32')) {
    notes.push('no sample inputs: FLOAT-declared inputs are taken as int8 (give --inputs to set their types)');
  }
  stage('lower');
  const inferred = withFile(opts.model, () => inferGraph(graph, ranges));
  const lowered = withFile(opts.model, () => platform.passes.reduce((g, pass) => pass(g), inferred));
  const first = withFile(opts.model, () => placeGraph(lowered, platform, opts, stage));
  if (first.plan.used <= first.plan.arenaSize || platform.backend) return { graph: inferred, platform, notes, ...first };
  // L2 cannot hold every tensor: move some to the far memory (L3) and stage them through L2 (midend/l3.ts).
  const farBytes = opts.l3 ?? (platform.far ? memoryOf(platform, platform.far.memory).size : 0);
  if (!platform.far || farBytes === 0) throw overflowError(first.plan, lowered);
  const isAliased = (i: number): boolean => first.layers[i].kernel === 'alias';
  let slack = 0;
  for (let attempt = 0; ; attempt++) {
    const spilled = withFile(opts.model, () => chooseSpills({
      graph: lowered, isAliased, budget: first.plan.arenaSize, fixedBytes: blobBytes(first.tiling), elsewhere: new Set(first.nms.keys()),
      align: 4, slack,
    }));
    const staged = stageThroughL2(lowered, spilled);
    const next = withFile(opts.model, () => placeGraph(staged, platform, { ...opts, l3: farBytes }, stage, spilled));
    const over = next.plan.used - next.plan.arenaSize;
    if (over <= 0) {
      notes.push(`${spilled.size} tensor(s) at home in ${platform.far.memory}, staged through ${next.plan.region} by copy layers`);
      return { graph: inferred, platform, notes, ...next, lowered: staged };
    }
    // The greedy's offsets missed the live set by `over` bytes: aim lower (a few rounds at most).
    if (attempt === 3) throw overflowError(next.plan, staged);
    slack += over;
  }
}

/** select -> tile -> place, on a graph that may carry L3 copy layers (`far`: the tensors at home in L3). */
function placeGraph(g: Graph, platform: Platform, opts: Omit<FirmwareOptions, 'out'>, stage: (s: string) => void, far?: Set<string>) {
  const withCopies = far ? { ...platform, kernels: [l3CopyKernel, ...platform.kernels] } : platform;
  const layers = selectKernels(g, withCopies);
  stage('plan');
  const tiling = opts.untiled ? undefined : planTiling(g, layers, platform, {
    l1: opts.l1, double: (opts.buffering ?? 'double') === 'double', padFilters: !opts.denseFilters,
  });
  const blobs = [...(tiling?.layers ?? [])].map(([id, tl]) => ({ name: tableName(id), bytes: tableBytes(tl) }));
  const nms = planNms(g, layers, platform);
  const plan = platform.backend
    ? platform.backend.plan(g, layers, platform, { arenaSize: opts.l2 })
    : planMemory(g, platform, (i) => layers[i].kernel === 'alias', {
      arenaSize: opts.l2, blobs, elsewhere: new Set(nms.keys()), allowOverflow: true,
      far: far && { roots: far, size: opts.l3 ?? 0 },
    });
  return { lowered: g, layers, tiling, nms, plan };
}

function blobBytes(tiling: TilingPlan | undefined): number {
  return [...(tiling?.layers.values() ?? [])].reduce((sum, tl) => sum + alignUp(tableBytes(tl), 4), 0);
}

export function generateFirmware(opts: FirmwareOptions): Compiled & { manifest: Manifest } {
  // Emission is inside the fallback too: an N-EUREKA layer's layout change may be refused only when rendered.
  const { compiled, files, manifest } = withNpuFallback(opts, (fallback) => {
    const compiled = compileOnce(opts, fallback);
    opts.onStage?.('emit');
    const input = { graph: compiled.lowered, layers: compiled.layers, plan: compiled.plan, platform: compiled.platform };
    const emitted = withFile(opts.model, () =>
      compiled.platform.backend ? compiled.platform.backend.emit(input) : emitFirmware({ ...input, tiling: compiled.tiling, nms: compiled.nms }),
    );
    return { compiled, ...emitted };
  });
  writeDirectoryAtomically(opts.out, files);
  return { ...compiled, manifest };
}

function withFile<T>(file: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof GenError) throw e.withSite({ file });
    throw e;
  }
}
