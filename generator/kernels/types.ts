import type { DType } from '../ir/dtype.js';
import type { Graph, Node } from '../ir/graph.js';
import type { Platform } from '../platforms/types.js';
import type { TiledLayer } from '../midend/tiling/layer-plan.js';
import type { MemoryPlan } from '../midend/plan.js';

/** A buffer a kernel reads or writes: one field of its closure's argument struct (a free variable). */
export interface BufferArg {
  /** Field name in the argument struct, fixed by the template (x, w, y, ...). */
  field: string;
  tensor: string;
  dtype: DType;
  write: boolean;
}

/** What a kernel's template needs: its buffers and the numbers baked into the code. */
export interface KernelView {
  args: BufferArg[];
  /** Values the template names (dimensions, strides, generated expressions, type names). */
  params: Record<string, unknown>;
  /** Work of the node, for the manifest and profile: multiply-accumulates (0 for data movement). */
  macs: number;
  /**
   * Which of the kernel's C paths the node takes, where one template holds paths whose C compiles to code of quite
   * different sizes per byte (the conv's SIMD loop, its row and plane paths): with the kernel's name, the key of the
   * platform's compiled bytes per byte of C (Platform.codeRatios; backend/emit.ts).
   */
  codePath?: string;
}

export interface KernelContext {
  node: Node;
  graph: Graph;
  platform: Platform;
}

/** A kernel's work besides MACs and outputs (KernelDef.extraWork), in units of its cost classes. */
export interface ExtraWork {
  units: number;
  rows: number;
  bytes: number;
  /** Window rows the unpaired gather copies as one word each (GATHER_WORD). */
  words: number;
  /** A 1x1 conv's paired gather in groups of four channels (GATHER_QUAD). */
  quads: number;
  /** Calls of the conv's 4-channel x 2-pixel register block (CONV_BLOCK). */
  blocks: number;
  /** A SIMD conv unit's channels whose accumulators live in memory (CONV_ACC). */
  accs: number;
  /** MACs the dot loop computes past the filter's taps (its chunks rounded up to whole words), at the MAC's cost. */
  padMacs: number;
  /**
   * The busiest core's share of the tile's work where the kernel deals it otherwise than by rows (busiestShare): the
   * SIMD conv's units, round robin. Absent: rows.
   */
  busiest?: number;
}

export interface KernelDef {
  name: string;
  /** Template base name: firmware-templates/common/{c/<t>.c,as/<t>.ts}.mustache. */
  template: string;
  /**
   * The estimate of a layer's compiled code counts its unrolled loops once per copy (backend/compiled-shape.ts), else
   * its C's bytes. Only for a template with no section gcc finds dead (the elementwise kernel's), or whose only
   * unrolled loop is on a path that runs whole (the max pool's flat 2x2 rows: CNN_Linear1's first pool of 8 steps a
   * row compiled to 758 bytes, its last of one step to 550, from the same C but for the trip count). The copy kernel
   * renders the same template but keeps the C's count: its other charges were measured with that count
   * (docs/timing-journal.md "Only the code that runs").
   */
  liveCode?: boolean;
  /**
   * Engine that runs it: the cores (the cluster on Siracusa, the core on generic), Siracusa's N-EUREKA, Siracusa's
   * HyperRAM DMA (an L2<->L3 copy the fabric controller issues and waits for; midend/l3.ts), or an accelerator the
   * core drives by commands in its own layer code (Gemmini's array).
   */
  engine: 'cores' | 'npu' | 'l3dma' | 'accelerator';
  /**
   * The output may share input 0's buffer (the kernel writes part of it in place: a cache row). Planning shares it
   * when input 0 has no other reader; the code then finds both at one address (and copies first when they differ).
   */
  inPlace?: boolean;
  /** null when this kernel runs the node; otherwise the reason it does not (shown when no kernel fits). */
  accepts(node: Node, g: Graph): string | null;
  view(ctx: KernelContext): KernelView;
  /**
   * An accelerator's kernel: one tile's cycles from the engine's own timing model and the driving core's programming
   * of it (what the tiler weighs against the DMA), instead of the cores' cost table.
   */
  tileCycles?(tile: { node: Node; graph: Graph }, platform: Platform): number;
  /**
   * Work the C kernel does on the cores for a tile of output shape `out` over and above its MACs and outputs (the
   * convolution's SIMD units and im2col gather, kernels/conv.ts gatherWork): the tiler charges it as CONV_UNIT,
   * GATHER_ROW and COPY_BYTE, as the AS firmware does.
   */
  extraWork?(node: Node, g: Graph, out: readonly number[], platform: Platform): ExtraWork;
  /**
   * The busiest core's cycles for the MACs of a tile of output shape `out`, counted by the loops the kernel's C takes
   * (the GEMM's: gemm-tile-cost.ts); where absent the tiler charges every MAC at the kernel's one class.
   */
  tileMacCycles?(node: Node, g: Graph, out: readonly number[], platform: Platform): number;
  /**
   * An accelerator's kernel has no closure body: it renders its whole layer (job set-up and tile loop) from the tile
   * plan. Such a kernel runs in tiles only.
   */
  renderLayer?(layer: AcceleratorLayer): { as: string; c: string };
  /** A HAL module the kernel's code calls beyond the common ones: the C #include line and the AS import line. */
  hal?: { c: string; as: string };
}

/** What an accelerator kernel's layer renderer gets from the emitter. */
export interface AcceleratorLayer {
  id: number;
  /** The layer's function symbol. */
  fn: string;
  tiles: TiledLayer;
  graph: Graph;
  plan: MemoryPlan;
  platform: Platform;
  /** Symbol of the layer's tile table. */
  tableName: string;
  /** Constants the platform placed outside the plan's memories (Platform.placeElsewhere): offset by tensor. */
  elsewhere: Map<string, number>;
}
