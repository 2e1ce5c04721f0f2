import { GenError } from '../../errors.js';
import type { Node } from '../../ir/graph.js';
import { align, SRAM, WORKER, workerBlockSram } from './layout.js';
import { elementInfo, type GemmGeometry, type ParamTable } from './gemm-geometry.js';
import { dmaCycles, layerOverhead, mlaCycles, S2 } from './timing.js';

/** One output tile: rows r0..r0+mr of batch b, columns n0..n0+nc. */
export interface GemmTile {
  b: number;
  r0: number;
  mr: number;
  n0: number;
  nc: number;
}

/** SRAM offsets (from the PE's SRAM base) of a layer's buffers: two slots for what changes between tiles. */
export interface GemmSram {
  a: number[];
  b: number[];
  bias: number[];
  mul: number[];
  add: number[];
  y: number[];
  acc: number;
  end: number;
}

export interface GemmPlan {
  mt: number;
  nt: number;
  tiles: GemmTile[];
  /** Tile indices of each worker, in the order it runs them. */
  assignment: number[][];
  sram: GemmSram;
  paramBytes: number;
  blockBytes: number;
  /** The cost model's estimate for the layer (cycles) and its parts. */
  estimate: { cycles: number; mla: number; dma: number; overhead: number };
}

export const GEMM_PARAM_BYTES = 64;
export const GEMM_TILE_BYTES = 160;

/** Cycles per output of the core's epilogue: the REQUANT or ELEMENT class of the platform's cost table. */
export interface EpilogueCosts {
  requant: number;
  element: number;
}

function paramBytes(t: ParamTable, mr: number, nc: number): number {
  return t.mode === 'col' ? nc * 4 : t.mode === 'row' ? mr * 4 : t.mode === 'full' ? mr * nc * 4 : 0;
}

/** Distinct tile extents ceil(n / q), and the same rounded up to a multiple of `unit` (the MLA's block side). */
function extents(n: number, unit: number): number[] {
  const out = new Set<number>();
  for (let q = 1; q <= n; q++) {
    const e = Math.ceil(n / q);
    out.add(e);
    out.add(Math.min(n, align(e, unit)));
    if (e === 1) break;
  }
  return [...out].sort((a, b) => b - a);
}

function params(geo: GemmGeometry): ParamTable[] {
  return [geo.bias, ...(geo.requant ? [geo.requant.mul, geo.requant.add] : [])];
}

/** SRAM buffers for tiles of at most mt x nt, from `base`; `two` says which operands change between tiles. */
function layoutSram(geo: GemmGeometry, mt: number, nt: number, base: number, two: { a: boolean; b: boolean; p: boolean }): GemmSram {
  let at = base;
  const take = (bytes: number, slots: number): number[] => {
    const out: number[] = [];
    for (let i = 0; i < slots; i++) {
      out.push(bytes > 0 ? at : 0);
      at += align(bytes, 16);
    }
    return out;
  };
  const { yBytes } = elementInfo(geo);
  const rq = geo.requant;
  const sram = {
    a: take(mt * geo.K, two.a ? 2 : 1),
    b: take(geo.K * nt, two.b ? 2 : 1),
    bias: take(paramBytes(geo.bias, mt, nt), two.p ? 2 : 1),
    mul: take(rq ? paramBytes(rq.mul, mt, nt) : 0, two.p ? 2 : 1),
    add: take(rq ? paramBytes(rq.add, mt, nt) : 0, two.p ? 2 : 1),
    y: take(mt * nt * yBytes, 2),
    acc: 0,
    end: 0,
  };
  sram.acc = take(mt * nt * 4, 1)[0];
  sram.end = at;
  return sram;
}

/** Tiles in the order workers run them: per batch, column block by column block, the row blocks of each. */
function tilesOf(geo: GemmGeometry, mt: number, nt: number): GemmTile[] {
  const tiles: GemmTile[] = [];
  for (let b = 0; b < geo.batches; b++) {
    for (let n0 = 0; n0 < geo.N; n0 += nt) {
      for (let r0 = 0; r0 < geo.M; r0 += mt) tiles.push({ b, r0, mr: Math.min(mt, geo.M - r0), n0, nc: Math.min(nt, geo.N - n0) });
    }
  }
  return tiles;
}

/** Contiguous runs of tiles, sizes differing by at most one: the first T mod w workers take one more. */
export function assign(tileCount: number, workers: number): number[][] {
  const out: number[][] = [];
  const base = Math.floor(tileCount / workers);
  let at = 0;
  for (let w = 0; w < workers; w++) {
    const n = base + (w < tileCount % workers ? 1 : 0);
    out.push(Array.from({ length: n }, (_, i) => at + i));
    at += n;
  }
  return out;
}

/**
 * Picks tile size and worker count from the cost model: for every tile shape that fits a worker's SRAM (double
 * buffered), and every worker count up to `maxWorkers`, the layer's time is the scheduler's overhead, the last
 * worker's start, its configuration fetch and its tile pipeline (per tile the larger of MLA + epilogue and the DMA
 * in + out, the DRAM shared by all workers), and the wake-up at the end. The fastest wins; ties go to fewer workers.
 */
export function planGemm(geo: GemmGeometry, node: Node, maxWorkers: number, costs: EpilogueCosts): GemmPlan {
  const { yBytes } = elementInfo(geo);
  const rows = geo.M;
  const epi = geo.requant ? costs.requant : costs.element;
  let best: { plan: Omit<GemmPlan, 'tiles' | 'assignment' | 'sram'>; two: { a: boolean; b: boolean; p: boolean }; w: number } | undefined;
  for (const mt of extents(rows, S2.mlaRows)) {
    for (const nt of extents(geo.N, S2.mlaCols)) {
      const rowBlocks = Math.ceil(rows / mt);
      const colBlocks = Math.ceil(geo.N / nt);
      const T = geo.batches * rowBlocks * colBlocks;
      const two = { a: rowBlocks > 1 || geo.batches > 1, b: colBlocks > 1 || geo.batches > 1, p: T > 1 };
      for (let w = 1; w <= Math.min(maxWorkers, T); w++) {
        const t = Math.ceil(T / w);
        const blockBytes = WORKER.first + t * GEMM_TILE_BYTES;
        const base = align(workerBlockSram(GEMM_PARAM_BYTES) + blockBytes, 16);
        const sram = layoutSram(geo, mt, nt, base, two);
        if (sram.end > SRAM.bytes) continue;
        const pBytes = params(geo).reduce((s, p) => s + paramBytes(p, mt, nt), 0);
        const aIn = mt * geo.K;
        const bIn = geo.K * nt;
        // A changes every tile when there are several row blocks; B once per column block of the worker's run.
        const aFetches = rowBlocks > 1 ? t : Math.min(t, Math.ceil(t / colBlocks) + 1);
        const bFetches = rowBlocks > 1 ? Math.min(t, Math.ceil(t / rowBlocks) + 1) : t;
        const inBytes = (aFetches * aIn + bFetches * bIn) / t + pBytes;
        const dmaTile = dmaCycles(inBytes, w) + dmaCycles(mt * nt * yBytes, w);
        const computeTile = mlaCycles(mt, nt, geo.K) + mt * nt * epi;
        const pipeline = dmaCycles(aIn + bIn + pBytes, w) + t * Math.max(computeTile, dmaTile) + dmaCycles(mt * nt * yBytes, w);
        const o = layerOverhead(w, GEMM_PARAM_BYTES, blockBytes);
        const overhead = o.before + S2.nocSend * (w - 1) + o.perWorker + o.after;
        const cycles = overhead + pipeline;
        if (!best || cycles < best.plan.estimate.cycles) {
          best = {
            plan: { mt, nt, paramBytes: GEMM_PARAM_BYTES, blockBytes, estimate: { cycles, mla: t * computeTile, dma: t * dmaTile, overhead } },
            two,
            w,
          };
        }
      }
    }
  }
  if (!best) {
    throw new GenError('capacity', `no tile of this GEMM (K = ${geo.K}) fits the ${SRAM.bytes - SRAM.reserved} bytes a PE has for buffers, even one row by one column with double buffering; splitting K is not supported yet`, { node: node.name, op: node.op });
  }
  const tiles = tilesOf(geo, best.plan.mt, best.plan.nt);
  const assignment = assign(tiles.length, best.w);
  const base = align(workerBlockSram(GEMM_PARAM_BYTES) + best.plan.blockBytes, 16);
  return { ...best.plan, tiles, assignment, sram: layoutSram(geo, best.plan.mt, best.plan.nt, base, best.two) };
}
