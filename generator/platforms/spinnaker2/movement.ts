import { GenError, quoted } from '../../errors.js';
import { bytesOf, type DType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node } from '../../ir/graph.js';
import { collapse } from '../../kernels/loops.js';
import { copyKernel, partsOf } from '../../kernels/movement.js';
import type { PartSpec } from '../../kernels/parts.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { assign } from './gemm-plan.js';
import { align, LAYER_MOVE, SRAM, WORKER, workerBlockSram } from './layout.js';
import { dmaCycles, layerOverhead, S2 } from './timing.js';
import { Words } from './words.js';

/*
 * The movement layer (type 5): Transpose, Slice, Concat, Gather, Pad and reshapes that need a copy, as the disjoint
 * output boxes ("parts") of kernels/movement.ts, each a copy from a strided source or a fill with a constant. No
 * parameters; everything is in the tile descriptor (128 bytes): +0 rows of d0, +4/+8/+12 d1..d3, +16 source type
 * (the elementwise codes; 255: a fill), +20 destination type, +24 source strides s0..s3 (signed: a Slice may step
 * backwards), +40 destination strides o0..o3 (elements), +56 the fill value (i32), +60 SRAM offset of the tile's
 * first source element (inside its span), +64 of the staging buffer, +68 input transfers (0 or 1), +72 its DMA
 * descriptor, +92 DRAM address of the tile's first destination element, then its write-back as few 2-D transfers as
 * the destination box allows: +96 bytes of one contiguous run, +100 runs per transfer (its rows), +104 their DRAM
 * stride in bytes, +108/+112 and +116/+120 count and DRAM byte stride of the two loops over transfers. The worker
 * gathers the source into the dense staging buffer (converting the type), then writes it back, waiting for its
 * own transfers every DMA_BATCH so that a PE never has more than two batches in flight (layout.ts).
 */
const TYPE_CODES: Partial<Record<DType, number>> = { uint8: 0, bool: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5 };
const FILL = 255;
const TILE_BYTES = 128;

interface Nest { dims: number[]; src?: number[]; dst: number[]; srcOff: number; dstOff: number }

/** A part's loops, merged, with d0 the outermost real loop (tiles split it) and d3 the innermost. */
function nestOf(p: PartSpec, site: { node: string; op: string }): Nest {
  const leaf = p.leaves[0];
  const c = collapse({ dims: p.dims, strides: leaf ? [leaf.strides, p.out.strides] : [p.out.strides] });
  // A destination strided in the innermost loop (a Pad's column slab) gets a loop of one element inside, so that
  // every write-back run is contiguous: runs of one element, 2-D DMA rows.
  const last = c.strides[c.strides.length - 1];
  if (c.dims.length > 0 && last[last.length - 1] !== 1) {
    c.dims.push(1);
    c.strides.forEach((s, k) => s.push(k === c.strides.length - 1 ? 1 : 0));
  }
  if (c.dims.length > 4) throw new GenError('unsupported', `a copy of ${c.dims.length} loops after merging; the spinnaker2 movement layer has 4`, site);
  const n = Math.max(1, c.dims.length);
  const place = <T>(v: T[], fill: T): T[] => (v.length === 0 ? [fill, fill, fill, fill] : [v[0], ...new Array<T>(4 - n).fill(fill), ...v.slice(1)]);
  const dims = place(c.dims, 1);
  const strides = c.strides.map((s) => place(s, 0));
  const dst = strides[strides.length - 1];
  if (dst[3] !== 1 && dims[3] > 1) throw new GenError('unsupported', 'the innermost loop of a copy writes a strided destination', site);
  return { dims, src: leaf ? strides[0] : undefined, dst, srcOff: leaf?.offset ?? 0, dstOff: p.out.offset };
}

/** Lowest and highest source element a nest's first `rows` rows read, relative to its first element. */
function sourceExtent(n: Nest, rows: number): { lo: number; hi: number } {
  let lo = 0;
  let hi = 0;
  n.src!.forEach((s, d) => {
    const reach = ((d === 0 ? rows : n.dims[d]) - 1) * s;
    lo += Math.min(0, reach);
    hi += Math.max(0, reach);
  });
  return { lo, hi };
}

/**
 * The nest as nests whose single row (d1 x d2 x d3 elements, with its source span) fits `fits`: a row too large is
 * cut along d0 into nests of one row each, and a nest of one row moves its outermost inner loop out to d0, where the
 * tiles split it. The loops keep their strides, so the copy is the same.
 */
function splitRows(n: Nest, fits: (n: Nest) => boolean): Nest[] {
  if (fits(n)) return [n];
  if (n.dims[0] > 1) {
    return Array.from({ length: n.dims[0] }, (_, i) => i).flatMap((i) => splitRows({
      ...n, dims: [1, ...n.dims.slice(1)], srcOff: n.srcOff + i * (n.src?.[0] ?? 0), dstOff: n.dstOff + i * n.dst[0],
    }, fits));
  }
  const p = [1, 2, 3].find((d) => n.dims[d] > 1);
  if (p === undefined) return [n]; // one element: the caller reports it
  const out = (v: number[]): number[] => v.map((x, d) => (d === 0 ? v[p] : d === p ? (d === 3 ? 1 : 0) : x));
  return splitRows({ ...n, dims: n.dims.map((x, d) => (d === 0 ? x * n.dims[p] : d === p ? 1 : x)), src: n.src && out(n.src), dst: out(n.dst) }, fits);
}

/** The write-back of a tile: runs of `run` elements, `rows` per 2-D transfer, transfers in two loops (strides in elements). */
interface WriteBack { run: number; rows: number; rowStride: number; loops: [number, number][] }

/**
 * The tile's destination box (loops rows, d1, d2, d3 over the dense staging order) as the fewest 2-D transfers:
 * loops of one are dropped and loops contiguous with the one inside merge; the innermost contiguous loop is the run,
 * the next one the rows of one transfer, the rest loop over transfers.
 */
function writeBackOf(n: Nest, rows: number): WriteBack {
  const levels: [number, number][] = [];
  for (let d = 3; d >= 0; d--) {
    const count = d === 0 ? rows : n.dims[d];
    if (count === 1) continue;
    const inner = levels[levels.length - 1];
    if (inner && n.dst[d] === inner[0] * inner[1]) inner[0] *= count;
    else levels.push([count, n.dst[d]]);
  }
  const run = levels.length > 0 && levels[0][1] === 1 ? (levels.shift() as [number, number])[0] : 1;
  const [rowsPer, rowStride] = levels.shift() ?? [1, 0];
  const loops: [number, number][] = [levels[0] ?? [1, 0], levels[1] ?? [1, 0]];
  return { run, rows: rowsPer, rowStride, loops };
}

export function movementReason(node: Node, g: Graph): string | null {
  const why = copyKernel.accepts(node, g);
  if (why) return why;
  // Data memory holds only what changes at run time (backend.ts plan): a constant has no bytes there to copy.
  const constant = (node.op === 'Concat' ? node.inputs : [node.inputs[0]]).find((t) => t && tensorOf(g, t).data !== undefined);
  if (constant) return `it copies the constant ${quoted(constant)}, and SpiNNaker2 keeps constants in the layer configurations, not in data memory`;
  try {
    const site = { node: node.name, op: node.op };
    for (const p of partsOf(node, g)) {
      nestOf(p, site);
      for (const t of [...p.leaves.map((l) => l.dtype), p.out.dtype]) if (TYPE_CODES[t] === undefined) return `${t} is not a type the movement layer copies`;
    }
  } catch (e) {
    if (e instanceof GenError) return e.reason;
    throw e;
  }
  return null;
}

export function encodeMovement(node: Node, g: Graph, maxWorkers: number, elementCycles: number) {
  const site = { node: node.name, op: node.op };
  const y = tensorOf(g, node.outputs[0]);
  const sources = node.op === 'Concat' ? node.inputs : [node.inputs[0]];
  // Half of what is left after the configuration, with 8 KiB kept for the worker block (checked below).
  const budget = Math.floor((SRAM.bytes - workerBlockSram(0) - 8192) / 2 / 16) * 16 - 32;
  const perRow = (n: Nest): number => n.dims[1] * n.dims[2] * n.dims[3];
  const spanOf = (n: Nest, sb: number, rows: number): number => {
    if (!n.src) return 0;
    const e = sourceExtent(n, rows);
    return (e.hi - e.lo + 1) * sb;
  };
  const parts = partsOf(node, g).flatMap((p) => {
    const sb = p.leaves[0] ? bytesOf(p.leaves[0].dtype) : 0;
    const db = bytesOf(p.out.dtype);
    const src = p.leaves[0] ? sources[Number(p.leaves[0].field.slice(2))] : undefined;
    const nests = splitRows(nestOf(p, site), (n) => spanOf(n, sb, 1) + perRow(n) * db <= budget);
    return nests.map((n) => ({ p, n, sb, db, src }));
  });
  const span = (q: (typeof parts)[number], rows: number): number => spanOf(q.n, q.sb, rows);
  // Per part, the most rows whose source span and staging buffer fit half the SRAM (two of each).
  const fit = parts.map((q) => {
    let rows = q.n.dims[0];
    while (rows > 1 && span(q, rows) + rows * perRow(q.n) * q.db > budget) rows = Math.ceil(rows / 2);
    if (span(q, rows) + rows * perRow(q.n) * q.db > budget) throw new GenError('capacity', `one element of a copy does not fit a PE's SRAM`, site);
    return rows;
  });
  // Tiles of at most fit rows, each part cut into at least `split` tiles where it has the rows: a copy that fits one
  // tile (a key cache's transpose in a decoder step) is otherwise one worker's, however many are idle.
  type Tile = { k: number; r0: number; rows: number };
  const tilesFor = (split: number): Tile[] => parts.flatMap((q, k) => {
    const rows = Math.min(fit[k], Math.ceil(q.n.dims[0] / split));
    return Array.from({ length: Math.ceil(q.n.dims[0] / rows) }, (_, t) => ({ k, r0: t * rows, rows: Math.min(rows, q.n.dims[0] - t * rows) }));
  });
  const tileCost = (t: Tile, w: number): number => {
    const q = parts[t.k];
    const wb = writeBackOf(q.n, t.rows);
    const outs = wb.loops[0][0] * wb.loops[1][0];
    const dma = (q.n.src ? dmaCycles(span(q, t.rows), w) : 0) + outs * dmaCycles(t.rows * perRow(q.n) * q.db / outs, w);
    return Math.max(t.rows * perRow(q.n) * elementCycles, dma);
  };
  // The cost model over the splits (powers of two up to the longest part's rows) and the worker counts.
  let best = { w: 1, cycles: Infinity, tiles: [] as Tile[] };
  const most = Math.max(...parts.map((q) => q.n.dims[0]));
  for (let split = 1; ; split *= 2) {
    const tiles = tilesFor(split);
    for (let w = 1; w <= Math.min(maxWorkers, tiles.length); w++) {
      const t = Math.ceil(tiles.length / w);
      const o = layerOverhead(w, 0, WORKER.first + t * TILE_BYTES);
      const avg = tiles.reduce((s, x) => s + tileCost(x, w), 0) / tiles.length;
      const cycles = o.before + S2.nocSend * (w - 1) + o.perWorker + o.after + t * avg;
      if (cycles < best.cycles) best = { w, cycles, tiles };
    }
    if (split >= most || split >= maxWorkers) break;
  }
  const tiles = best.tiles;
  const assignment = assign(tiles.length, best.w);
  const blockBytes = WORKER.first + Math.max(...assignment.map((a) => a.length)) * TILE_BYTES;
  const first = align(workerBlockSram(0) + blockBytes, 16);
  const slot = Math.floor((SRAM.bytes - first) / 2 / 16) * 16;
  if (slot < budget + 32) throw new GenError('capacity', `${tiles.length} copy tiles: the worker blocks leave too little SRAM`, site);
  const encode = (addr: Addresses) => {
    const blocks = assignment.map((ids) => {
      const b = new Words(blockBytes);
      b.u32(WORKER.tiles, ids.length);
      ids.forEach((id, i) => {
        const t = tiles[id];
        const q = parts[t.k];
        const n = q.n;
        const d = WORKER.first + i * TILE_BYTES;
        b.u32(d, t.rows).u32(d + 4, n.dims[1]).u32(d + 8, n.dims[2]).u32(d + 12, n.dims[3]);
        b.u32(d + 16, q.src ? TYPE_CODES[q.p.leaves[0].dtype]! : FILL).u32(d + 20, TYPE_CODES[q.p.out.dtype]!);
        (n.src ?? [0, 0, 0, 0]).forEach((s, j) => b.i32(d + 24 + 4 * j, s));
        n.dst.forEach((s, j) => b.u32(d + 40 + 4 * j, s));
        let srcSram = first + (i % 2) * slot;
        const staging = srcSram + align(span(q, t.rows), 16);
        if (q.src) {
          // The span starts at the lowest element read, which a backward step puts after the tile's first one.
          const lo = sourceExtent(n, t.rows).lo;
          const from = addr.tensor(q.src) + (n.srcOff + t.r0 * n.src![0] + lo) * q.sb;
          b.u32(d + 68, 1).u32(d + 72, from).u32(d + 76, srcSram).u32(d + 80, span(q, t.rows));
          srcSram -= lo * q.sb;
        }
        b.i32(d + 56, q.src ? 0 : (q.p.expr.k === 'const' ? q.p.expr.v : 0)).u32(d + 60, srcSram).u32(d + 64, staging);
        const wb = writeBackOf(n, t.rows);
        b.u32(d + 92, addr.tensor(y.name) + (n.dstOff + t.r0 * n.dst[0]) * q.db);
        b.u32(d + 96, wb.run * q.db).u32(d + 100, wb.rows).u32(d + 104, wb.rowStride * q.db);
        wb.loops.forEach(([count, stride], j) => b.u32(d + 108 + 8 * j, count).u32(d + 112 + 8 * j, stride * q.db));
      });
      return b.bytes;
    });
    return { params: new Uint8Array(0), blocks };
  };
  const enc: LayerEncoding = { type: LAYER_MOVE, workers: best.w, paramBytes: 0, blockBytes, consts: [], encode };
  return { enc, tiles: tiles.length, estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: SRAM.bytes };
}
