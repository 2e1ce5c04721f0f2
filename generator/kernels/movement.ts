import { GenError } from '../errors.js';
import { attrInt, attrInts } from '../ir/attrs.js';
import { isIntType } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { sizeOf, stridesOf } from '../ir/ndarray.js';
import { padSpecOf, sliceAxesOf } from '../reference/ops/data-movement.js';
import { valueRange } from './common.js';
import { inWords } from './copy-words.js';
import { IDENTITY, renderPart, type PartSpec } from './parts.js';
import type { KernelDef } from './types.js';

/*
 * Data movement as strided copies: every op here becomes parts of the elementwise template, each a loop nest over
 * a disjoint box of the output, so cores never need to wait for each other inside the kernel.
 */
export const MOVEMENT_OPS = new Set(['Transpose', 'Slice', 'Concat', 'Gather', 'Pad', 'Identity', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze']);

function constInput(g: Graph, n: Node, i: number): number[] | undefined {
  const name = n.inputs[i];
  if (!name) return undefined;
  const t = tensorOf(g, name);
  if (!t.data) throw new GenError('unsupported', `input ${i} ('${name}') must be a constant`, { node: n.name, op: n.op });
  return Array.from(t.data.data);
}

function copyOf(src: Tensor, field: string, dims: number[], srcStrides: number[], srcOff: number, dstStrides: number[], dstOff: number, y: Tensor): PartSpec {
  return {
    dims,
    leaves: [{ field, dtype: src.dtype, strides: srcStrides, offset: srcOff, range: valueRange(src) }],
    out: { field: 'y', dtype: y.dtype, strides: dstStrides, offset: dstOff },
    expr: IDENTITY,
  };
}

function normalizeAxis(axis: number, rank: number): number {
  return axis < 0 ? axis + rank : axis;
}

export function partsOf(n: Node, g: Graph): PartSpec[] {
  const site = { node: n.name, op: n.op };
  const y = tensorOf(g, n.outputs[0]);
  const yStr = stridesOf(y.shape);
  const x = tensorOf(g, n.inputs[0]);
  const xStr = stridesOf(x.shape);
  switch (n.op) {
    case 'Transpose': {
      const perm = attrInts(n, 'perm', x.shape.map((_, i) => x.shape.length - 1 - i));
      return [copyOf(x, 'in0', y.shape, perm.map((p) => xStr[p]), 0, yStr, 0, y)];
    }
    case 'Slice': {
      // Starts, steps and counts as the reference works them out (one function for both: see sliceAxesOf).
      const spec = sliceAxesOf(n, x.shape, (i) => constInput(g, n, i));
      const off = spec.reduce((o, s, a) => o + s.start * xStr[a], 0);
      return [copyOf(x, 'in0', y.shape, spec.map((s, a) => xStr[a] * s.step), off, yStr, 0, y)];
    }
    case 'Concat': {
      const axis = normalizeAxis(attrInt(n, 'axis'), y.shape.length);
      let at = 0;
      return n.inputs.map((name, k) => {
        const t = tensorOf(g, name);
        const part = copyOf(t, `in${k}`, t.shape, stridesOf(t.shape), 0, yStr, at * yStr[axis], y);
        at += t.shape[axis];
        return part;
      });
    }
    case 'Gather': {
      const axis = normalizeAxis(attrInt(n, 'axis', 0), x.shape.length);
      const idx = constInput(g, n, 1) ?? [];
      const outer = sizeOf(x.shape.slice(0, axis));
      const inner = sizeOf(x.shape.slice(axis + 1));
      return idx.map((i0, j) => {
        const i = i0 < 0 ? i0 + x.shape[axis] : i0;
        if (i < 0 || i >= x.shape[axis]) throw new GenError('model', `index ${i0} out of range`, site);
        return copyOf(x, 'in0', [outer, inner], [x.shape[axis] * inner, 1], i * inner, [idx.length * inner, 1], j * inner, y);
      });
    }
    case 'Pad': return padParts(n, g, x, y);
    default:
      // Reshape-like ops that could not share their input's buffer: a flat copy.
      return [copyOf(x, 'in0', [sizeOf(x.shape)], [1], 0, [1], 0, y)];
  }
}

/** Pad: the interior is a copy; the border is split into disjoint slabs, two per padded axis, filled with the value. */
function padParts(n: Node, g: Graph, x: Tensor, y: Tensor): PartSpec[] {
  const site = { node: n.name, op: n.op };
  const rank = x.shape.length;
  const mode = n.attrs.mode?.kind === 'string' ? n.attrs.mode.value : 'constant';
  if (mode !== 'constant') throw new GenError('unsupported', `pad mode '${mode}'`, site);
  // Pads, axes and value as the reference reads them (padSpecOf: the inputs before the attributes).
  const spec = padSpecOf(n, x.shape, (i) => constInput(g, n, i));
  if ([...spec.begin, ...spec.end].some((p) => p < 0)) throw new GenError('unsupported', 'negative pads', site);
  const { value, begin: before } = spec;
  const yStr = stridesOf(y.shape);
  const parts: PartSpec[] = [copyOf(x, 'in0', x.shape, stridesOf(x.shape), 0, yStr, before.reduce((s, b, i) => s + b * yStr[i], 0), y)];
  for (let d = 0; d < rank; d++) {
    // Axes before d: interior only; axis d: the pad; axes after d: everything.
    const lo = y.shape.map((_, i) => (i < d ? before[i] : 0));
    const dims = y.shape.map((s, i) => (i < d ? x.shape[i] : s));
    const slabs: [number, number][] = [[0, before[d]], [before[d] + x.shape[d], y.shape[d] - before[d] - x.shape[d]]];
    for (const [start, len] of slabs) {
      if (len <= 0) continue;
      const box = dims.map((s, i) => (i === d ? len : s));
      const at = [...lo];
      at[d] = start;
      parts.push({
        dims: box,
        leaves: [],
        out: { field: 'y', dtype: y.dtype, strides: yStr, offset: at.reduce((s, v, i) => s + v * yStr[i], 0) },
        expr: { k: 'const', v: value },
      });
    }
  }
  return parts;
}

export const copyKernel: KernelDef = {
  name: 'copy',
  template: 'elementwise',
  engine: 'cores',
  accepts(node, g) {
    if (!MOVEMENT_OPS.has(node.op)) return 'not a data-movement op';
    if (node.op === 'Gather' && !tensorOf(g, node.inputs[1]).data) return 'indices known at run time (the gather kernel)';
    const bad = [node.inputs[0], node.outputs[0]].map((n) => tensorOf(g, n)).find((t) => !isIntType(t.dtype));
    return bad ? `tensor '${bad.name}' is ${bad.dtype}, not an integer type` : null;
  },
  view({ node, graph, platform }) {
    const site = { node: node.name, op: node.op };
    // Moved in words where every part's runs allow (copy-words.ts): the arguments are then pointers to words.
    const parts = partsOf(node, graph);
    const words = inWords(parts);
    const specs = words?.parts ?? parts;
    const y = tensorOf(graph, node.outputs[0]);
    const sources = node.op === 'Concat' ? node.inputs : [node.inputs[0]];
    return {
      args: [
        ...sources.map((name, k) => ({ field: `in${k}`, tensor: name, dtype: words?.dtype ?? tensorOf(graph, name).dtype, write: false })),
        { field: 'y', tensor: y.name, dtype: words?.dtype ?? y.dtype, write: true },
      ],
      params: { parts: specs.map((p) => renderPart(p, site, { period: Math.ceil(platform.costs.MOVE_ELEM), walk: false })), cost: 'MOVE_ELEM', ops: 0, clampTests: 0, loads: 0 },
      macs: 0,
    };
  },
};
