import { GenError } from '../../errors.js';
import { attrInt } from '../../ir/attrs.js';
import { bytesOf, type DType } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import type { Platform } from '../types.js';
import { iSoftmaxKernel, itaMaxKernel, itaPartialMaxKernel } from '../../kernels/softmax.js';
import { iLayerNormKernel, iRMSNormKernel } from '../../kernels/norm.js';
import { argMaxKernel } from '../../kernels/argmax.js';
import { attrLog2 } from '../../ir/attrs.js';
import { broadcastStrides } from '../../ir/broadcast.js';
import { tensorOf } from '../../ir/graph.js';
import { rowsOf, shiftWithin } from '../../kernels/words.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { assign } from './gemm-plan.js';
import { align, DMA, LAYER_ROWS, WORKER } from './layout.js';
import { chooseRows } from './row-tiles.js';
import { Words } from './words.js';

/*
 * The row layer (type 3): the integer softmaxes, iRMSNorm and iLayerNorm of SEMANTICS.md over rows of the last axis.
 * Parameters, 48 bytes (the norms: + 4 L per constant, its values per column as int32 from +48, iLayerNorm's
 * biases after its weights, and log2(D) at +40):
 * +0 variant (0 iSoftmax, 1 ITAMax, 2 ITAPartialMax, 3 iRMSNorm, 5 iLayerNorm, 6 ArgMax; 4 is the reduction of
 * reduce.ts), +4 row length L, +8/+12 input and output types (the codes of the elementwise layer), +16 coeffA, +20
 * coeffB, +24 coeffC, +28 log2, +32 n_levels, +36 group_width (i32 each).
 * An iSoftmax bounded by a run-time position (a decoder step, reference/ops/softmax.ts) has 64 bytes of parameters:
 * +40 the position's type code + 1, +44 its DRAM address, +48 the SRAM offset of a 16-byte slot the worker fetches
 * it into before its tiles; a row then spans entries 0..pos (pos clamped into the row, as fg_entries_to does on the
 * core platforms) and the rest of it is written 0. ArgMax writes one value per row: the first index of the largest
 * entry.
 * Tile descriptor, 64 bytes: +0 rows, +4/+8 SRAM offsets of x and y, +16 the input's DMA descriptor, +36 the
 * output's. The firmware computes in 64 bits; the core platforms' kernels (kernels/softmax.ts) check first that
 * every intermediate of this model's ranges fits, so the same refusals apply.
 */
const VARIANTS: Record<string, { id: number; kernel: typeof iSoftmaxKernel }> = {
  iSoftmax: { id: 0, kernel: iSoftmaxKernel },
  ITAMax: { id: 1, kernel: itaMaxKernel },
  ITAPartialMax: { id: 2, kernel: itaPartialMaxKernel },
  iRMSNorm: { id: 3, kernel: iRMSNormKernel },
  iLayerNorm: { id: 5, kernel: iLayerNormKernel },
  ArgMax: { id: 6, kernel: argMaxKernel },
};
const ARGMAX = 6;

/** Inputs of a norm that the parameters carry per column: iRMSNorm's weights, iLayerNorm's weights and biases. */
const PER_COLUMN: Record<number, number[]> = { 3: [1], 5: [1, 2] };

/** A norm's constant input `i` per column: a constant that varies at most along the last axis. */
function columnValues(node: Node, g: Graph, L: number, i: number): Int32Array | string {
  const x = tensorOf(g, node.inputs[0]);
  const w = tensorOf(g, node.inputs[i]);
  if (!w.data) return `the per-column parameter '${w.name}' is not a constant`;
  const s = broadcastStrides(w.shape, x.shape);
  if (s.slice(0, -1).some((v) => v !== 0)) return `the per-column parameter '${w.name}' varies across rows`;
  return Int32Array.from({ length: L }, (_, j) => w.data!.data[j * s[s.length - 1]]);
}
const TYPE_CODES: Partial<Record<DType, number>> = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5 };
const PARAM_BYTES = 48;
/** An iSoftmax with a position: +40 its type code + 1, +44 its DRAM address, +48 the SRAM offset of its slot. */
const POSITION_PARAM_BYTES = 64;
/** The slot a worker fetches the position into (one element, at most 4 bytes; 16 keeps the tile buffers aligned). */
const POSITION_SLOT = 16;
const TILE_BYTES = 64;

export function rowsAccepts(node: Node, g: Graph): string | null {
  const v = VARIANTS[node.op];
  if (!v) return 'not an iSoftmax, ITAMax, ITAPartialMax, iRMSNorm, iLayerNorm or ArgMax';
  const why = v.kernel.accepts(node, g);
  if (why) return why;
  // The position of a bounded iSoftmax is read at run time from data memory: it must be an activation or input.
  if (v.id === 0 && node.inputs[1]) {
    const p = tensorOf(g, node.inputs[1]);
    if (p.data) return `the position '${p.name}' is a constant (SpiNNaker2 keeps constants in the layer configurations)`;
    if (TYPE_CODES[p.dtype] === undefined) return `the position '${p.name}' is ${p.dtype}`;
  }
  for (const i of PER_COLUMN[v.id] ?? []) {
    const w = columnValues(node, g, rowsOf(node, g).L, i);
    if (typeof w === 'string') return w;
  }
  try {
    // The row views only check ranges here and read no platform data (the ArgMax's stream period reads it when it has one).
    v.kernel.view({ node, graph: g, platform: undefined as unknown as Platform });
  } catch (e) {
    if (e instanceof GenError) return e.reason;
    throw e;
  }
  return null;
}

export function encodeRows(node: Node, g: Graph, maxWorkers: number, costs: { softmax: number; norm: number; div: number; tap: number }) {
  const site = { node: node.name, op: node.op };
  const v = VARIANTS[node.op];
  const { x, y, L, rows: total } = rowsOf(node, g);
  const xb = bytesOf(x.dtype);
  const yb = bytesOf(y.dtype);
  const columns = (PER_COLUMN[v.id] ?? []).map((i) => columnValues(node, g, L, i) as Int32Array);
  const norm = columns.length > 0;
  const pos = v.id === 0 && node.inputs[1] ? tensorOf(g, node.inputs[1]) : undefined;
  const paramBytes = pos ? POSITION_PARAM_BYTES : PARAM_BYTES + 4 * L * columns.length;
  // ArgMax writes one value per row.
  const outL = v.id === ARGMAX ? 1 : L;
  // The estimate takes a bounded softmax at its whole row (the position is known only at run time).
  const compute = (r: number): number => v.id === ARGMAX
    ? r * L * costs.tap
    : r * L * (norm ? costs.norm : costs.softmax) + (v.id === 0 ? 2 * r * L : norm ? r * (2 + L) : r) * costs.div;
  const slot = pos ? POSITION_SLOT : 0;
  const best = chooseRows({
    rows: total, paramBytes, tileBytes: TILE_BYTES,
    sram: (r) => slot + 2 * align(r * L * xb, 16) + 2 * align(r * outL * yb, 16),
    inBytes: (r) => r * L * xb,
    outBytes: (r) => r * outL * yb,
    compute,
  }, maxWorkers);
  if (!best) throw new GenError('capacity', `one row of ${L} elements does not fit a PE's SRAM`, site);
  const word = (name: string): number => {
    const a = attrInt(node, name, 0);
    if (a < -(2 ** 31) || a >= 2 ** 31) throw new GenError('unsupported', `${name} = ${a} does not fit 32 bits`, site);
    return a;
  };
  const T = Math.ceil(total / best.rows);
  const assignment = assign(T, best.workers);
  const first = best.base + slot;
  const slots = { x: [0, 1].map((i) => first + i * align(best.rows * L * xb, 16)), y: [0, 0] };
  slots.y = [0, 1].map((i) => slots.x[1] + align(best.rows * L * xb, 16) + i * align(best.rows * outL * yb, 16));
  const encode = (addr: Addresses) => {
    const p = new Words(paramBytes);
    p.u32(0, v.id).u32(4, L).u32(8, TYPE_CODES[x.dtype]!).u32(12, TYPE_CODES[y.dtype]!);
    ['coeffA', 'coeffB', 'coeffC', 'log2', 'n_levels', 'group_width'].forEach((a, i) => p.i32(16 + 4 * i, word(a)));
    // Shifted in 64 bits (rows.ts of the firmware): from 63 on every count gives the sign (kernels/words.ts shiftWithin).
    if (norm) p.u32(40, shiftWithin(attrLog2(node, 'D'), true));
    if (pos) p.u32(40, TYPE_CODES[pos.dtype]! + 1).u32(44, addr.tensor(pos.name)).u32(48, best.base);
    columns.forEach((c, k) => c.forEach((w, j) => p.i32(PARAM_BYTES + 4 * (k * L + j), w)));
    const xAt = addr.tensor(x.name);
    const yAt = addr.tensor(y.name);
    const blocks = assignment.map((ids) => {
      const b = new Words(best.blockBytes);
      b.u32(WORKER.tiles, ids.length);
      ids.forEach((tile, i) => {
        const r0 = tile * best.rows;
        const n = Math.min(best.rows, total - r0);
        const d = WORKER.first + i * TILE_BYTES;
        b.u32(d, n).u32(d + 4, slots.x[i % 2]).u32(d + 8, slots.y[i % 2]);
        [xAt + r0 * L * xb, slots.x[i % 2], n * L * xb, 0, 0].forEach((w, k) => b.u32(d + 16 + 4 * k, w));
        [yAt + r0 * outL * yb, slots.y[i % 2], n * outL * yb, 0, 0].forEach((w, k) => b.u32(d + 16 + DMA.size + 4 * k, w));
      });
      return b.bytes;
    });
    return { params: p.bytes, blocks };
  };
  const enc: LayerEncoding = { type: LAYER_ROWS, workers: best.workers, paramBytes, blockBytes: best.blockBytes, consts: [], encode };
  return { enc, tiles: T, rows: best.rows, estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: slots.y[1] + align(best.rows * outL * yb, 16) };
}
