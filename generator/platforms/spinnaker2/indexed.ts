import { GenError, quoted } from '../../errors.js';
import { attrInt } from '../../ir/attrs.js';
import { bytesOf, type DType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node } from '../../ir/graph.js';
import { sizeOf } from '../../ir/ndarray.js';
import { cacheWriteKernel } from '../../kernels/cache.js';
import { gatherKernel } from '../../kernels/gather.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { constBytes } from './elementwise.js';
import { assign } from './gemm-plan.js';
import { align, DMA, LAYER_INDEXED, SRAM, WORKER, workerBlockSram } from './layout.js';
import { dmaCycles, layerOverhead, S2 } from './timing.js';
import { Words } from './words.js';

/*
 * The indexed layer (type 6): copies whose place is known only at run time, read by the worker from data memory.
 *   variant 0, Gather with run-time indices (kernels/gather.ts): y[o, j, :] = x[o, idx[j], :], a negative index
 *     counting from the end, an index outside the axis clamped into it (as the core platforms' kernel does; the
 *     reference refuses it). x = [O][dim][row], y = [O][n][row]. Mode 0 fetches x's block of one outer index (the
 *     table) into SRAM and copies rows on the core; mode 1 DMAs each indexed row straight into the output staging
 *     (a large table, few indices: an embedding lookup).
 *   variant 1, CacheWrite (kernels/cache.ts): the value's n rows go to rows pos.. of the cache ([O][R][row]) along
 *     the axis, pos clamped to [0, R - n]. In place (the output shares the cache's buffer, frontend/select.ts
 *     sharesInput): the value's rows of a tile's outer indices are one 2-D write-back; otherwise the tile's cache
 *     block is fetched, the rows written into it on the core, and the block written back.
 * Parameters (32 bytes): +0 variant, +4 type code of the indices / position, +8 Gather: dim, CacheWrite: the highest
 * position R - n, +12 bytes of one row, +16 Gather: mode, CacheWrite: 1 in place, 0 a copy, +20 R, +24 n (CacheWrite).
 * Tile descriptor (96 bytes): +0 count (Gather: indices, CacheWrite: outer indices), +4 SRAM offset of the indices or
 * the position, +8 of the output staging (CacheWrite in place: the value rows; a copy: the cache block), +12 of the
 * source (Gather mode 0: the table; CacheWrite copy: the value rows), +16 DRAM address of x's block (Gather mode 1),
 * +20 DRAM address of the output, +24 input transfers n (1..3), +28/+48/+68 their DMA descriptors, the indices first.
 */
const TYPE_CODES: Partial<Record<DType, number>> = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5 };
const PARAM_BYTES = 32;
const TILE_BYTES = 96;
const GATHER = 0;
const CACHE_WRITE = 1;

type Site = { node: string; op: string };

/** Where a source's bytes are: a tensor of data memory, or a constant of the layer (its blob index). */
type Source = { tensor: string } | { blob: number };

function normAxis(node: Node, rank: number, fallback?: number): number {
  const a = attrInt(node, 'axis', fallback);
  return a < 0 ? a + rank : a;
}

export function indexedReason(node: Node, g: Graph): string | null {
  const kernel = node.op === 'Gather' ? gatherKernel : node.op === 'CacheWrite' ? cacheWriteKernel : undefined;
  if (!kernel) return 'not a Gather or CacheWrite';
  const why = kernel.accepts(node, g);
  if (why) return why;
  // The index / position is read at run time from data memory, so it cannot be a constant (a Gather with constant
  // indices is a copy: the movement layer's).
  const index = tensorOf(g, node.inputs[node.op === 'Gather' ? 1 : 2]);
  if (index.data) return `${quoted(index.name)} is a constant`;
  if (TYPE_CODES[index.dtype] === undefined) return `${quoted(index.name)} is ${index.dtype}`;
  if (node.op === 'CacheWrite') {
    const [c, v] = [0, 1].map((i) => tensorOf(g, node.inputs[i]));
    // Rows move as bytes: a value of another type of the same width is stored as its low bytes, as the core
    // platforms' kernel stores it (exact wherever the value lies in the cache's range, as the reference needs).
    if (bytesOf(c.dtype) !== bytesOf(v.dtype)) return `the value ${quoted(v.name)} is ${v.dtype}, the cache ${c.dtype} (another width)`;
    if (v.data) return `the value ${quoted(v.name)} is a constant`;
  }
  return null;
}

/** Bytes a worker may spend on its tile buffers: the SRAM after the parameters and an 8 KiB allowance for its block. */
const BUDGET = SRAM.bytes - workerBlockSram(PARAM_BYTES) - 8192;

interface Tile { count: number; words: (addr: Addresses, slot: number, tableSlot: number) => number[] }

export function encodeIndexed(node: Node, g: Graph, maxWorkers: number, costs: { element: number; copyByte: number }) {
  const site = { node: node.name, op: node.op };
  const consts: Uint8Array[] = [];
  const sourceOf = (name: string): Source => {
    const t = tensorOf(g, name);
    if (!t.data) return { tensor: name };
    consts.push(constBytes(t));
    return { blob: consts.length - 1 };
  };
  const at = (addr: Addresses, s: Source): number => ('tensor' in s ? addr.tensor(s.tensor) : addr.constant(s.blob));
  const c: Context = { node, g, maxWorkers, costs, site, sourceOf, at, consts };
  return node.op === 'Gather' ? encodeGather(c) : encodeCacheWrite(c);
}

/** What both variants' encoders share: the node, the cost model's inputs, and the layer's constants as they grow. */
interface Context {
  node: Node;
  g: Graph;
  maxWorkers: number;
  costs: { element: number; copyByte: number };
  site: Site;
  /** A source's place: a tensor of data memory, or (a constant) a blob added to `consts`. */
  sourceOf: (name: string) => Source;
  at: (addr: Addresses, s: Source) => number;
  consts: Uint8Array[];
}

/** A DMA descriptor's five words (1-D). */
const dma = (dram: number, sram: number, bytes: number): number[] => [dram, sram, bytes, 0, 0];

function encodeGather({ node, g, maxWorkers, costs, site, sourceOf, at, consts }: Context) {
  const x = tensorOf(g, node.inputs[0]);
  const idx = tensorOf(g, node.inputs[1]);
  const y = tensorOf(g, node.outputs[0]);
  const axis = normAxis(node, x.shape.length, 0);
  const O = sizeOf(x.shape.slice(0, axis));
  const dim = x.shape[axis];
  const n = sizeOf(idx.shape);
  const rb = sizeOf(x.shape.slice(axis + 1)) * bytesOf(x.dtype);
  const ib = bytesOf(idx.dtype);
  const table = dim * rb;
  // Mode 0 (table in SRAM, two slots) where it fits a quarter of the budget and costs less than a DMA per row: the
  // table's fetch once per outer index against each row's own transfer (dmaCycles: latency and bytes, pe-dma.ts),
  // the core's copy at COPY_BYTE a byte either way; every row's index read, clamp and address one ELEMENT
  // (ASSUMPTION, as the core platforms' gather charges a row).
  const tableCost = O * dmaCycles(table, 1) + O * n * (rb * costs.copyByte + costs.element);
  const rowCost = O * n * (dmaCycles(rb, 1) + costs.element);
  const mode = 2 * align(table, 16) <= BUDGET / 4 && tableCost <= rowCost ? 0 : 1;
  const tables = mode === 0 ? 2 * align(table, 16) : 0;
  // Indices per tile: two slots of indices and gathered rows in what the tables leave.
  let cnt = Math.min(n, Math.floor((BUDGET - tables) / 2 / (rb + ib + 32)));
  cnt = Math.min(cnt, Math.floor((SRAM.bytes - 1) / rb)); // one write-back moves at most 131071 bytes (pe-dma.ts)
  if (cnt < 1) throw new GenError('capacity', `a gathered row of ${rb} bytes does not fit a PE's SRAM`, site);
  const perOuter = Math.ceil(n / cnt);
  const tiles = Array.from({ length: O * perOuter }, (_, t) => {
    const o = Math.floor(t / perOuter);
    const j0 = (t % perOuter) * cnt;
    return { o, j0, count: Math.min(cnt, n - j0) };
  });
  const xs = sourceOf(x.name);
  const tileCost = (count: number, w: number): number => count * (mode === 0 ? rb * costs.copyByte + costs.element : dmaCycles(rb, w) + costs.element)
    + dmaCycles(count * ib, w) + dmaCycles(count * rb, w);
  const best = chooseWorkers(tiles.map((t) => t.count), maxWorkers, tileCost, mode === 0 ? dmaCycles(table, 1) : 0);
  const assignment = assign(tiles.length, best.w);
  const blockBytes = WORKER.first + Math.max(...assignment.map((a) => a.length)) * TILE_BYTES;
  const base = align(workerBlockSram(PARAM_BYTES) + blockBytes, 16);
  const idxSlot = align(cnt * ib, 16);
  const outSlot = align(cnt * rb, 16);
  const slot = (k: number) => ({ idx: base + k * idxSlot, out: base + 2 * idxSlot + k * outSlot, table: base + 2 * idxSlot + 2 * outSlot + k * align(table, 16) });
  const end = base + 2 * idxSlot + 2 * outSlot + tables;
  if (end > SRAM.bytes) throw new GenError('capacity', `${tiles.length} gather tiles leave too little SRAM for their buffers`, site);
  const encode = (addr: Addresses) => {
    const p = new Words(PARAM_BYTES);
    p.u32(0, GATHER).u32(4, TYPE_CODES[idx.dtype]!).u32(8, dim).u32(12, rb).u32(16, mode);
    const xAt = at(addr, xs);
    const blocks = assignment.map((ids) => {
      const b = new Words(blockBytes);
      b.u32(WORKER.tiles, ids.length);
      let tableSlot = -1;
      let lastO = -1;
      ids.forEach((id, i) => {
        const t = tiles[id];
        const s = slot(i % 2);
        const d = WORKER.first + i * TILE_BYTES;
        const xo = xAt + t.o * table;
        const transfers = [dma(addr.tensor(idx.name) + t.j0 * ib, s.idx, t.count * ib)];
        // The table alternates between its two slots when the outer index changes: the next tile's fetch runs while
        // this tile still reads its own table.
        if (mode === 0 && t.o !== lastO) {
          tableSlot = (tableSlot + 1) % 2;
          transfers.push(dma(xo, slot(tableSlot).table, table));
        }
        lastO = t.o;
        b.u32(d, t.count).u32(d + 4, s.idx).u32(d + 8, s.out).u32(d + 12, mode === 0 ? slot(tableSlot).table : 0);
        b.u32(d + 16, xo).u32(d + 20, addr.tensor(y.name) + (t.o * n + t.j0) * rb).u32(d + 24, transfers.length);
        transfers.forEach((words, k) => words.forEach((w, j) => b.u32(d + 28 + k * DMA.size + 4 * j, w)));
      });
      return b.bytes;
    });
    return { params: p.bytes, blocks };
  };
  const enc: LayerEncoding = { type: LAYER_INDEXED, workers: best.w, paramBytes: PARAM_BYTES, blockBytes, consts, encode };
  return { enc, tiles: tiles.length, rows: cnt, estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: end };
}

function encodeCacheWrite({ node, g, maxWorkers, costs, site, sourceOf, at, consts }: Context) {
  const c = tensorOf(g, node.inputs[0]);
  const v = tensorOf(g, node.inputs[1]);
  const pos = tensorOf(g, node.inputs[2]);
  const y = tensorOf(g, node.outputs[0]);
  const axis = normAxis(node, c.shape.length);
  const O = sizeOf(c.shape.slice(0, axis));
  const R = c.shape[axis];
  const n = v.shape[axis];
  const rb = sizeOf(c.shape.slice(axis + 1)) * bytesOf(c.dtype);
  const pb = bytesOf(pos.dtype);
  const cs = sourceOf(c.name);
  // In place when the output is the cache's buffer (the planner shared it); a constant cache never is.
  const inPlace = (addr: Addresses): boolean => 'tensor' in cs && addr.tensor(c.name) === addr.tensor(y.name);
  // Outer indices per tile: two slots of the value rows (and, for a copy, the cache blocks). The estimate and the
  // SRAM check take the copy's larger buffers: whether the planner shared the buffer is known only at encoding.
  const perOuter = n * rb + R * rb;
  let cnt = Math.min(O, Math.floor((BUDGET - 32) / 2 / perOuter), Math.floor((SRAM.bytes - 1) / (R * rb)));
  if (cnt < 1) throw new GenError('capacity', `a cache block of ${R * rb} bytes does not fit a PE's SRAM`, site);
  const tiles = Array.from({ length: Math.ceil(O / cnt) }, (_, t) => ({ o0: t * cnt, count: Math.min(cnt, O - t * cnt) }));
  // Per tile: the position and the value rows in, the block out, and (a copy) the cache block in and the rows copied
  // on the core at COPY_BYTE; the position's read and clamp one ELEMENT (ASSUMPTION).
  const tileCost = (count: number, w: number): number => dmaCycles(pb, w) + dmaCycles(count * n * rb, w) + dmaCycles(count * R * rb, w) * 2
    + count * n * rb * costs.copyByte + costs.element;
  const best = chooseWorkers(tiles.map((t) => t.count), maxWorkers, tileCost, 0);
  const assignment = assign(tiles.length, best.w);
  const blockBytes = WORKER.first + Math.max(...assignment.map((a) => a.length)) * TILE_BYTES;
  const base = align(workerBlockSram(PARAM_BYTES) + blockBytes, 16);
  const valueSlot = align(cnt * n * rb, 16);
  const cacheSlot = align(cnt * R * rb, 16);
  const slot = (k: number) => ({ pos: base + 16 * k, value: base + 32 + k * valueSlot, cache: base + 32 + 2 * valueSlot + k * cacheSlot });
  const end = base + 32 + 2 * valueSlot + 2 * cacheSlot;
  if (end > SRAM.bytes) throw new GenError('capacity', `${tiles.length} cache-write tiles leave too little SRAM for their buffers`, site);
  const encode = (addr: Addresses) => {
    const shared = inPlace(addr);
    const p = new Words(PARAM_BYTES);
    p.u32(0, CACHE_WRITE).u32(4, TYPE_CODES[pos.dtype]!).u32(8, R - n).u32(12, rb).u32(16, shared ? 1 : 0).u32(20, R).u32(24, n);
    const cAt = at(addr, cs);
    const blocks = assignment.map((ids) => {
      const b = new Words(blockBytes);
      b.u32(WORKER.tiles, ids.length);
      ids.forEach((id, i) => {
        const t = tiles[id];
        const s = slot(i % 2);
        const d = WORKER.first + i * TILE_BYTES;
        const transfers = [dma(addr.tensor(pos.name), s.pos, pb), dma(addr.tensor(v.name) + t.o0 * n * rb, s.value, t.count * n * rb)];
        if (!shared) transfers.push(dma(cAt + t.o0 * R * rb, s.cache, t.count * R * rb));
        b.u32(d, t.count).u32(d + 4, s.pos).u32(d + 8, shared ? s.value : s.cache).u32(d + 12, s.value);
        b.u32(d + 16, 0).u32(d + 20, addr.tensor(y.name) + t.o0 * R * rb).u32(d + 24, transfers.length);
        transfers.forEach((words, k) => words.forEach((w, j) => b.u32(d + 28 + k * DMA.size + 4 * j, w)));
      });
      return b.bytes;
    });
    return { params: p.bytes, blocks };
  };
  const enc: LayerEncoding = { type: LAYER_INDEXED, workers: best.w, paramBytes: PARAM_BYTES, blockBytes, consts, encode };
  return { enc, tiles: tiles.length, rows: cnt, estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: end };
}

/**
 * Workers from the cost model, as the movement layer picks them (movement.ts): the layer's overheads plus the
 * busiest worker's tiles at their average cost, plus `once` per worker (a table fetched by each).
 */
function chooseWorkers(counts: number[], maxWorkers: number, tileCost: (count: number, w: number) => number, once: number): { w: number; cycles: number } {
  let best = { w: 1, cycles: Infinity };
  for (let w = 1; w <= Math.min(maxWorkers, counts.length); w++) {
    const t = Math.ceil(counts.length / w);
    const o = layerOverhead(w, PARAM_BYTES, WORKER.first + t * TILE_BYTES);
    const avg = counts.reduce((s, c) => s + tileCost(c, w), 0) / counts.length;
    const cycles = o.before + S2.nocSend * (w - 1) + o.perWorker + o.after + once + t * avg;
    if (cycles < best.cycles) best = { w, cycles };
  }
  return best;
}
