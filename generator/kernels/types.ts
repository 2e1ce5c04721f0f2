import type { DType } from '../ir/dtype.js';
import type { Graph, Node } from '../ir/graph.js';
import type { Platform } from '../platforms/types.js';

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
}

export interface KernelContext {
  node: Node;
  graph: Graph;
  platform: Platform;
}

export interface KernelDef {
  name: string;
  /** Template base name: firmware-templates/common/{c/<t>.c,as/<t>.ts}.mustache. */
  template: string;
  /**
   * Engine that runs it: the cores (the cluster on Siracusa, the core on generic), Siracusa's N-EUREKA, or
   * Siracusa's HyperRAM DMA (an L2<->L3 copy the fabric controller issues and waits for; midend/l3.ts).
   */
  engine: 'cores' | 'npu' | 'l3dma';
  /** null when this kernel runs the node; otherwise the reason it does not (shown when no kernel fits). */
  accepts(node: Node, g: Graph): string | null;
  view(ctx: KernelContext): KernelView;
}
