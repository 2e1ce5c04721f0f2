import { align, SRAM, WORKER, workerBlockSram } from './layout.js';
import { dmaCycles, layerOverhead, S2 } from './timing.js';

/** What a layer tiled by runs of rows costs, per tile of `rows` rows. */
export interface RowCosts {
  /** Rows to split. */
  rows: number;
  paramBytes: number;
  tileBytes: number;
  /** SRAM bytes of a tile's buffers (all slots). */
  sram: (rows: number) => number;
  inBytes: (rows: number) => number;
  outBytes: (rows: number) => number;
  /** Core cycles of a tile. */
  compute: (rows: number) => number;
}

export interface RowChoice {
  rows: number;
  workers: number;
  cycles: number;
  /** SRAM offset where the tile buffers start. */
  base: number;
  blockBytes: number;
}

/**
 * Rows per tile and workers from the cost model, as for GEMM (gemm-plan.ts): for every distinct tile height and
 * worker count whose buffers fit a worker's SRAM, the layer's overheads plus the busiest worker's pipeline (per tile
 * the larger of its core work and its DMA in and out, the DRAM shared by the workers). undefined: one row does not fit.
 */
export function chooseRows(c: RowCosts, maxWorkers: number): RowChoice | undefined {
  let best: RowChoice | undefined;
  for (let q = 1; q <= c.rows; q++) {
    const rows = Math.ceil(c.rows / q);
    if (q > 1 && rows === Math.ceil(c.rows / (q - 1))) continue;
    const T = Math.ceil(c.rows / rows);
    for (let w = 1; w <= Math.min(maxWorkers, T); w++) {
      const t = Math.ceil(T / w);
      const blockBytes = WORKER.first + t * c.tileBytes;
      const base = align(workerBlockSram(c.paramBytes) + blockBytes, 16);
      if (base + c.sram(rows) > SRAM.bytes) continue;
      const dma = dmaCycles(c.inBytes(rows), w) + dmaCycles(c.outBytes(rows), w);
      const o = layerOverhead(w, c.paramBytes, blockBytes);
      const cycles = o.before + S2.nocSend * (w - 1) + o.perWorker + o.after + dma + t * Math.max(c.compute(rows), dma);
      if (!best || cycles < best.cycles) best = { rows, workers: w, cycles, base, blockBytes };
    }
    if (rows === 1) break;
  }
  return best;
}
