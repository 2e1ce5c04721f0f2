import type { Graph } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import type { KernelDef } from '../kernels/types.js';
import type { Layer } from '../frontend/select.js';
import type { MemoryPlan } from '../midend/plan.js';
import type { Emitted } from '../backend/emit.js';
import type { GenError } from '../errors.js';
import type { ConfigureContext, PlatformOption } from './options.js';

/** A memory of the chip. Figures carry their source in the platform file. */
export interface MemoryLevel {
  /** Region name as the emulator and firmware.json use it (L1, L2, ...). */
  name: string;
  /** Address on the chip (what the C firmware uses on the board). */
  chipBase: number;
  size: number;
  /** Bytes per cycle a transfer moves in or out of this level (for cost models). */
  bytesPerCycle?: number;
}

export type Pass = (g: Graph) => Graph;

/**
 * Cycles per unit of each cost class the emulator charges (emulator/assembly/cost.ts, derivations in
 * docs/timing.md). The generator's cost model uses the same figures to choose tiles; a test keeps them equal.
 */
/** The cost classes in the emulator's numbering (runtime/as/cost.ts: MAC_CONV = 0 .. CODE_RUN = 76). */
export const COST_CLASSES = ['MAC_CONV', 'MAC_DW', 'MAC_GEMM', 'ELEMENT', 'REQUANT', 'COPY_BYTE', 'SOFTMAX_ELEM', 'NORM_ELEM', 'DIV', 'CALL', 'MOVE_ELEM', 'POOL_TAP', 'CONV_UNIT', 'ELEM_OP', 'CONV_ROW', 'GATHER_ROW', 'REQUANT_WIDE', 'GEMM_UNIT', 'POOL_ROW', 'MAC_SCALAR', 'REDUCE_ELEM', 'ROW_WORD', 'MAC_GEMM_SCALAR', 'MAC_GEMM_KDOT', 'GEMM_BLOCK', 'MAC_GEMM_LONE', 'POOL_PAIR', 'MAC_GEMM_COL', 'GEMM_COL', 'CLIP_TAKEN', 'ROW_EDGE', 'ROW_OUT', 'GATHER_QUAD', 'REQUANT_SPLIT', 'LOOKUP', 'TSOFTMAX_ELEM', 'QNORM_ROW', 'QNORM_ELEM', 'CLIP_TEST', 'ELEM_LOAD', 'CONV_BLOCK', 'CONV_OUT', 'SHARE', 'REDUCE_OUT', 'LANE_SIGN', 'ROW_SIGN', 'CONV_ACC', 'TILE', 'MISALIGNED', 'MAC_GEMM_TAIL', 'LAYER', 'GEMM_BT_QUAD', 'SOFTMAX_WIDE', 'SOFTMAX_SUM_WIDE', 'SOFTMAX_RECIP', 'GEMM_SPLIT', 'TRANSFER', 'ROW_EDGE_STRIDED', 'ROW_LOOP', 'NORM_ROW', 'ELEM_RUN', 'NORM_SUM_WIDE', 'CODE_BYTE', 'CODE_LAYER', 'CODE_TILES', 'DW_BAND', 'DW_ROW', 'DW_WORD', 'DW_LONE', 'GATHER_WORD', 'CODE_SHAPE', 'SKELETON', 'CODE_NEXT', 'SOFTMAX_ZDIV', 'NPU_JOB', 'NPU_TILE', 'CODE_RUN'] as const;
export type CostClass = (typeof COST_CLASSES)[number];

export interface CoreCosts {
  MAC_CONV: number;
  MAC_DW: number;
  MAC_GEMM: number;
  ELEMENT: number;
  REQUANT: number;
  COPY_BYTE: number;
  SOFTMAX_ELEM: number;
  NORM_ELEM: number;
  DIV: number;
  CALL: number;
  MOVE_ELEM: number;
  POOL_TAP: number;
  CONV_UNIT: number;
  ELEM_OP: number;
  CONV_ROW: number;
  GATHER_ROW: number;
  REQUANT_WIDE: number;
  GEMM_UNIT: number;
  POOL_ROW: number;
  MAC_SCALAR: number;
  REDUCE_ELEM: number;
  ROW_WORD: number;
  MAC_GEMM_SCALAR: number;
  MAC_GEMM_KDOT: number;
  GEMM_BLOCK: number;
  MAC_GEMM_LONE: number;
  POOL_PAIR: number;
  MAC_GEMM_COL: number;
  GEMM_COL: number;
  CLIP_TAKEN: number;
  ROW_EDGE: number;
  ROW_OUT: number;
  GATHER_QUAD: number;
  REQUANT_SPLIT: number;
  LOOKUP: number;
  TSOFTMAX_ELEM: number;
  QNORM_ROW: number;
  QNORM_ELEM: number;
  CLIP_TEST: number;
  ELEM_LOAD: number;
  CONV_BLOCK: number;
  CONV_OUT: number;
  SHARE: number;
  REDUCE_OUT: number;
  LANE_SIGN: number;
  ROW_SIGN: number;
  CONV_ACC: number;
  TILE: number;
  MISALIGNED: number;
  MAC_GEMM_TAIL: number;
  LAYER: number;
  GEMM_BT_QUAD: number;
  SOFTMAX_WIDE: number;
  SOFTMAX_SUM_WIDE: number;
  SOFTMAX_RECIP: number;
  GEMM_SPLIT: number;
  TRANSFER: number;
  ROW_EDGE_STRIDED: number;
  ROW_LOOP: number;
  NORM_ROW: number;
  ELEM_RUN: number;
  NORM_SUM_WIDE: number;
  CODE_BYTE: number;
  CODE_LAYER: number;
  CODE_TILES: number;
  DW_BAND: number;
  DW_ROW: number;
  DW_WORD: number;
  DW_LONE: number;
  GATHER_WORD: number;
  CODE_SHAPE: number;
  SKELETON: number;
  CODE_NEXT: number;
  SOFTMAX_ZDIV: number;
  NPU_JOB: number;
  NPU_TILE: number;
  CODE_RUN: number;
  fork: number;
  barrier: number;
  join: number;
}

/** What tiling needs: the fast memory tiles go to, and the DMA that moves them (HARDWARE.md). */
export interface TilingTarget {
  /** Memory the kernels compute in (L1). */
  memory: string;
  dma: { bytesPerCycle: number; latency: number; maxTransfer: number };
}

export interface FarMemory {
  memory: string;
  /** Caller's cycles to program a copy; each burst of up to `burstBytes` waits `burstLatency`; data at num/den B/cycle. */
  setup: number;
  burstLatency: number;
  burstBytes: number;
  bytesNum: number;
  bytesDen: number;
}

/** Cycles of one blocking copy of `bytes` to or from the far memory (emulator/assembly/l3-dma.ts, the same formula). */
export function farCopyCycles(f: FarMemory, bytes: number): number {
  return f.setup + Math.ceil(bytes / f.burstBytes) * f.burstLatency + Math.ceil((bytes * f.bytesDen) / f.bytesNum);
}

/**
 * Constants a platform keeps in a memory of its own, outside the planner's: the region, each tensor's offset in it,
 * and the C data block that holds them on the board (firmware-templates/<platform>/c/elsewhere-data.c.mustache,
 * rendered with the bytes).
 */
export interface Elsewhere {
  region: string;
  offsets: Map<string, number>;
}

/** A chip as the generator sees it: data, not behaviour (DESIGN.md, platform folder). */
export interface Platform {
  name: string;
  /** Chip id the emulator's configure() takes (emulator/assembly/chips). */
  emulatorId: number;
  clockHz: number;
  /** Cores that run kernels; 1 on a single-core target. */
  cores: number;
  /** Peak int8 MACs one kernel core completes per cycle: the utilisation figure of the profile divides by it. */
  peakMacsPerCoreCycle: number;
  /** How a kernel closure is started: called in place, or forked onto the cluster cores. */
  launch: 'call' | 'cluster-fork';
  memories: MemoryLevel[];
  /** Where every tensor lives while no tiling is planned: a window (arena) of one memory. */
  home: { memory: string; offset: number; size: number };
  /**
   * Byte alignment of every tensor the planner places in the home memory (default 4). A DMA that splits its requests
   * at aligned boundaries moves a misaligned row in more requests (Gemmini: 64).
   */
  tensorAlign?: number;
  /** Lowering passes, in order. */
  passes: Pass[];
  /** Kernels in order of preference: the first that accepts a node runs it. */
  kernels: KernelDef[];
  costs: CoreCosts;
  /**
   * A division's cycles on the kernel cores for a divisor, on cores whose divider takes a time that follows it (the
   * emulator's `divide`, emulator/assembly/cost.ts divisionQ): the tiler's estimate of the divisions whose divisor
   * the firmware computes (an iSoftmax row's sum). Absent: costs.DIV a division.
   */
  divisionCycles?: (divisor: number) => number;
  /**
   * Compiled bytes per byte of a layer's C (comments left out) by the layer's code key (backend/c-image.ts codeKey: the
   * kernel's name, its C path, whether it runs in tiles), `*` for a key not listed: the AS's CODE_BYTE units are the
   * C's bytes times it. Measured by the cost fit on the calibration layers' ELFs; absent, the C's bytes themselves.
   */
  codeRatios?: Readonly<Record<string, number>>;
  /** Present on chips whose kernels compute in a small memory fed by DMA. */
  tiling?: TilingTarget;
  /**
   * Present on chips with a memory beyond the home memory that only a blocking DMA reaches (Siracusa's L3): tensors
   * the home memory cannot hold live there and are staged through it (midend/l3.ts). The cost of a copy of `bytes`
   * mirrors the emulator's model (emulator/assembly/l3-dma.ts).
   */
  far?: FarMemory;
  /** What the generated C may use on the board, and its bare-metal builds (generator/backend/c-image.ts). */
  image?: CImage;
  /**
   * Present on chips whose firmware is not a closure per layer: SpiNNaker2 runs one fixed scheduler/worker firmware
   * driven by a DRAM image, so it plans its memory and writes its output its own way.
   */
  backend?: PlatformBackend;
  /**
   * Constants the platform keeps outside the memories the planner places (Siracusa's N-EUREKA weights in the neural
   * memory, platforms/siracusa/npu/nms.ts): offset by tensor; the plan leaves them out.
   */
  placeElsewhere?(g: Graph, layers: Layer[], platform: Platform): Elsewhere;
  /**
   * A platform whose lowering offloads layers to an accelerator may take one back when its offloaded form fails
   * further down: given the failure, the platform to compile with again (that layer kept on the cores, the reason
   * recorded), or undefined when the failure is not such a layer's (pipeline.ts withRetries).
   */
  retryWithout?(failure: GenError): Platform | undefined;
  /**
   * Runs of consecutive layers (node indices, first and last inclusive) the firmware runs as one step (Tangram: a
   * pipelined segment runs as one engine program at its first layer): the memory plan keeps every tensor they touch
   * live over the whole run, so no two of them share bytes.
   */
  layerGroups?(g: Graph): Array<[number, number]>;
  /**
   * Outputs a platform adds beside the common ones: `data` goes into firmware.json as `platformData`, `files` into
   * the output folder (Tangram: the searched dataflow per layer and segment, and its pictures of the engine grid).
   */
  annotate?(input: { graph: Graph; layers: Layer[]; platform: Platform }): { data: unknown; files: Map<string, string> };
  /**
   * Present on chips whose layers give values of their own (BrainScaleS-2's analog arrays): the outputs the chip gives
   * for many samples at once (`gen forward`), from the reference of the lowered graph, which the firmware equals.
   * `batches`: one array per graph input, the samples along axis 0 (each sample the input's shape with batch 1);
   * returns one array per graph output, likewise, and with `layers` named arrays of each layer of the chip's own
   * (what a training script's backward pass needs). `given`: this platform's own options, as `configure` takes them.
   */
  forward?(model: string, batches: NDArray[], given: Record<string, unknown>, layers: boolean): Promise<{ outputs: NDArray[]; layers: Map<string, NDArray> }>;
  /** The command-line options this platform accepts beyond the common ones (generator/platforms/options.ts). */
  options?: PlatformOption[];
  /** The platform as its options configure it (only its own options are given, already present). */
  configure?(self: Platform, given: Record<string, unknown>, context: ConfigureContext): Platform;
}

export interface PlatformBackend {
  /** Memory of the tensors (the pipeline's plan step). */
  plan(g: Graph, layers: Layer[], platform: Platform, opts: { arenaSize?: number }): MemoryPlan;
  /** Sources, images and manifest (the pipeline's emit step). */
  emit(input: { graph: Graph; layers: Layer[]; plan: MemoryPlan; platform: Platform }): Emitted;
}

/**
 * The C image on the board: the generator checks that code, data, stack, the arena and the tile buffers fit the
 * chip's memories before it writes anything (a model that would not link is rejected at generation). A new platform
 * states its budget here and, for each bare-metal build it offers, where its memories sit in that build's address map.
 */
export interface CImage {
  /** Memory holding the code, static data and stack beside the arena (the home memory). */
  memory: string;
  /** Allowance for what the board's runtime adds (SDK kernel, libc, HAL, startup): bytes of code and data. */
  runtimeBytes: number;
  /** Stack of the core that runs the network outside the cluster (main / the fabric controller). */
  stackBytes: number;
  /** Bytes of the tile memory the SDK keeps for itself (cluster stacks, its own data); tiles get the rest. */
  tileReserved: number;
  /** The SDK's link script gives tile-memory data a load image in `memory`: tile buffers count there too. */
  tileLoadImage: boolean;
  /** Build files for the board's SDK, rendered from firmware-templates/<platform>/c/<name>.mustache. */
  boardFiles: string[];
  /**
   * `make host-model` (the common Makefile): the host build with the accelerator's HAL on a functional C model of it
   * (runtime/c/<platform>/), compiled with -D`define`, `source` beside the network: the engine path checked here.
   */
  hostModel?: { define: string; source: string; what: string };
  /** Bare-metal rv32 build (qemu virt): the address of each memory the C uses, inside qemu's RAM. */
  rv32?: Record<string, number>;
  /** The board's cores have XpulpV2 (CV32E40P): `gen run --on iss` runs the rv32-xpulp build, else plain rv32. */
  xpulp?: boolean;
  /**
   * The rv32-xpulp build runs the board's cluster on the emulator's RV32 cores (`gen run --on iss`): hart 0 the
   * fabric controller, harts 1..cores the cluster cores, with this HAL (a path under c/hal/) in place of the one-hart
   * rv32 HAL and its memcpy DMA; `l1` and `l2` name the memories the cluster reaches (rv32 keys). `devices`: the HALs
   * (paths under c/hal/) of the chip's other devices the emulator models for the ISS (N-EUREKA, the HyperRAM DMA), in
   * place of the functional model and memcpy of the plain rv32 build.
   */
  issCluster?: IssCluster;
  /** Bare-metal images per PE role (SpiNNaker2's ARM build; generator/platforms/spinnaker2/pe-image.ts). */
  pe?: PeImages;
}

/**
 * The chip's cluster as the ISS runs it (`gen run --on iss`): the HAL and device C files of its rv32-xpulp build, its
 * cores and timed memories, and its memory-mapped devices at the chip's addresses, each one of the ISS's device models
 * (emulator/assembly/iss/: event unit, cluster DMA, N-EUREKA, the blocking far-memory DMA). The ISS runner names no chip:
 * it maps what this record says (image.json carries it).
 */
export interface IssCluster {
  hal: string;
  cores: number;
  l1: string;
  l2: string;
  /** C files of the devices' HALs (runtime/c/<platform>/...), built into the ISS image. */
  devices?: string[];
  mmio: IssDevice[];
  /** A memory the cores cannot load from, reached only through the `far-dma` device when its HAL is built. */
  far?: string;
  /** The NPU's neural memory at the rv32 link script's addresses (mapped when the image has weights there). */
  neural?: { mram: number; sram: number; size: number };
}

export interface IssDevice {
  kind: 'event-unit' | 'cluster-dma' | 'npu' | 'far-dma';
  /** For faults and the region table. */
  name: string;
  base: number;
  size: number;
}

/**
 * A chip whose firmware is one image per role of its processing elements, each linked into the start of a PE's own
 * memory: the generator checks each role's code, static data and stack against that window, and the run-time
 * buffers behind it against the rest of the memory.
 */
export interface PeImages {
  /** Bytes at the start of a PE's memory for the image (code, static data, stack); the buffers follow. */
  window: number;
  roles: PeRole[];
}

export interface PeRole {
  name: string;
  /** The ELF the build writes (out/c/<elf>). */
  elf: string;
  /** The firmware's C files whose code the image carries (estimated from their size, as network.c's). */
  sources: string[];
}

export function memoryOf(p: Platform, name: string): MemoryLevel {
  const m = p.memories.find((x) => x.name === name);
  if (!m) throw new Error(`platform ${p.name} has no memory ${name}`);
  return m;
}
