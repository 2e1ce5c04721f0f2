import { attrInt, attrInts, attrString, hasAttr } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { formatShape } from '../../ir/ndarray.js';
import { modelError, unsupported } from '../op-spec.js';

/*
 * Sliding-window geometry shared by Conv and the pools. 1-D windows are handled as 2-D ones with a height of 1, so
 * every kernel loop is written once.
 */

export interface Window2D {
  N: number;
  C: number;
  H: number;
  W: number;
  kh: number;
  kw: number;
  sh: number;
  sw: number;
  dh: number;
  dw: number;
  /** Padding: top, left, bottom, right. */
  pt: number;
  pl: number;
  pb: number;
  pr: number;
  Ho: number;
  Wo: number;
  /** Number of spatial axes of the original tensor (1 or 2). */
  rank: number;
}

/** Output size along one axis: floor (or ceil) of (in + pads - effective kernel) / stride, plus one. */
function outputSize(inp: number, padBegin: number, padEnd: number, k: number, s: number, d: number, ceil: boolean): number {
  const span = inp + padBegin + padEnd - ((k - 1) * d + 1);
  let out = (ceil ? Math.ceil(span / s) : Math.floor(span / s)) + 1;
  // With ceil_mode a last window that would start inside the end padding is dropped (as PyTorch and ORT do).
  if (ceil && (out - 1) * s >= inp + padBegin) out--;
  return out;
}

/**
 * Geometry of a windowed op on an (N, C, spatial...) input. `kernel` is the kernel's spatial shape (from the
 * weights of a Conv, from kernel_shape for a pool).
 */
export function windowGeometry(node: Node, xShape: readonly number[], kernel: readonly number[], ceil = false): Window2D {
  const rank = xShape.length - 2;
  if (rank !== 1 && rank !== 2) {
    throw unsupported(node, `only 1-D and 2-D windows are supported (input ${formatShape(xShape)})`);
  }
  if (kernel.length !== rank) throw modelError(node, `kernel rank ${kernel.length} does not match input ${formatShape(xShape)}`);
  const strides = attrInts(node, 'strides', new Array(rank).fill(1));
  const dilations = attrInts(node, 'dilations', new Array(rank).fill(1));
  let pads = attrInts(node, 'pads', new Array(2 * rank).fill(0));
  const spatial = xShape.slice(2);
  const autoPad = hasAttr(node, 'auto_pad') ? attrString(node, 'auto_pad') : 'NOTSET';
  if (autoPad === 'VALID') pads = new Array(2 * rank).fill(0);
  else if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
    pads = new Array(2 * rank).fill(0);
    for (let i = 0; i < rank; i++) {
      const out = Math.ceil(spatial[i] / strides[i]);
      const total = Math.max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - spatial[i]);
      const small = Math.floor(total / 2);
      pads[i] = autoPad === 'SAME_UPPER' ? small : total - small;
      pads[i + rank] = total - pads[i];
    }
  } else if (autoPad !== 'NOTSET') throw unsupported(node, `auto_pad '${autoPad}'`);
  if (strides.length !== rank || dilations.length !== rank || pads.length !== 2 * rank) {
    throw modelError(node, 'strides, dilations or pads do not match the kernel rank');
  }
  const g: Window2D = rank === 1
    ? {
      N: xShape[0], C: xShape[1], H: 1, W: spatial[0], kh: 1, kw: kernel[0], sh: 1, sw: strides[0], dh: 1,
      dw: dilations[0], pt: 0, pl: pads[0], pb: 0, pr: pads[1], Ho: 1, Wo: 0, rank,
    }
    : {
      N: xShape[0], C: xShape[1], H: spatial[0], W: spatial[1], kh: kernel[0], kw: kernel[1], sh: strides[0],
      sw: strides[1], dh: dilations[0], dw: dilations[1], pt: pads[0], pl: pads[1], pb: pads[2], pr: pads[3], Ho: 0,
      Wo: 0, rank,
    };
  if (rank === 2) g.Ho = outputSize(g.H, g.pt, g.pb, g.kh, g.sh, g.dh, ceil);
  g.Wo = outputSize(g.W, g.pl, g.pr, g.kw, g.sw, g.dw, ceil);
  if (g.Ho < 1 || g.Wo < 1) throw modelError(node, `the window does not fit the input ${formatShape(xShape)}`);
  return g;
}

/** Output shape (N, channels, spatial...) in the input's rank. */
export function windowOutputShape(g: Window2D, channels: number): number[] {
  return g.rank === 1 ? [g.N, channels, g.Wo] : [g.N, channels, g.Ho, g.Wo];
}

export function hasPadding(g: Window2D): boolean {
  return g.pt + g.pl + g.pb + g.pr > 0;
}

export function groupOf(node: Node): number {
  return attrInt(node, 'group', 1);
}
