import { GenError } from '../../errors.js';
import { broadcastStrides } from '../../ir/broadcast.js';
import { bytesOf, type DType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node, type Tensor } from '../../ir/graph.js';
import { stridesOf } from '../../ir/ndarray.js';
import { collapse } from '../../kernels/loops.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { compileExpr, type Code } from './ew-code.js';
import { assign } from './gemm-plan.js';
import { align, DMA, LAYER_ELEMENTWISE, WORKER } from './layout.js';
import { chooseRows } from './row-tiles.js';

/*
 * The elementwise layer (type 2; docs/spinnaker2.md "Elementwise layer"). Parameters: +0 operands n, +4 output
 * type, +8/+12/+16 loop extents d1..d3, +20..+32 output strides s0..s3, +36 code words, +40 instructions executed
 * per element (what the core is charged), +44 per
 * operand (8 x 20 bytes) its type and strides s0..s3 (elements; 0 along broadcast loops), then the code
 * (ew-code.ts). Types: 0 uint8, 1 int8, 2 uint16, 3 int16, 4 uint32, 5 int32. Tile descriptor, 224 bytes: +0 rows
 * of d0, +4 SRAM offset of the output, +8 SRAM offsets of the 8 operands, +40 input transfers n, +44 eight DMA
 * descriptors, +204 the output's. An operand's SRAM buffer holds its elements from the tile's first row on, so
 * element (i, j1, j2, j3) of the tile is at i*s0 + j1*s1 + j2*s2 + j3*s3 from it (s0 = 0: one row for all tiles).
 */
import { Words } from './words.js';

/** Element type codes of the elementwise layer's operands. */
const TYPE_CODES: Partial<Record<DType, number>> = { uint8: 0, bool: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5 };
export const MAX_LEAVES = 8;
/** Stack slots of the firmware's interpreter (as/elementwise.ts, c/elementwise.c). */
const MAX_DEPTH = 16;
const HEADER_BYTES = 44;
const LEAF_BYTES = 20;
const TILE_BYTES = 224;

/** A loop nest of up to 4 loops, the outermost (d0) the one tiles split; strides in elements per operand. */
interface Nest {
  dims: number[];
  leaves: { t: Tensor; strides: number[]; bytes: number }[];
  out: { t: Tensor; strides: number[]; bytes: number };
  /** Elements of one row (everything inside d0) an operand spans: 1 + sum over inner loops of (d - 1) x stride. */
  inner: (strides: number[]) => number;
}

export function elementwiseNest(node: Node, g: Graph): Nest {
  const site = { node: node.name, op: node.op };
  const Y = tensorOf(g, node.outputs[0]);
  const leaves = node.inputs.map((n) => tensorOf(g, n));
  if (leaves.length > MAX_LEAVES) throw new GenError('unsupported', `${leaves.length} operands; the spinnaker2 elementwise layer takes ${MAX_LEAVES}`, site);
  for (const t of [...leaves, Y]) {
    if (TYPE_CODES[t.dtype] === undefined) throw new GenError('unsupported', `'${t.name}' is ${t.dtype}; the spinnaker2 elementwise layer takes 8/16/32-bit integers`, site);
  }
  const c = collapse({ dims: Y.shape, strides: [...leaves.map((t) => broadcastStrides(t.shape, Y.shape)), stridesOf(Y.shape)] });
  if (c.dims.length > 4) throw new GenError('unsupported', `needs ${c.dims.length} nested loops after merging; the spinnaker2 elementwise layer has 4`, site);
  // Padding inside, not outside: the outermost real loop is d0, the one tiles split.
  const pad = 4 - c.dims.length;
  const dims = [...c.dims, ...new Array<number>(pad).fill(1)];
  const strides = c.strides.map((s) => [...s, ...new Array<number>(pad).fill(0)]);
  const inner = (s: number[]): number => 1 + [1, 2, 3].reduce((n, d) => n + (dims[d] - 1) * s[d], 0);
  return {
    dims,
    leaves: leaves.map((t, k) => ({ t, strides: strides[k], bytes: bytesOf(t.dtype) })),
    out: { t: Y, strides: strides[leaves.length], bytes: bytesOf(Y.dtype) },
    inner,
  };
}

/** Bytes one operand needs in SRAM for a tile of `rows` rows: its span (a row-independent operand: one row's). */
function span(nest: Nest, o: { strides: number[]; bytes: number }, rows: number): number {
  return ((o.strides[0] === 0 ? 0 : (rows - 1) * o.strides[0]) + nest.inner(o.strides)) * o.bytes;
}

/**
 * Rows per tile and workers from the cost model (as for GEMM, gemm-plan.ts): per tile the larger of the core's work
 * (one ELEMENT per bytecode instruction per element) and the DMA in and out, plus the layer's overheads.
 */
export function encodeElementwise(node: Node, g: Graph, maxWorkers: number, elementCycles: number): { enc: LayerEncoding; tiles: number; rows: number; estimate: number; perWorker: number[]; sram: number } {
  const nest = elementwiseNest(node, g);
  const code: Code = compileExpr(node.expr!);
  if (code.depth > MAX_DEPTH) throw new GenError('unsupported', `the expression needs a stack of ${code.depth}; the firmware has ${MAX_DEPTH}`, { node: node.name, op: node.op });
  const paramBytes = HEADER_BYTES + LEAF_BYTES * MAX_LEAVES + 4 * code.words.length;
  const d0 = nest.dims[0];
  const perRow = nest.dims[1] * nest.dims[2] * nest.dims[3];
  const operands = [...nest.leaves, nest.out];
  const slotsOf = (o: (typeof operands)[number]): number => (o.strides[0] === 0 && o !== nest.out ? 1 : 2);
  const best = chooseRows({
    rows: d0, paramBytes, tileBytes: TILE_BYTES,
    sram: (rows) => operands.reduce((s, o) => s + slotsOf(o) * align(span(nest, o, rows), 16), 0),
    inBytes: (rows) => nest.leaves.reduce((s, o) => s + (o.strides[0] === 0 ? 0 : span(nest, o, rows)), 0),
    outBytes: (rows) => span(nest, nest.out, rows),
    compute: (rows) => rows * perRow * code.steps * elementCycles,
  }, maxWorkers);
  if (!best) throw new GenError('capacity', `one row of ${perRow} elements does not fit a PE's SRAM`, { node: node.name, op: node.op });
  const { rows, workers: w, blockBytes } = best;
  const T = Math.ceil(d0 / rows);
  const assignment = assign(T, w);
  let at = best.base;
  const slots = operands.map((o) => Array.from({ length: slotsOf(o) }, () => {
    const s = at;
    at += align(span(nest, o, rows), 16);
    return s;
  }));
  const consts = nest.leaves.map((l) => (l.t.data ? constBytes(l.t) : undefined));
  const blobs = consts.filter((c): c is Uint8Array => c !== undefined);
  const blobOf = consts.map((c) => (c ? blobs.indexOf(c) : -1));

  const encode = (addr: Addresses) => {
    const p = new Words(paramBytes);
    p.u32(0, nest.leaves.length).u32(4, TYPE_CODES[nest.out.t.dtype]!).u32(8, nest.dims[1]).u32(12, nest.dims[2]).u32(16, nest.dims[3]);
    nest.out.strides.forEach((s, d) => p.u32(20 + 4 * d, s));
    p.u32(36, code.words.length).u32(40, code.steps);
    nest.leaves.forEach((l, k) => {
      const at = HEADER_BYTES + k * LEAF_BYTES;
      p.u32(at, TYPE_CODES[l.t.dtype]!);
      l.strides.forEach((s, d) => p.u32(at + 4 + 4 * d, s));
    });
    code.words.forEach((word, i) => p.u32(HEADER_BYTES + LEAF_BYTES * MAX_LEAVES + 4 * i, word));
    const base = nest.leaves.map((l, k) => (blobOf[k] >= 0 ? addr.constant(blobOf[k]) : addr.tensor(l.t.name)));
    const yBase = addr.tensor(nest.out.t.name);
    const blocks = assignment.map((ids) => {
      const b = new Words(blockBytes);
      b.u32(WORKER.tiles, ids.length);
      const last: (string | undefined)[] = nest.leaves.map(() => undefined);
      const slot = nest.leaves.map(() => -1);
      ids.forEach((tile, i) => {
        const r0 = tile * rows;
        const n = Math.min(rows, d0 - r0);
        const d = WORKER.first + i * TILE_BYTES;
        const fetches: number[][] = [];
        nest.leaves.forEach((l, k) => {
          const start = l.strides[0] === 0 ? 0 : r0 * l.strides[0];
          const x = [base[k] + start * l.bytes, span(nest, l, n)];
          if (`${x}` !== last[k]) {
            last[k] = `${x}`;
            slot[k] = (slot[k] + 1) % slots[k].length;
            fetches.push([x[0], slots[k][slot[k]], x[1], 0, 0]);
          }
          b.u32(d + 8 + 4 * k, slots[k][slot[k]]);
        });
        const ySram = slots[nest.leaves.length][i % 2];
        b.u32(d, n).u32(d + 4, ySram).u32(d + 40, fetches.length);
        fetches.forEach((f, k) => f.forEach((v, j) => b.u32(d + 44 + k * DMA.size + 4 * j, v)));
        [yBase + r0 * nest.out.strides[0] * nest.out.bytes, ySram, span(nest, nest.out, n), 0, 0].forEach((v, j) => b.u32(d + 204 + 4 * j, v));
      });
      return b.bytes;
    });
    return { params: p.bytes, blocks };
  };
  return {
    enc: { type: LAYER_ELEMENTWISE, workers: w, paramBytes, blockBytes, consts: blobs, encode },
    tiles: T, rows, estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: at,
  };
}

/** A constant operand's values in its element type, little-endian. */
export function constBytes(t: Tensor): Uint8Array {
  const n = bytesOf(t.dtype);
  const out = new Uint8Array(t.data!.data.length * n);
  const view = new DataView(out.buffer);
  t.data!.data.forEach((v, i) => {
    if (n === 1) view.setUint8(i, v & 0xff);
    else if (n === 2) view.setUint16(2 * i, v & 0xffff, true);
    else view.setUint32(4 * i, v >>> 0, true);
  });
  return out;
}
