import { attrInt, attrInts, hasAttr } from '../../ir/attrs.js';
import { isIntType } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';

/*
 * SpiNNaker2's pool layers take ceil_mode 0 only. An integer MaxPool with ceil_mode 1 is the same op with ceil_mode 0
 * and more padding at the end of each axis, enough for the ceil count of windows: a max-pool never takes a padding
 * value (SEMANTICS.md MaxPool), so taps beyond the input, whether padding or beyond it, are skipped alike. The output
 * count is the reference's (reference/ops/window.ts: ceil, less a last window starting in the end padding), so the
 * shapes stay what inference gave them.
 */

function outputCount(inp: number, p0: number, p1: number, k: number, s: number, d: number): number {
  const span = inp + p0 + p1 - ((k - 1) * d + 1);
  let out = Math.ceil(span / s) + 1;
  if ((out - 1) * s >= inp + p0) out--;
  return out;
}

function rewrite(g: Graph, n: Node): Node {
  if (n.op !== 'MaxPool' || attrInt(n, 'ceil_mode', 0) === 0 || !hasAttr(n, 'kernel_shape')) return n;
  const x = tensorOf(g, n.inputs[0]);
  const autoPad = n.attrs.auto_pad?.kind === 'string' ? n.attrs.auto_pad.value : 'NOTSET';
  if (!isIntType(x.dtype) || autoPad !== 'NOTSET' || (x.shape.length !== 3 && x.shape.length !== 4)) return n;
  const rank = x.shape.length - 2;
  const k = attrInts(n, 'kernel_shape');
  const s = attrInts(n, 'strides', new Array<number>(rank).fill(1));
  const d = attrInts(n, 'dilations', new Array<number>(rank).fill(1));
  const pads = [...attrInts(n, 'pads', new Array<number>(2 * rank).fill(0))];
  for (let a = 0; a < rank; a++) {
    const inp = x.shape[2 + a];
    const out = outputCount(inp, pads[a], pads[rank + a], k[a], s[a], d[a]);
    // Floor mode gives `out` windows once the padded extent reaches the last window's end.
    pads[rank + a] = Math.max(pads[rank + a], (out - 1) * s[a] + (k[a] - 1) * d[a] + 1 - inp - pads[a]);
  }
  return { ...n, attrs: { ...n.attrs, ceil_mode: { kind: 'int', value: 0 }, pads: { kind: 'ints', value: pads } } };
}

export function ceilPoolToPads(g: Graph): Graph {
  return { ...g, nodes: g.nodes.map((n) => rewrite(g, n)) };
}
