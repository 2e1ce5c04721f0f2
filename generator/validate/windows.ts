import { attrInts, hasAttr } from '../ir/attrs.js';
import type { Graph, Node } from '../ir/graph.js';
import { MAX_DIM } from './sizes.js';
import { rejectNode, shown } from './site.js';
import { windowGeometry } from '../reference/ops/window.js';

/*
 * The window geometry of Conv and the pools (SEMANTICS.md: Conv, MaxPool): strides, dilations and kernel sizes are
 * integers >= 1, pads integers >= 0, all at most MAX_DIM (no window larger than the largest tensor any platform
 * holds), so the output size (in + pads - extent) / stride + 1 is a small exact integer. A stride of 0 would make
 * it infinite.
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
  if (hasAttr(node, 'pads')) checkList(node, 'pads', attrInts(node, 'pads'), 0);
}

/**
 * MaxPool's "padding never wins" (SEMANTICS.md) needs every window to see an input element; with the input's
 * inferred shape that is checked exactly (a pad may exceed the window's extent when the stride still lands inside).
 */
export function checkPoolWindows(g: Graph, node: Node): void {
  if (node.op !== 'MaxPool') return;
  const x = g.tensors.get(node.inputs[0] ?? '');
  if (!x) return;
  const w = windowGeometry(node, x.shape, attrInts(node, 'kernel_shape'), hasAttr(node, 'ceil_mode') && attrInts(node, 'ceil_mode')[0] !== 0);
  const axes = [
    { size: w.H, k: w.kh, s: w.sh, d: w.dh, p: w.pt, out: w.Ho },
    { size: w.W, k: w.kw, s: w.sw, d: w.dw, p: w.pl, out: w.Wo },
  ];
  axes.forEach((a, axis) => {
    for (let o = 0; o < a.out; o++) {
      let seen = false;
      for (let j = 0; j < a.k && !seen; j++) {
        const i = o * a.s - a.p + j * a.d;
        seen = i >= 0 && i < a.size;
      }
      if (!seen) throw rejectNode(node, `output ${o} along spatial axis ${axis - 2 + w.rank} has its window entirely in the padding (pads ${attrInts(node, 'pads').join(',')}): there is no input element to take the maximum of`);
    }
  });
}
