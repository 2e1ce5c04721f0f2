import { GenError } from '../../errors.js';
import type { Node } from '../../ir/graph.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { patchRows, type ConvGeometry } from './conv-geometry.js';
import { PARAM_MODES, type ParamTable } from './gemm-geometry.js';
import { assign, GEMM_PARAM_BYTES, type EpilogueCosts } from './gemm-plan.js';
import { align, DMA, LAYER_CONV, SRAM, WORKER, workerBlockSram } from './layout.js';
import { dmaCycles, layerOverhead, mlaCycles, S2 } from './timing.js';
import { int32Bytes, Words } from './words.js';

/*
 * The conv layer (type 4; docs/spinnaker2.md "Conv layer"): the GEMM layer's parameters and tile descriptor
 * (gemm-encode.ts; A = the weights [channels][K], B = the im2col buffer [K][pixels]) plus, in the parameters at +64:
 * CIG, KH, KW, SY, SX, DY, DX, PT, PL, H, W, OW, +112 mode (0 conv, 1 MaxPool: the max of each im2col column is the
 * output, no MLA), +116 the byte im2col writes for padding (0; MaxPool: the input type's minimum, which never wins);
 * and in the tile descriptor at +160: rebuild the im2col buffer (1) or
 * keep it (0), +164 SRAM offset of the input patch, +168 first output row, +172 first input row of the patch, +176
 * its rows. Tiles: per image and group, blocks of output rows (the pixels) by blocks of output channels.
 */
export const CONV_PARAM_BYTES = GEMM_PARAM_BYTES + 64;
export const CONV_TILE_BYTES = 192;

interface Tile { n: number; g: number; oh0: number; nh: number; c0: number; mc: number }

function extents(n: number, unit: number): number[] {
  const out = new Set<number>();
  for (let q = 1; q <= n; q++) {
    const e = Math.ceil(n / q);
    out.add(e).add(Math.min(n, align(e, unit)));
    if (e === 1) break;
  }
  return [...out];
}

const tableBytes = (t: ParamTable, mc: number): number => (t.mode === 'row' ? mc * 4 : 0);

export function encodeConv(geo: ConvGeometry, node: Node, maxWorkers: number, costs: EpilogueCosts & { copy: number }) {
  const tables = [geo.bias, geo.requant?.mul, geo.requant?.add];
  const epi = geo.requant ? costs.requant : costs.element;
  const patchBytes = (nh: number): number => geo.CIG * Math.min(geo.H, (nh - 1) * geo.SY + (geo.KH - 1) * geo.DY + 1) * geo.W * geo.xBytes;
  const layout = (mc: number, nh: number, base: number) => {
    let at = base;
    const take = (bytes: number, n: number): number[] => Array.from({ length: n }, () => {
      const s = at;
      at += align(bytes, 16);
      return bytes > 0 ? s : 0;
    });
    const P = nh * geo.OW;
    const r = { a: take(mc * geo.K, 2), patch: take(patchBytes(nh), 2), col: take(geo.K * P, 1)[0], tables: tables.map((t) => take(t ? tableBytes(t, mc) : 0, 2)), y: take(mc * P * geo.yBytes, 2), acc: take(mc * P * 4, 1)[0], end: 0 };
    r.end = at;
    return r;
  };
  let best: { mc: number; nh: number; w: number; cycles: number; blockBytes: number } | undefined;
  for (const mc of extents(geo.COG, S2.mlaRows)) {
    for (const nh of extents(geo.OH, 1)) {
      const cBlocks = Math.ceil(geo.COG / mc);
      const pBlocks = Math.ceil(geo.OH / nh);
      const T = geo.N * geo.G * pBlocks * cBlocks;
      const P = nh * geo.OW;
      for (let w = 1; w <= Math.min(maxWorkers, T); w++) {
        const t = Math.ceil(T / w);
        const blockBytes = WORKER.first + t * CONV_TILE_BYTES;
        if (layout(mc, nh, align(workerBlockSram(CONV_PARAM_BYTES) + blockBytes, 16)).end > SRAM.bytes) continue;
        // MaxPool: one compare per tap on the core (ELEMENT) instead of the MLA and the epilogue.
        const compute = (geo.pool ? geo.K * P * costs.element : mlaCycles(mc, P, geo.K) + mc * P * epi) + (geo.K * P * costs.copy) / cBlocks;
        const inBytes = patchBytes(nh) / cBlocks + (cBlocks > 1 ? mc * geo.K : (mc * geo.K) / pBlocks) + 12 * mc;
        const dma = dmaCycles(inBytes, w) + dmaCycles(mc * P * geo.yBytes, w);
        const o = layerOverhead(w, CONV_PARAM_BYTES, blockBytes);
        const cycles = o.before + S2.nocSend * (w - 1) + o.perWorker + o.after + dma + t * Math.max(compute, dma);
        if (!best || cycles < best.cycles) best = { mc, nh, w, cycles, blockBytes };
      }
    }
  }
  if (!best) throw new GenError('capacity', `no tile of this Conv (K = ${geo.K}, a row of ${geo.W} pixels) fits a PE's SRAM`, { node: node.name, op: node.op });
  const { mc, nh, blockBytes } = best;
  const tiles: Tile[] = [];
  for (let n = 0; n < geo.N; n++) for (let g = 0; g < geo.G; g++) for (let oh0 = 0; oh0 < geo.OH; oh0 += nh) {
    for (let c0 = 0; c0 < geo.COG; c0 += mc) tiles.push({ n, g, oh0, nh: Math.min(nh, geo.OH - oh0), c0, mc: Math.min(mc, geo.COG - c0) });
  }
  const assignment = assign(tiles.length, best.w);
  const sram = layout(mc, nh, align(workerBlockSram(CONV_PARAM_BYTES) + blockBytes, 16));
  const consts = [geo.pool ? new Uint8Array(0) : Uint8Array.from(geo.w.data!.data, (v) => v & 0xff), ...tables.flatMap((t) => (t && t.mode === 'row' ? [int32Bytes(t.values)] : []))];
  const tableBlob = tables.map((t, i) => (t && t.mode === 'row' ? 1 + tables.slice(0, i).filter((u) => u && u.mode === 'row').length : -1));

  const encode = (addr: Addresses) => {
    const p = new Words(CONV_PARAM_BYTES);
    const rq = geo.requant;
    p.u32(0, geo.K).u32(4, (geo.wSigned ? 1 : 0) | (geo.xSigned ? 2 : 0) | (rq ? 16 : 0) | (Math.log2(geo.yBytes) << 8)).i32(8, 1);
    tables.forEach((t, i) => p.u32(12 + 8 * i, PARAM_MODES[t?.mode ?? 'none']).i32(16 + 8 * i, t?.scalar ?? 0));
    p.u32(36, rq?.shift ?? 0).i32(40, rq?.min ?? 0).i32(44, rq?.max ?? 0).u32(48, sram.acc).u32(52, mc).u32(56, nh * geo.OW);
    [geo.CIG, geo.KH, geo.KW, geo.SY, geo.SX, geo.DY, geo.DX, geo.PT, geo.PL, geo.H, geo.W, geo.OW].forEach((v, i) => p.u32(64 + 4 * i, v));
    p.u32(112, geo.pool ? 1 : 0).u32(116, geo.pool && geo.xSigned ? 0x80 : 0);
    const x = addr.tensor(geo.x.name);
    const y = addr.tensor(geo.y.name);
    const wAt = addr.constant(0);
    const blocks = assignment.map((ids) => {
      const b = new Words(blockBytes);
      b.u32(WORKER.tiles, ids.length);
      const last: string[] = ['', '', '', '', ''];
      const slot = [-1, -1, -1, -1, -1];
      let lastCol = '';
      ids.forEach((id, i) => {
        const t = tiles[id];
        const d = WORKER.first + i * CONV_TILE_BYTES;
        const pr = patchRows(geo, t.oh0, t.nh);
        const ch = t.g * geo.COG + t.c0;
        const rowBytes = pr.rows * geo.W * geo.xBytes;
        const plane = geo.H * geo.W * geo.xBytes;
        const ops: (number[] | undefined)[] = [
          geo.pool ? undefined : [wAt + ch * geo.K, t.mc * geo.K, 0, 0],
          // Output rows that read only padding need no patch: im2col writes zeros without reading it.
          pr.rows === 0 ? undefined
            : [x + ((t.n * geo.C + t.g * geo.CIG) * geo.H + pr.first) * geo.W * geo.xBytes, geo.CIG * rowBytes, rowBytes === plane ? 0 : rowBytes, rowBytes === plane ? 0 : plane],
          ...tables.map((tb, k) => (tb && tb.mode === 'row' ? [addr.constant(tableBlob[k]) + ch * 4, t.mc * 4, 0, 0] : undefined)),
        ];
        const slots = [sram.a, sram.patch, ...sram.tables];
        const fetches: number[][] = [];
        const at = ops.map((o, k) => {
          if (!o) return 0;
          if (`${o}` !== last[k]) {
            last[k] = `${o}`;
            slot[k] = (slot[k] + 1) % 2;
            fetches.push([o[0], slots[k][slot[k]], o[1], o[2], o[3]]);
          }
          return slots[k][slot[k]];
        });
        const col = `${t.n}/${t.g}/${t.oh0}`;
        const ySram = sram.y[i % 2];
        b.u32(d, t.mc).u32(d + 4, t.nh * geo.OW).u32(d + 8, at[0]).u32(d + 12, sram.col).u32(d + 16, at[2]).u32(d + 20, at[3]).u32(d + 24, at[4]).u32(d + 28, ySram);
        b.u32(d + 32, fetches.length);
        fetches.forEach((f, k) => f.forEach((v, j) => b.u32(d + 36 + k * DMA.size + 4 * j, v)));
        const yAt = y + ((t.n * geo.CO + ch) * geo.OH * geo.OW + t.oh0 * geo.OW) * geo.yBytes;
        const yRow = t.nh * geo.OW * geo.yBytes;
        const yPlane = geo.OH * geo.OW * geo.yBytes;
        [yAt, ySram, t.mc * yRow, yRow === yPlane ? 0 : yRow, yRow === yPlane ? 0 : yPlane].forEach((v, j) => b.u32(d + 136 + 4 * j, v));
        b.u32(d + 160, col !== lastCol ? 1 : 0).u32(d + 164, at[1]).u32(d + 168, t.oh0).u32(d + 172, pr.first).u32(d + 176, pr.rows);
        lastCol = col;
      });
      return b.bytes;
    });
    return { params: p.bytes, blocks };
  };
  const enc: LayerEncoding = { type: LAYER_CONV, workers: best.w, paramBytes: CONV_PARAM_BYTES, blockBytes, consts, encode };
  return { enc, tiles: tiles.length, shape: [mc, nh * geo.OW], estimate: best.cycles, perWorker: assignment.map((a) => a.length), sram: sram.end };
}
