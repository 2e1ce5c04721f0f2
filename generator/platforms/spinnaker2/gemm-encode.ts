import { PARAM_MODES, elementInfo, type GemmGeometry, type ParamTable } from './gemm-geometry.js';
import { GEMM_PARAM_BYTES, GEMM_TILE_BYTES, type GemmPlan, type GemmTile } from './gemm-plan.js';
import { DMA, LAYER_GEMM, WORKER } from './layout.js';
import type { Addresses, LayerEncoding } from './encoding.js';
import { int32Bytes, Words } from './words.js';

/**
 * Bytes of a GEMM layer (docs/spinnaker2.md, "GEMM layer"). Parameters, 64 bytes:
 *   +0 K, +4 flags (bit 0 A signed, 1 B signed, 2 A in SRAM k-major [K][rows], 3 B in SRAM n-major [cols][K],
 *   4 requantize, 8..9 log2 of the output element bytes), +8 alpha, +12/+16 bias mode and scalar, +20/+24 mul,
 *   +28/+32 add (modes: 0 none, 1 scalar, 2 per column, 3 per row, 4 full), +36 shift, +40 min, +44 max,
 *   +48 SRAM offset of the int32 accumulators, +52 largest tile rows, +56 largest tile columns.
 * Tile descriptor, 160 bytes: +0 rows, +4 columns, +8..+28 SRAM offsets of A, B, bias, mul, add and Y, +32 input
 * transfers n (0..5), +36 five DMA descriptors (only the first n are used: an operand that did not change since
 * the worker's previous tile is not fetched again), +136 the output's DMA descriptor.
 */
export function encodeGemm(geo: GemmGeometry, plan: GemmPlan): LayerEncoding {
  const { yBytes, aSigned, bSigned } = elementInfo(geo);
  const constA = geo.A.data !== undefined;
  const constB = geo.B.data !== undefined;
  const consts: Uint8Array[] = [];
  const constIndex = (bytes: Uint8Array): number => consts.push(bytes) - 1;
  const aBlob = constA ? constIndex(rawBytes(geo.A.data!.data)) : -1;
  const bBlob = constB ? constIndex(nMajor(geo)) : -1;
  const tables = [geo.bias, geo.requant?.mul, geo.requant?.add].map((t) =>
    t && t.values.length > 0 ? constIndex(int32Bytes(t.values)) : -1);
  const bNMajor = constB || geo.transB;
  const rq = geo.requant;

  const encode = (addr: Addresses) => {
    const p = new Words(GEMM_PARAM_BYTES);
    const flags = (aSigned ? 1 : 0) | (bSigned ? 2 : 0) | (geo.transA ? 4 : 0) | (bNMajor ? 8 : 0) | (rq ? 16 : 0) |
      (Math.log2(yBytes) << 8);
    p.u32(0, geo.K).u32(4, flags).i32(8, geo.alpha);
    const param = (at: number, t: ParamTable | undefined): void => {
      p.u32(at, PARAM_MODES[t?.mode ?? 'none']).i32(at + 4, t?.scalar ?? 0);
    };
    param(12, geo.bias);
    param(20, rq?.mul);
    param(28, rq?.add);
    p.u32(36, rq?.shift ?? 0).i32(40, rq?.min ?? 0).i32(44, rq?.max ?? 0);
    p.u32(48, plan.sram.acc).u32(52, plan.mt).u32(56, plan.nt);

    const aBase = constA ? addr.constant(aBlob) : addr.tensor(geo.A.name);
    const bBase = constB ? addr.constant(bBlob) : addr.tensor(geo.B.name);
    const yBase = addr.tensor(geo.Y.name);
    const M = geo.M;
    const N = geo.N;
    const K = geo.K;
    const rows2d = (dram: number, bytes: number, length: number, stride: number): Transfer =>
      ({ dram, bytes, rowLength: length === stride ? 0 : length, rowStride: length === stride ? 0 : stride });
    const operands: ((t: GemmTile) => Transfer | undefined)[] = [
      (t) => geo.transA
        ? rows2d(aBase + geo.aOffset(t.b) + t.r0, K * t.mr, t.mr, M)
        : rows2d(aBase + geo.aOffset(t.b) + t.r0 * K, t.mr * K, t.mr * K, t.mr * K),
      (t) => constB
        ? rows2d(bBase + geo.bOffset(t.b) + t.n0 * K, t.nc * K, t.nc * K, t.nc * K)
        : geo.transB
          ? rows2d(bBase + geo.bOffset(t.b) + t.n0 * K, t.nc * K, t.nc * K, t.nc * K)
          : rows2d(bBase + geo.bOffset(t.b) + t.n0, K * t.nc, t.nc, N),
      ...[geo.bias, rq?.mul, rq?.add].map((table, i) => (t: GemmTile): Transfer | undefined => {
        if (!table || tables[i] < 0) return undefined;
        const base = addr.constant(tables[i]);
        const row = t.b * M + t.r0;
        if (table.mode === 'col') return rows2d(base + t.n0 * 4, t.nc * 4, t.nc * 4, t.nc * 4);
        if (table.mode === 'row') return rows2d(base + row * 4, t.mr * 4, t.mr * 4, t.mr * 4);
        return rows2d(base + (row * N + t.n0) * 4, t.mr * t.nc * 4, t.nc * 4, N * 4);
      }),
    ];
    const slots = [plan.sram.a, plan.sram.b, plan.sram.bias, plan.sram.mul, plan.sram.add];
    const blocks = plan.assignment.map((tileIds) => {
      const w = new Words(plan.blockBytes);
      w.u32(WORKER.tiles, tileIds.length);
      const last: (string | undefined)[] = operands.map(() => undefined);
      const slot = operands.map(() => -1);
      tileIds.forEach((id, i) => {
        const t = plan.tiles[id];
        const at = WORKER.first + i * GEMM_TILE_BYTES;
        const fetches: Transfer[] = [];
        const sram = operands.map((op, k) => {
          const x = op(t);
          if (!x) return 0;
          const key = `${x.dram}/${x.bytes}`;
          if (key !== last[k]) {
            last[k] = key;
            slot[k] = (slot[k] + 1) % slots[k].length;
            fetches.push({ ...x, sram: slots[k][slot[k]] });
          }
          return slots[k][slot[k]];
        });
        const ySram = plan.sram.y[i % 2];
        w.u32(at, t.mr).u32(at + 4, t.nc);
        sram.forEach((s, k) => w.u32(at + 8 + 4 * k, s));
        w.u32(at + 28, ySram).u32(at + 32, fetches.length);
        fetches.forEach((f, k) => writeDma(w, at + 36 + k * DMA.size, f));
        const yRow = t.b * M + t.r0;
        writeDma(w, at + 136, { ...rows2d(yBase + (yRow * N + t.n0) * yBytes, t.mr * t.nc * yBytes, t.nc * yBytes, N * yBytes), sram: ySram });
      });
      return w.bytes;
    });
    return { params: p.bytes, blocks };
  };
  return {
    type: LAYER_GEMM,
    workers: plan.assignment.length,
    paramBytes: GEMM_PARAM_BYTES,
    blockBytes: plan.blockBytes,
    consts,
    encode,
  };
}

interface Transfer {
  dram: number;
  bytes: number;
  rowLength: number;
  rowStride: number;
  sram?: number;
}

function writeDma(w: Words, at: number, t: Transfer): void {
  w.u32(at + DMA.dram, t.dram).u32(at + DMA.sram, t.sram ?? 0).u32(at + DMA.bytes, t.bytes)
    .u32(at + DMA.rowLength, t.rowLength).u32(at + DMA.rowStride, t.rowStride);
}

function rawBytes(values: Float64Array): Uint8Array {
  return Uint8Array.from(values, (v) => v & 0xff);
}

/** B as n-major matrices ([N][K] each, one per B batch): a column block of the output is one contiguous run. */
function nMajor(geo: GemmGeometry): Uint8Array {
  const { K, N } = geo;
  const data = geo.B.data!.data;
  const out = new Uint8Array(data.length);
  for (let m = 0; m < data.length / (K * N); m++) {
    const base = m * K * N;
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) out[base + n * K + k] = data[base + (geo.transB ? n * K + k : k * N + n)] & 0xff;
    }
  }
  return out;
}
