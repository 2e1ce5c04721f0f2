import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { emitFirmware, tableName } from './backend/emit.js';
import { planTiling, type TilingPlan } from './midend/tiling/plan-tiles.js';
import { tableBytes } from './midend/tiling/table.js';
import type { Manifest } from './backend/manifest.js';
import { writeDirectoryAtomically } from './backend/write.js';
import type { Emitted } from './backend/emit.js';
import { CapacityError, GenError } from './errors.js';
import { cArenaBytes } from './backend/c-image.js';
import { isQuantizedModel } from './frontend/passes/lower-quantized.js';
import { quantSidecar } from './frontend/passes/quantized/sidecar.js';
import { selectKernels, sharesInput, type Layer } from './frontend/select.js';
import type { IntRange } from './ir/dtype.js';
import type { Graph } from './ir/graph.js';
import type { NDArray } from './ir/ndarray.js';
import { inferGraph, inputRangesFromArrays } from './ir/infer.js';
import { overflowError, planMemory, type MemoryPlan } from './midend/plan.js';
import { chooseSpills, stageThroughL2 } from './midend/l3.js';
import { alignUp } from './midend/lifetimes.js';
import { l3CacheWriteKernel, l3CopyKernel } from './kernels/l3copy.js';
import { farCopyCycles, memoryOf } from './platforms/types.js';
import { loadOnnxFile } from './onnx/load.js';
import { addSamplingBlock, loopInputs } from './ir/state.js';
import { SAMPLING_MAX_VOCAB, SAMPLING_TABLE } from './reference/sample.js';
import { checkTypes } from './validate/types.js';
import { checkPositions } from './validate/positions.js';
import { withQuantizeHint } from './validate/float-model.js';
import { readNpz } from './onnx/npy.js';
import { checkSampleSizes } from './frontend/samples.js';
import { CATALOG } from './platforms/catalog.js';
import { configurePlatform } from './platforms/options.js';
import type { CoreCosts, Elsewhere, Platform } from './platforms/types.js';

export interface CompileOptions {
  model: string;
  /**
   * What messages and firmware.json call the model (default: `model`): `gen firmware --calibration` generates from
   * the quantized copy in a private folder and names the copy it leaves in the output folder instead.
   */
  modelLabel?: string;
  platform: string;
  /** A decoder step graph's generation loop samples on the cores (ir/state.ts addSamplingBlock); default argmax only. */
  sampling?: boolean;
  /**
   * Sample inputs (.npz) whose value ranges give the graph inputs their device types. The integer dialect
   * declares inputs FLOAT; without samples firmgen looks for inputs.npz beside the model, then assumes int8.
   */
  sampleInputs?: string;
  /** Called as each stage begins (load, infer, lower, select, tile, plan, emit, closure check, write), for progress display. */
  onStage?: (stage: string) => void;
  /** Bytes of L1 for tile buffers (default: all of it). */
  l1?: number;
  /**
   * The cost table the generator plans with, over the platform's (default: the platform's own). The cost fit
   * (scripts/cost-fit) plans its calibration layers with the hand counts, so that what it measures does not follow
   * the table it fits.
   */
  planCosts?: Partial<CoreCosts>;
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
  /** The calibration set's integer inputs when the model was quantized from a float one (platforms/options.ts ConfigureContext). */
  calibrationSamples?: NDArray[];
  /**
   * The platform's own options by key, as it declares them (Platform.options; e.g. engines, weightsIn, cores, pes):
   * from the command line as text, from code as text or numbers. The platform parses and checks them.
   */
  [platformOption: string]: unknown;
}

export interface FirmwareOptions extends CompileOptions {
  /** The output folder (backend/output-folder.ts says which folders may be written). */
  out: string;
}

export interface Compiled {
  graph: Graph;
  lowered: Graph;
  layers: Layer[];
  plan: MemoryPlan;
  tiling?: TilingPlan;
  platform: Platform;
  notes: string[];
  /** Constants the platform placed outside the plan (Platform.placeElsewhere). */
  elsewhere?: Elsewhere;
}

/**
 * load -> infer -> lower -> select -> plan (DESIGN.md pipeline), without writing anything, for `base` (the platform
 * opts.platform names, its modules loaded: pipeline.ts's compileModel loads every platform, the CLI only the one
 * asked for, platforms/catalog.ts).
 */
export function compileFor(base: Platform, opts: CompileOptions): Compiled {
  return withRetries(base, opts, (platform) => compileOnce(opts, platform));
}

/**
 * A platform that offloads layers to an accelerator never rejects a model its cores run: when a layer its lowering
 * rewrote fails further down (its tiles do not fit the L1 given, a kernel refuses its layout change), the platform
 * gives back the configuration that keeps that layer on the cores (Platform.retryWithout, with the reason recorded)
 * and the model is compiled again, one such layer per round. Other failures are the model's own and stand.
 */
function withRetries<T>(base: Platform, opts: CompileOptions, run: (platform: Platform) => T): T {
  let platform = configurePlatform(base, opts, { untiled: opts.untiled === true, calibrationSamples: opts.calibrationSamples }, CATALOG);
  if (opts.planCosts) platform = { ...platform, costs: { ...platform.costs, ...opts.planCosts } };
  for (;;) {
    try {
      return run(platform);
    } catch (e) {
      if (!(e instanceof GenError) || e.kind === 'input' || !e.site.node) throw e;
      const next = platform.retryWithout?.(e);
      if (!next) throw e;
      platform = next;
    }
  }
}

function compileOnce(opts: CompileOptions, platform: Platform): Compiled {
  const stage = opts.onStage ?? (() => undefined);
  const named = platform;
  if (opts.l3 !== undefined) {
    const far = named.far ? memoryOf(named, named.far.memory) : undefined;
    const takers = CATALOG.filter((p) => p.far).map((p) => p.name);
    if (!far) throw new GenError('input', `--l3 applies to a platform with a far memory (${takers.join(', ')}), not to ${named.name}`);
    if (!Number.isInteger(opts.l3) || opts.l3 < 0 || opts.l3 > far.size) throw new GenError('input', `--l3 ${opts.l3}: ${far.name} has 0..${far.size} bytes`);
  }
  stage('load');
  const graph = loadOnnxFile(opts.model);
  if (opts.modelLabel !== undefined) graph.source = opts.modelLabel;
  if (opts.sampling) addSamplingBlock(graph, SAMPLING_TABLE, SAMPLING_MAX_VOCAB);
  const notes: string[] = [];
  let ranges: Map<string, IntRange> | undefined;
  let samples: { arrays: NDArray[]; file: string } | undefined;
  const sample = opts.sampleInputs ?? join(dirname(opts.model), 'inputs.npz');
  if (opts.sampleInputs || existsSync(sample)) {
    const arrays = [...readNpz(sample).values()];
    checkSampleSizes(graph, arrays, sample);
    samples = { arrays, file: sample };
    ranges = inputRangesFromArrays(graph, arrays);
    // A decoder step's loop-driven inputs (ids, position, caches, control blocks) keep their declared types: the
    // loop writes them at run time, so one sample's values bound nothing (a sample's ids narrowed to a byte made the
    // loop's int32 write an internal error; a sample's cache values would bound every later step's).
    for (const name of loopInputs(graph)) ranges.delete(name);
    notes.push(`input types from the value ranges in ${sample}`);
  } else if (graph.inputs.some((i) => graph.tensors.get(i)?.dtype === 'float32') && !isQuantizedModel(graph)) {
    // (A QDQ/QOperator model's float inputs are quantized by its own QuantizeLinear: model.int8.quant.json says how.)
    notes.push('no sample inputs: FLOAT-declared inputs are taken as int8 (give --inputs to set their types)');
  }
  stage('infer');
  const inferred = inModel(opts, () => {
    try {
      const g = inferGraph(graph, ranges);
      checkTypes(g); // the model's domain, checked once for every platform (validate/)
      checkPositions(g, samples);
      return g;
    } catch (e) {
      throw withQuantizeHint(graph, e);
    }
  });
  stage('lower');
  const lowered = inModel(opts, () => platform.passes.reduce((g, pass) => pass(g), inferred));
  const first = inModel(opts, () => placeGraph(lowered, platform, opts, stage));
  if (first.plan.used <= first.plan.arenaSize || platform.backend) return { graph: inferred, platform, notes, ...first };
  // L2 cannot hold every tensor: move some to the far memory (L3) and stage them through L2 (midend/l3.ts).
  const farBytes = opts.l3 ?? (platform.far ? memoryOf(platform, platform.far.memory).size : 0);
  if (!platform.far || farBytes === 0) throw overflowError(first.plan, lowered);
  const isAliased = (i: number): boolean => sharesInput(lowered, first.layers, i);
  let slack = 0;
  for (let attempt = 0; ; attempt++) {
    const spilled = inModel(opts, () => chooseSpills({
      graph: lowered, isAliased, budget: first.plan.arenaSize, fixedBytes: blobBytes(first.tiling), elsewhere: new Set(first.elsewhere?.offsets.keys()),
      align: 4, slack,
    }));
    const far = platform.far;
    const staged = stageThroughL2(lowered, spilled, { isAliased, copyCycles: (bytes) => farCopyCycles(far, bytes) });
    const next = inModel(opts, () => placeGraph(staged, platform, { ...opts, l3: farBytes }, stage, spilled));
    const over = next.plan.used - next.plan.arenaSize;
    if (over <= 0) {
      notes.push(`${spilled.size} tensor(s) at home in ${platform.far.memory}, staged through ${next.plan.region} by copy layers`);
      return { graph: inferred, platform, notes, ...next, lowered: staged };
    }
    // The greedy's offsets missed the live set by `over` bytes: aim lower. Three rounds were too few: tiny-llama at
    // --l2 150000 failed where 100000 and 140000 fit (each round moves tensors whose copies fragment L2 anew).
    if (attempt === 8) throw overflowError(next.plan, staged);
    slack += over;
  }
}

/** select -> tile -> place, on a graph that may carry L3 copy layers (`far`: the tensors at home in L3). */
function placeGraph(g: Graph, platform: Platform, opts: CompileOptions, stage: (s: string) => void, far?: Set<string>) {
  const withCopies = far ? { ...platform, kernels: [l3CopyKernel, l3CacheWriteKernel, ...platform.kernels] } : platform;
  stage('select');
  const layers = selectKernels(g, withCopies);
  stage('tile');
  const tiling = opts.untiled ? undefined : planTiling(g, layers, platform, {
    l1: opts.l1, double: (opts.buffering ?? 'double') === 'double', padFilters: !opts.denseFilters,
  });
  const blobs = [...(tiling?.layers ?? [])].map(([id, tl]) => ({ name: tableName(id), bytes: tableBytes(tl) }));
  stage('plan');
  const elsewhere = platform.placeElsewhere?.(g, layers, platform);
  const plan = platform.backend
    ? platform.backend.plan(g, layers, platform, { arenaSize: opts.l2 })
    : planMemory(g, platform, (i) => sharesInput(g, layers, i), {
      arenaSize: opts.l2, blobs, elsewhere: new Set(elsewhere?.offsets.keys()), allowOverflow: true,
      far: far && { roots: far, size: opts.l3 ?? 0 },
    });
  return { lowered: g, layers, tiling, elsewhere, plan };
}

function blobBytes(tiling: TilingPlan | undefined): number {
  return [...(tiling?.layers.values() ?? [])].reduce((sum, tl) => sum + alignUp(tableBytes(tl), 4), 0);
}

/** compileFor, then emit and write the firmware folder. */
export function generateFor(base: Platform, opts: FirmwareOptions): Compiled & Omit<Emitted, 'files'> {
  // Emission is inside the retries too: an accelerator layer's layout change may be refused only when rendered.
  const { compiled, files, manifest, closures } = withRetries(base, opts, (platform) => {
    let o: FirmwareOptions = opts;
    let first: CapacityError | undefined;
    // A smaller arena that cannot hold the model: the image's first overflow is the error to show; any other error
    // (an NPU layer's, which withRetries acts on) as it is.
    const shown = (e: unknown): unknown => (first && e instanceof GenError && e.kind === 'capacity' ? first : e);
    for (let attempt = 0; ; attempt++) {
      let compiled: Compiled;
      try {
        compiled = compileOnce(o, platform);
      } catch (e) {
        throw shown(e);
      }
      opts.onStage?.('emit');
      const input = { graph: compiled.lowered, layers: compiled.layers, plan: compiled.plan, platform: compiled.platform };
      try {
        const emitted = inModel(opts, () =>
          compiled.platform.backend ? compiled.platform.backend.emit(input) : emitFirmware({ ...input, tiling: compiled.tiling, elsewhere: compiled.elsewhere, onStage: opts.onStage }),
        );
        if (o !== opts) compiled.notes.push(`${compiled.plan.region} arena cut to ${o.l2} bytes so that the C image (code, stack, arena) fits ${compiled.plan.region}`);
        return { compiled, ...emitted };
      } catch (e) {
        // The arena fits but the code beside it does not: with a far memory, plan the arena smaller by the excess so
        // that tensors move out (midend/l3.ts). The copy layers add a little code: a few rounds at most.
        const cut = e instanceof CapacityError && e.memory === compiled.plan.region && compiled.platform.far && !compiled.platform.backend && attempt < 3;
        if (!cut) throw shown(e);
        first ??= e.withSite({ file: opts.modelLabel ?? opts.model });
        o = { ...o, l2: Math.floor((cArenaBytes(compiled.plan) - e.excess) / 8) * 8 };
      }
    }
  });
  // A QDQ/QOperator model's firmware works on quantized tensors: their scales and zero points, and the lowered
  // integer model, go beside it.
  const sidecar = inModel(opts, () => quantSidecar(compiled.graph, opts.model));
  if (sidecar) {
    for (const [name, content] of sidecar.files) files.set(name, content);
    compiled.notes.push(...sidecar.notes);
  }
  opts.onStage?.('write');
  writeDirectoryAtomically(opts.out, files, { model: opts.model });
  return { ...compiled, manifest, closures };
}

/** f(), its model errors naming the model as the user knows it (CompileOptions.modelLabel, else the file read). */
function inModel<T>(opts: CompileOptions, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof GenError) throw e.withSite({ file: opts.modelLabel ?? opts.model });
    throw e;
  }
}

