import type { Graph } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import type { Layer } from '../frontend/select.js';
import type { FarPlan, MemoryPlan } from '../midend/plan.js';
import type { OffsetReport } from '../midend/offsets.js';
import type { Elsewhere, Platform } from '../platforms/types.js';
import { stepRoles } from '../ir/state.js';
import type { TilingPlan } from '../midend/tiling/plan-tiles.js';
import type { TiledLayer } from '../midend/tiling/layer-plan.js';
import { memoryOf } from '../platforms/types.js';

/** out/firmware.json: what the runtime, tests and users read about a generated firmware (docs/firmware-abi.md). */
export interface ManifestTensor {
  name: string;
  symbol: string;
  role: 'input' | 'output' | 'const' | 'activation';
  dtype: string;
  shape: number[];
  region: string;
  offset: number;
  address: number;
  bytes: number;
  /** An input read as a position: `gen run` refuses values outside [0, limit) (validate/positions.ts). */
  limit?: number;
}

export interface Manifest {
  model: string;
  source: string;
  platform: string;
  generator: string;
  clockHz: number;
  cores: number;
  regions: { name: string; address: number; size: number }[];
  memory: ManifestMemory;
  images: { region: string; file: string; offset: number }[];
  inputs: string[];
  outputs: string[];
  tensors: ManifestTensor[];
  /** Peak int8 MACs per cycle of one core of the kernel engine (the profile's utilisation is measured against it). */
  peakMacsPerCoreCycle: number;
  layers: ManifestLayer[];
  tiling?: ManifestTiling;
  /** A decoder step graph (ir/state.ts): which inputs and outputs a generation loop drives. */
  generation?: ManifestGeneration;
  /** What the platform adds of its own (Platform.annotate): Tangram's searched dataflow. */
  platformData?: unknown;
}

export interface ManifestGeneration {
  ids: string;
  position: string;
  logits: string;
  /** The ArgMax output: the next token as the cores choose it. */
  next?: string;
  /** The on-chip loop's control block: [steps, prompt length, tokens...] (ir/state.ts). */
  control?: string;
  /** The loop's sampling block (gen firmware --sampling): [on, PRNG state, weights[256]] (reference/sample.ts). */
  sampling?: string;
  /** Cache inputs and the outputs that update them (one buffer each: fed back without a copy). */
  state: { input: string; output: string }[];
  /** Positions the caches hold. */
  context: number;
  /**
   * The parallel prompt pass (gen quantize --prompt-graph, ir/state.ts PromptRoles): token ids [1, P], logits
   * [1, P, V], their ArgMax, and the caches' outputs after it writes rows 0..P-1 (each in its cache's buffer).
   */
  prompt?: { ids: string; logits: string; next?: string; length: number; state: { input: string; output: string }[] };
}

/** The home memory's static plan and how good it is. */
export interface ManifestMemory {
  region: string;
  arenaOffset: number;
  arenaSize: number;
  /** Bytes of the arena the plan uses: constants + activation peak. */
  used: number;
  /** Constants + the largest live set of activations: no plan can use less. */
  lowerBound: number;
  /** used - lowerBound. */
  distance: number;
  constants: number;
  /** The activations' placement: live-set bound, greedy peak, final peak, solver status and time. */
  /** As the planner reported it, less the solver's wall time: firmware.json is the same on every run. */
  activations: TimelessReport;
  /** Tensors at home in the far memory (Siracusa L3), staged through this one by copy layers. */
  far?: FarPlan;
}

export interface ManifestLayer {
  id: number;
  name: string;
  op: string;
  nodes: string[];
  kernel: string;
  /** 'cores', 'npu' or 'none' (an alias). */
  engine: string;
  /** Why engine selection put the node where it runs (Siracusa with --engines). */
  engineNote?: string;
  macs: number;
  /** Tensors the layer's kernel reads and writes (each once, in argument order); empty for an alias. */
  reads: string[];
  writes: string[];
  /** Present when the layer runs in tiles (Siracusa): what the tiler chose and why. */
  tiling?: ManifestLayerTiling;
  /**
   * The C each core fetches cold for the layer: its code key (backend/c-image.ts codeKey), its bytes without comments,
   * and the compiled bytes the AS charges for them (CODE_BYTE units a core: sourceBytes x the platform's ratio).
   */
  code?: {
    key: string; sourceBytes: number; bytes: number;
    /** A tiled layer: its tile loop's parts before and after the kernel, in 256ths of `bytes` (runtime/as/cluster.ts
     * layer_code: core 0 fetches them, the other cores the kernel's part only at their share). */
    loop?: { before: number; after: number };
  };
}

export interface ManifestLayerTiling {
  /** Output axes split, tile size along each, and tiles along each. */
  axes: number[];
  sizes: number[];
  counts: number[];
  tiles: number;
  /** Distinct tile geometries (kernel instances). */
  instances: number;
  buffering: 'single' | 'double';
  /** L1 bytes of this layer's buffers. */
  l1Bytes: number;
  /** The cost model's estimate for the layer, cycles: total, and its compute and DMA parts. */
  estimate: { cycles: number; compute: number; dmaIn: number; dmaOut: number };
  /** Each operand's buffers in L1: offsets of its slots (two when double-buffered), bytes, and how often it moves. */
  operands: { tensor: string; write: boolean; bytes: number; offsets: number[]; transfers: number }[];
}

/** The tiling summary of the whole model (absent on untiled platforms). */
export interface ManifestTiling {
  memory: string;
  l1Budget: number;
  /** The largest L1 footprint of any layer: what the plan needs (layers run one at a time). */
  l1Peak: number;
}

export function buildManifest(a: {
  graph: Graph;
  layers: Layer[];
  plan: MemoryPlan;
  platform: Platform;
  kernels: { id: number; kernel: string; macs: number; reads: string[]; writes: string[]; coldCode?: ManifestLayer['code'] }[];
  symbolOf: (t: string) => string;
  version: string;
  tiling?: TilingPlan;
  /** N-EUREKA weights placed in the neural memory's SRAM: offset by tensor. */
  /** Constants the platform placed outside the plan (Platform.placeElsewhere). */
  elsewhere?: Elsewhere;
}): Manifest {
  const { graph, plan, platform } = a;
  const roleOf = (name: string): ManifestTensor['role'] => {
    if (graph.inputs.includes(name)) return 'input';
    if (graph.outputs.includes(name)) return 'output';
    return plan.placements.get(name)!.kind === 'const' ? 'const' : 'activation';
  };
  const roles = stepRoles(graph);
  const generation = roles;
  const byId = new Map(a.kernels.map((k) => [k.id, k]));
  return {
    model: graph.name,
    source: graph.source,
    platform: platform.name,
    generator: `firmgen ${a.version}`,
    clockHz: platform.clockHz,
    cores: platform.cores,
    peakMacsPerCoreCycle: platform.peakMacsPerCoreCycle,
    regions: platform.memories.map((m) => ({ name: m.name, address: m.chipBase, size: m.size })),
    memory: {
      region: plan.region, arenaOffset: plan.arenaOffset, arenaSize: plan.arenaSize, used: plan.used, lowerBound: plan.lowerBound,
      distance: plan.used - plan.lowerBound, constants: plan.constants, activations: withoutTime(plan.activations),
      ...(plan.far ? { far: plan.far } : {}),
    },
    images: [
      { region: plan.region, file: `memory/${plan.region.toLowerCase()}.bin`, offset: 0 },
      ...(plan.far && plan.far.constants > 0 ? [{ region: plan.far.region, file: `memory/${plan.far.region.toLowerCase()}.bin`, offset: 0 }] : []),
      ...(a.elsewhere?.offsets.size ? [{ region: a.elsewhere.region, file: `memory/${a.elsewhere.region.toLowerCase()}.bin`, offset: 0 }] : []),
    ],
    inputs: [...graph.inputs],
    outputs: [...graph.outputs],
    tensors: [...plan.placements].map(([name, p]) => {
      const t = tensorOf(graph, name);
      return {
        name,
        symbol: a.symbolOf(name),
        role: roleOf(name),
        dtype: t.dtype,
        shape: [...t.shape],
        region: p.region,
        offset: p.offset,
        address: memoryOf(platform, p.region).chipBase + p.offset,
        bytes: p.bytes,
        ...(t.limit !== undefined && graph.inputs.includes(name) ? { limit: t.limit } : {}),
      };
    }).concat([...(a.elsewhere?.offsets ?? [])].map(([name, offset]) => {
      const t = tensorOf(graph, name);
      const region = a.elsewhere!.region;
      return {
        name, symbol: a.symbolOf(name), role: 'const' as const, dtype: t.dtype, shape: [...t.shape], region,
        offset, address: memoryOf(platform, region).chipBase + offset, bytes: t.shape.reduce((x, y) => x * y, 1),
      };
    })),
    layers: a.layers.map((l) => ({
      id: l.id,
      name: l.node.name,
      op: l.node.op,
      nodes: l.node.fusedFrom ?? [l.node.name],
      kernel: l.kernel === 'alias' ? 'alias' : l.kernel.name,
      engine: l.kernel === 'alias' ? 'none' : l.kernel.engine,
      ...(l.node.engineNote ? { engineNote: l.node.engineNote } : {}),
      macs: byId.get(l.id)?.macs ?? 0,
      reads: byId.get(l.id)?.reads ?? [],
      writes: byId.get(l.id)?.writes ?? [],
      ...(a.tiling?.layers.get(l.id) ? { tiling: layerTiling(a.tiling.layers.get(l.id)!) } : {}),
      ...(byId.get(l.id)?.coldCode ? { code: byId.get(l.id)!.coldCode } : {}),
    })),
    ...(generation ? { generation } : {}),
    ...(a.tiling && platform.tiling
      ? { tiling: { memory: platform.tiling.memory, l1Budget: a.tiling.l1Budget, l1Peak: a.tiling.l1Peak } }
      : {}),
  };
}

export function layerTiling(tl: TiledLayer): ManifestLayerTiling {
  return {
    axes: tl.axes,
    sizes: tl.choice.sizes,
    counts: tl.choice.counts,
    tiles: tl.tiles.length,
    instances: tl.instances.length,
    buffering: tl.double ? 'double' : 'single',
    l1Bytes: tl.choice.l1Bytes,
    estimate: {
      cycles: Math.round(tl.choice.cycles), compute: Math.round(tl.choice.compute),
      dmaIn: Math.round(tl.choice.dmaIn), dmaOut: Math.round(tl.choice.dmaOut),
    },
    operands: tl.operands.map((o, k) => ({
      tensor: o.tensor,
      write: o.write,
      bytes: o.bytes,
      offsets: o.slotOffsets,
      transfers: tl.tiles.reduce((n, t) => n + [...t.fetch, ...t.store].filter((x) => x.operand === k).length, 0),
    })),
  };
}

/** A plan report without its wall time (times go to the terminal, never into generated files). */
function withoutTime(r: OffsetReport): TimelessReport {
  const { ms: _ms, ...solver } = r.solver;
  return { ...r, solver };
}

type TimelessReport = Omit<OffsetReport, 'solver'> & { solver: Omit<OffsetReport['solver'], 'ms'> };
