import { attrInts, hasAttr } from '../ir/attrs.js';
import type { Graph, Node } from '../ir/graph.js';
import { MAX_DIM } from './sizes.js';
import { rejectNode, shown } from './site.js';

/*
 * The window geometry of Conv and the pools (SEMANTICS.md: Conv, MaxPool): strides, dilations and kernel sizes are
 * integers >= 1, pads integers >= 0, all at most MAX_DIM (no window larger than the largest tensor any platform
 * holds), so the output size (in + pads - extent) / stride + 1 is a small exact integer. A stride of 0 would make
 * it infinite. Pools also need every window to touch the input (pad < kernel extent, as ONNX requires): MaxPool's
 * "padding never wins" has nothing to take the maximum of otherwise.
 */

/** Operand index of the weights of each conv-like op (the kernel's spatial size is the weights' shape). */
const WEIGHTS: Record<string, number> = { Conv: 1, ConvInteger: 1, QLinearConv: 3 };
const POOLS = new Set(['MaxPool', 'AveragePool']);

function checkList(node: Node, name: string, values: number[], min: number): void {
  for (const v of values) {
    if (!Number.isInteger(v) || v < min || v > MAX_DIM) {
      throw rejectNode(node, `attribute '${name}' = ${shown(v)}: must be an integer in ${min}..${MAX_DIM}`);
    }
  }
}

function kernelShape(g: Graph, node: Node): number[] | undefined {
  if (hasAttr(node, 'kernel_shape')) return attrInts(node, 'kernel_shape');
  const w = WEIGHTS[node.op] !== undefined ? g.tensors.get(node.inputs[WEIGHTS[node.op]] ?? '') : undefined;
  return w?.data ? w.shape.slice(2) : undefined;
}

export function checkWindow(g: Graph, node: Node): void {
  if (WEIGHTS[node.op] === undefined && !POOLS.has(node.op)) return;
  const kernel = kernelShape(g, node);
  if (kernel) checkList(node, 'kernel_shape', kernel, 1);
  for (const name of ['strides', 'dilations']) if (hasAttr(node, name)) checkList(node, name, attrInts(node, name), 1);
  if (hasAttr(node, 'group')) checkList(node, 'group', attrInts(node, 'group'), 1);
  if (!hasAttr(node, 'pads')) return;
  const pads = attrInts(node, 'pads');
  checkList(node, 'pads', pads, 0);
  if (!POOLS.has(node.op) || !kernel) return;
  const dil = hasAttr(node, 'dilations') ? attrInts(node, 'dilations') : kernel.map(() => 1);
  kernel.forEach((k, i) => {
    const extent = (k - 1) * (dil[i] ?? 1) + 1;
    for (const p of [pads[i], pads[i + kernel.length]]) {
      if (p !== undefined && p >= extent) {
        throw rejectNode(node, `pads ${pads.join(',')}: a pad of ${p} on spatial axis ${i} is not smaller than the window's extent ${extent}, so a window could lie entirely in the padding`);
      }
    }
  });
}
