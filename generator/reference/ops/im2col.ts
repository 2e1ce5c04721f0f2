import { attrInts } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { modelError, need, rangeOfInfo, type OpSpec } from '../op-spec.js';

/** The unfolding's geometry: x [N, C, H, W], window KH x KW, strides, pads (top, left, bottom, right), dilations. */
export interface Unfold {
  N: number; C: number; H: number; W: number;
  KH: number; KW: number; SH: number; SW: number; DH: number; DW: number;
  PT: number; PL: number; OH: number; OW: number;
}

export function unfoldOf(node: Node, x: readonly number[]): Unfold {
  if (x.length !== 4) throw modelError(node, 'Im2col takes [N, C, H, W]');
  const [N, C, H, W] = x;
  const [KH, KW] = attrInts(node, 'kernel_shape');
  const [SH, SW] = attrInts(node, 'strides', [1, 1]);
  const [DH, DW] = attrInts(node, 'dilations', [1, 1]);
  const [PT, PL, PB, PR] = attrInts(node, 'pads', [0, 0, 0, 0]);
  const OH = Math.floor((H + PT + PB - (DH * (KH - 1) + 1)) / SH) + 1;
  const OW = Math.floor((W + PL + PR - (DW * (KW - 1) + 1)) / SW) + 1;
  if (OH < 1 || OW < 1) throw modelError(node, 'the window is larger than the padded input');
  return { N, C, H, W, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW };
}

/**
 * Im2col (domain firmgen): the windows of a convolution as the rows of a matrix, so that the convolution is a matrix
 * product by its weights [C * KH * KW, O]: row (n, oh, ow), column (c, kh, kw) holds x[n, c, oh * SH - PT + kh * DH,
 * ow * SW - PL + kw * DW], 0 outside the input (the convolution's zero padding). Pure data movement.
 */
export const im2colOp: OpSpec = {
  ops: ['Im2col'],
  shape(node, inputs) {
    const u = unfoldOf(node, need(node, inputs, 0).shape);
    return [[u.N * u.OH * u.OW, u.C * u.KH * u.KW]];
  },
  range: (node, inputs) => {
    const r = rangeOfInfo(inputs[0]);
    return [{ min: Math.min(r.min, 0), max: Math.max(r.max, 0) }];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const u = unfoldOf(node, x.shape);
    const cols = u.C * u.KH * u.KW;
    const out = ndarray(x.dtype, [u.N * u.OH * u.OW, cols]);
    for (let n = 0; n < u.N; n++) {
      for (let oh = 0; oh < u.OH; oh++) {
        for (let ow = 0; ow < u.OW; ow++) {
          const row = ((n * u.OH + oh) * u.OW + ow) * cols;
          for (let c = 0; c < u.C; c++) {
            for (let kh = 0; kh < u.KH; kh++) {
              const ih = oh * u.SH - u.PT + kh * u.DH;
              for (let kw = 0; kw < u.KW; kw++) {
                const iw = ow * u.SW - u.PL + kw * u.DW;
                const inside = ih >= 0 && ih < u.H && iw >= 0 && iw < u.W;
                out.data[row + (c * u.KH + kh) * u.KW + kw] = inside ? x.data[((n * u.C + c) * u.H + ih) * u.W + iw] : 0;
              }
            }
          }
        }
      }
    }
    return [out];
  },
};
