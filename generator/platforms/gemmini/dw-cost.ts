import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import type { Graph, Node } from '../../ir/graph.js';
import { convKernel } from '../../kernels/conv.js';
import type { CoreCosts, Platform } from '../types.js';
import { convTile, type ConvShape } from './conv-tiles.js';

/*
 * Where a depthwise convolution runs, by cost: the array runs one loop_conv_ws per channel (conv-kernel.ts), whose
 * time is mostly the input gather (one one-byte DMA request per input pixel, the channel being one byte of each NHWC
 * pixel) and a fixed part per channel (its commands, the first data arriving, the sums moved out); the host core
 * runs the shared conv2d kernel at its cost per MAC. A small layer (few taps per input pixel, small images) is faster
 * on the host core. Both estimates use the emulator's own figures: the array's from its timing rules and constants
 * (docs/gemmini.md "Timing", emulator/assembly/chips/gemmini.ts, repeated here), the host's from the cost table the
 * emulator charges (midend/tiling/cost.ts computeCycles). test/e2e/gemmini-dw-cost.test.ts measures both ways.
 */

// emulator/assembly/chips/gemmini.ts (docs/gemmini.md "Timing" table); test/platforms/gemmini-constants.test.ts
// keeps these equal to the emulator's.
export const EMULATOR_TIMING = {
  DIM: 16, HOST_ISSUE: 6, DMA_READ_LATENCY: 80, DMA_WRITE_LATENCY: 30, DMA_IN_FLIGHT: 16, ARRAY_STREAM: 16,
  STORE_READ_LATENCY: 4, RS_LOAD: 8, ARRAY_PRELOAD: 16,
} as const;
const { DIM, HOST_ISSUE, DMA_READ_LATENCY, DMA_WRITE_LATENCY, DMA_IN_FLIGHT, ARRAY_STREAM, STORE_READ_LATENCY, RS_LOAD, ARRAY_PRELOAD } = EMULATOR_TIMING;
/** Commands of gemmini_loop_conv_ws: its six configurations and the loop (runtime/as/gemmini.ts). */
const LOOP_COMMANDS = 7;

/** A depthwise layer as conv-kernel.ts runs it (one batch image, NHWC, the loop's stride along the row). */
export interface DepthwiseShape extends ConvShape {
  N: number;
  H: number;
  W: number;
  /** Top, left, bottom, right. */
  pads: readonly number[];
}

/**
 * The load unit over one channel's moves in (timing.ts, move.ts): the unroller dispatches a mvin a cycle while the
 * load reservation station has one of its 8 entries free (an entry frees when its mvin completes); a mvin's requests
 * (one per one-byte row) issue a cycle apart, at most 16 outstanding, each back DMA_READ_LATENCY + 1 cycles after
 * it issued; a mvin of padding writes a row a cycle with no traffic. `rows[i]` > 0: requests; < 0: rows of zeros.
 * Returns each mvin's completion, from the cycle the first is dispatched.
 */
function loadStream(rows: number[]): number[] {
  const done: number[] = [];
  const inFlight: number[] = [];
  let dispatch = -1;
  let issueFree = 0;
  for (let i = 0; i < rows.length; i++) {
    dispatch = Math.max(dispatch + 1, i >= RS_LOAD ? done[i - RS_LOAD] : 0);
    let end = dispatch;
    if (rows[i] < 0) {
      end = Math.max(dispatch, issueFree) - rows[i];
      issueFree = end;
    } else {
      for (let r = 0; r < rows[i]; r++) {
        const n = inFlight.length;
        const issue = Math.max(dispatch, issueFree, n >= DMA_IN_FLIGHT ? inFlight[n - DMA_IN_FLIGHT] : 0);
        inFlight.push(issue + DMA_READ_LATENCY + 1);
        issueFree = issue + 1;
        end = Math.max(end, issue + DMA_READ_LATENCY + 1);
      }
    }
    done.push(end + 1);
  }
  return done;
}

/**
 * Cycles from one channel's first host command to the next channel's, over an orows x ocols tile whose input window
 * is inRows x inCols pixels of the image (the rest padding): the loop's commands, its moves in, the computes as their
 * weights arrive, then the host's moves out and the next channel's bias (the accumulator rows are the same).
 */
function channelCycles(s: DepthwiseShape, orows: number, ocols: number, inRows: number, inCols: number, pad: readonly number[], pixels: number): number {
  const plane = orows * ocols;
  const biasMvins = Math.ceil(plane / DIM);
  const irows = inRows + pad[0] + pad[2];
  // the input, row by row: left padding, the image in segments of 16 pixels, right padding (loop-conv.ts)
  const rows: number[] = [];
  for (let r = 0; r < irows; r++) {
    const inside = r >= pad[0] && r < pad[0] + inRows;
    if (pad[1] > 0) rows.push(-pad[1]);
    for (let c = 0; c < inCols; c += DIM) rows.push(inside ? Math.min(DIM, inCols - c) : -Math.min(DIM, inCols - c));
    if (pad[3] > 0) rows.push(-pad[3]);
  }
  const firstWeight = rows.length;
  for (let t = 0; t < s.KH * s.KW; t++) rows.push(1);
  const done = loadStream(rows);
  const inputDone = firstWeight > 0 ? done[firstWeight - 1] : 0;
  // the array: per kernel row and group of side-by-side taps, a compute per output-row segment, once its weights are in
  const perGroup = orows * Math.ceil(ocols / DIM);
  let t = 0;
  for (let kr = 0; kr < s.KH; kr++) {
    for (let kc = 0; kc < s.KW; kc += pixels) {
      const ready = Math.max(inputDone, done[firstWeight + kr * s.KW + Math.min(s.KW, kc + pixels) - 1]) + ARRAY_PRELOAD + 2;
      t = Math.max(t, ready) + perGroup * ARRAY_STREAM;
    }
  }
  // the host: after the loop's last compute is dispatched, config_st and the mvouts (the store station holds 4; a
  // mvout of 16 one-beat rows writes for about a round trip), then the next channel's config_ld and bias mvins
  const mvouts = orows * Math.ceil(ocols / DIM);
  const writes = Math.max(0, mvouts - 4) * Math.min(DIM, ocols) * (DMA_WRITE_LATENCY + 1) / DMA_IN_FLIGHT;
  const host = Math.max((2 + mvouts + biasMvins) * HOST_ISSUE, writes + STORE_READ_LATENCY);
  return LOOP_COMMANDS * HOST_ISSUE + t - ARRAY_STREAM + host;
}

/** Estimated cycles of the layer on the array: every tile's channels one after the other (their rows are shared). */
export function arrayDepthwiseCycles(s: DepthwiseShape): number {
  const tile = convTile({ ...s, C: 1, O: 1 });
  if (!tile) return Infinity;
  const pixels = s.dilation === 1 ? Math.min(DIM, s.KW) : 1;
  const [PT, PL] = s.pads;
  const rowStride = s.rowStride ?? s.stride;
  let cycles = 0;
  for (let r0 = 0; r0 < s.OH; r0 += tile.orows) {
    const orows = Math.min(tile.orows, s.OH - r0);
    const top = r0 * rowStride - PT;
    const bottom = top + orows * s.stride + (s.KH - 1) * s.dilation; // gemmini.h's irows: one row past a strided window
    const inRows = Math.max(0, Math.min(s.H, bottom) - Math.max(0, top));
    const [upad, dpad] = [Math.max(0, -top), Math.max(0, bottom - s.H)];
    for (let c0 = 0; c0 < s.OW; c0 += tile.ocols) {
      const ocols = Math.min(tile.ocols, s.OW - c0);
      const left = c0 * s.stride - PL;
      const right = left + ocols * s.stride + (s.KW - 1) * s.dilation;
      const inCols = Math.max(0, Math.min(s.W, right) - Math.max(0, left));
      const pad = [upad, Math.max(0, -left), dpad, Math.max(0, right - s.W)];
      cycles += s.C * channelCycles(s, orows, ocols, inRows, inCols, pad, pixels);
    }
  }
  return s.N * cycles;
}

/** Ops a chain of NHWC activations passes through between two array layers (keep-nhwc.ts keeps such chains NHWC). */
const CHAIN_OPS = new Set(['RequantShift', 'Relu', 'Clip', 'MaxPool', 'Pad', 'Add', 'Sub', 'Mul', 'Div', 'Floor', 'Round', 'Cast', 'Max', 'Min']);
const ARRAY_OPS = new Set(['Conv', 'Gemm', 'MatMul']);

/** The node's activations in: its inputs that are not constants. */
const activations = (n: Node, g: Graph): string[] => n.inputs.filter((t) => t && !tensorOf(g, t).data);

/**
 * Whether `tensor` reaches another product (a Conv, Gemm or MatMul, which the array may run) through a chain of
 * single-activation nodes, each the only reader of its input: then the array path keeps that side NHWC (no Transpose,
 * keep-nhwc.ts), and the host path breaks the chain (a Transpose there).
 */
function chained(g: Graph, tensor: string, backward: boolean, producers: Map<string, Node>, consumers: Map<string, Node[]>): boolean {
  let t = tensor;
  for (let guard = 0; guard < g.nodes.length; guard++) {
    let next: Node | undefined;
    if (backward) next = producers.get(t);
    else {
      const readers = consumers.get(t) ?? [];
      next = readers.length === 1 && !g.outputs.includes(t) ? readers[0] : undefined;
    }
    if (!next) return false;
    if (ARRAY_OPS.has(next.op)) return true;
    if (!CHAIN_OPS.has(next.op) || activations(next, g).length !== 1) return false;
    if (backward && (consumers.get(t) ?? []).length !== 1) return false;
    t = backward ? activations(next, g)[0] : next.outputs[0];
  }
  return false;
}

/**
 * Estimated cycles of the layer on the host core: the conv2d kernel's cost (the emulator's cost table, one core),
 * and the Transposes (NCHW to NHWC or back, a MOVE_ELEM an element, docs/timing.md) each side pays: the array path
 * on a side that does not meet another array layer, the host path on a side that does (it breaks the NHWC chain).
 */
export function hostDepthwiseCycles(node: Node, g: Graph, costs: CoreCosts): { host: number; arrayTransposes: number; hostTransposes: number } {
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  const outputs = y.shape.reduce((a, b) => a * b, 1);
  // what the conv2d kernel's AS charges (conv.ts.mustache, its view's macTotal and macClass: the row path's MACs
  // and its per-row steps, input-row words and pairs in the padding's columns (the plane path's bands and the rows they copy), or the scalar path's, which skips
  // window rows in the padding)
  const view = convKernel.view({ node, graph: g, platform: { costs, cores: 1 } as Platform });
  const p = view.params as { macTotal: number; macClass: keyof CoreCosts; rowdot: boolean; units: number; rowWords: number; rowEdges: number; rowEdgesStrided: number; rowLoops: number; rowSigns: number; planeBands: number; planeRows: number; planeWords: number; planeLones: number };
  const rows = p.rowdot ? p.units * costs.CONV_ROW + p.rowWords * costs.ROW_WORD + p.rowEdges * costs.ROW_EDGE + p.rowEdgesStrided * costs.ROW_EDGE_STRIDED + p.rowLoops * costs.ROW_LOOP + p.rowSigns * costs.ROW_SIGN
    + p.planeBands * costs.DW_BAND + p.planeRows * costs.DW_ROW + p.planeWords * costs.DW_WORD + p.planeLones * costs.DW_LONE : 0;
  const host = costs.CALL + p.macTotal * (costs[p.macClass] as number) + rows + 2 * costs.barrier;
  const transpose = (elements: number): number => costs.CALL + elements * costs.MOVE_ELEM;
  const sides = [
    { chained: chained(g, x.name, true, producers, consumers), cycles: transpose(x.shape.reduce((a, b) => a * b, 1)) },
    { chained: chained(g, y.name, false, producers, consumers), cycles: transpose(outputs) },
  ];
  return {
    host,
    arrayTransposes: sides.filter((d) => !d.chained).reduce((a, d) => a + d.cycles, 0),
    hostTransposes: sides.filter((d) => d.chained).reduce((a, d) => a + d.cycles, 0),
  };
}
