import { GenError } from '../../errors.js';
import { attrInt, attrInts, hasAttr } from '../../ir/attrs.js';
import { bytesOf, type DType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node } from '../../ir/graph.js';
import { sizeOf } from '../../ir/ndarray.js';
import { reduceKernel } from '../../kernels/reduce.js';
import type { Platform } from '../types.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { assign } from './gemm-plan.js';
import { align, DMA, LAYER_ROWS, SRAM, WORKER, workerBlockSram } from './layout.js';
import { chooseRows } from './row-tiles.js';
import { Words } from './words.js';

/*
 * ReduceSum, ReduceMean and IntegerMean over one contiguous group of axes, as variant 4 of the row layer (rows.ts):
 * x = [O][R][I] with R the reduced values, y = [O][I]. A tile is a run of `cols` of the I columns of one outer index:
 * its input is R rows of `cols` values, R x I apart (one 2-D DMA), its output `cols` values. Parameters (48 bytes):
 * +0 variant 4, +4 R, +8/+12 input and output types, +16 mode (0 sum, 1 mean by a rounding shift, 2 mean by a
 * rounded truncating division), +20 the shift. Tile descriptor as in rows.ts (+0 holds the columns).
 */
const TYPE_CODES: Partial<Record<DType, number>> = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5 };
const PARAM_BYTES = 48;
const TILE_BYTES = 64;

function axesOf(node: Node, g: Graph, rank: number): number[] {
  let axes: number[] = [];
  if (node.inputs[1]) axes = Array.from(tensorOf(g, node.inputs[1]).data?.data ?? []);
  else if (hasAttr(node, 'axes')) axes = attrInts(node, 'axes');
  if (axes.length === 0 && attrInt(node, 'noop_with_empty_axes', 0) === 0) axes = [...Array(rank).keys()];
  return [...new Set(axes.map((a) => (a < 0 ? a + rank : a)))].sort((a, b) => a - b);
}

export function reduceReason(node: Node, g: Graph): string | null {
  const why = reduceKernel.accepts(node, g);
  if (why) return why;
  try {
    reduceKernel.view({ node, graph: g, platform: undefined as unknown as Platform }); // range checks only
  } catch (e) {
    if (e instanceof GenError) return e.reason;
    throw e;
  }
  const axes = axesOf(node, g, tensorOf(g, node.inputs[0]).shape.length);
  if (axes.length === 0) return 'reduces nothing';
  if (axes.some((a, i) => i > 0 && a !== axes[i - 1] + 1)) return 'the reduced axes are not one contiguous group';
  return null;
}

export function encodeReduce(node: Node, g: Graph, maxWorkers: number, costs: { element: number; div: number }) {
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  const axes = axesOf(node, g, x.shape.length);
  const O = sizeOf(x.shape.slice(0, axes[0]));
  const R = sizeOf(axes.map((a) => x.shape[a]));
  const I = sizeOf(x.shape.slice(axes[axes.length - 1] + 1));
  const xb = bytesOf(x.dtype);
  const yb = bytesOf(y.dtype);
  const mean = node.op !== 'ReduceSum';
  const pow2 = (R & (R - 1)) === 0;
  const mode = !mean || R === 1 ? 0 : pow2 ? 1 : 2;
  const best = chooseRows({
    rows: I, paramBytes: PARAM_BYTES, tileBytes: TILE_BYTES,
    sram: (c) => 2 * align(R * c * xb, 16) + 2 * align(c * yb, 16),
    inBytes: (c) => R * c * xb,
    outBytes: (c) => c * yb,
    compute: (c) => R * c * costs.element + (mode === 2 ? c * costs.div : 0),
  }, maxWorkers);
  if (!best) throw new GenError('capacity', `one column of ${R} values does not fit a PE's SRAM`, { node: node.name, op: node.op });
  const perOuter = Math.ceil(I / best.rows);
  const T = O * perOuter;
  const assignment = assign(T, Math.min(best.workers, T));
  // The cost model split I alone; with O outer indices a worker may hold more tiles: place the buffers after them.
  const blockBytes = WORKER.first + Math.max(...assignment.map((a) => a.length)) * TILE_BYTES;
  const base = align(workerBlockSram(PARAM_BYTES) + blockBytes, 16);
  const xSlot = [0, 1].map((i) => base + i * align(R * best.rows * xb, 16));
  const ySlot = [0, 1].map((i) => xSlot[1] + align(R * best.rows * xb, 16) + i * align(best.rows * yb, 16));
  const encode = (addr: Addresses) => {
    const p = new Words(PARAM_BYTES);
    p.u32(0, 4).u32(4, R).u32(8, TYPE_CODES[x.dtype]!).u32(12, TYPE_CODES[y.dtype]!).u32(16, mode).u32(20, mode === 1 ? Math.log2(R) : 0);
    const xAt = addr.tensor(x.name);
    const yAt = addr.tensor(y.name);
    const blocks = assignment.map((ids) => {
      const b = new Words(blockBytes);
      b.u32(WORKER.tiles, ids.length);
      ids.forEach((t, i) => {
        const o = Math.floor(t / perOuter);
        const c0 = (t % perOuter) * best.rows;
        const n = Math.min(best.rows, I - c0);
        const d = WORKER.first + i * TILE_BYTES;
        const row = n * xb;
        const rows2d = R > 1 && n < I;
        b.u32(d, n).u32(d + 4, xSlot[i % 2]).u32(d + 8, ySlot[i % 2]);
        [xAt + (o * R * I + c0) * xb, xSlot[i % 2], R * row, rows2d ? row : 0, rows2d ? I * xb : 0].forEach((w, k) => b.u32(d + 16 + 4 * k, w));
        [yAt + (o * I + c0) * yb, ySlot[i % 2], n * yb, 0, 0].forEach((w, k) => b.u32(d + 16 + DMA.size + 4 * k, w));
      });
      return b.bytes;
    });
    return { params: p.bytes, blocks };
  };
  if (ySlot[1] + align(best.rows * yb, 16) > SRAM.bytes) {
    throw new GenError('capacity', `${T} tiles of this reduction leave too little SRAM for their buffers`, { node: node.name, op: node.op });
  }
  const enc: LayerEncoding = { type: LAYER_ROWS, workers: assignment.length, paramBytes: PARAM_BYTES, blockBytes, consts: [], encode };
  return { enc, tiles: T, rows: best.rows, estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: ySlot[1] + align(best.rows * yb, 16) };
}
