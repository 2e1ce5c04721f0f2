import { attrInt, attrNumber } from '../../../ir/attrs.js';
import type { Node } from '../../../ir/graph.js';
import { int } from '../../../quantize/builder.js';
import { normAxis } from '../../../reference/broadcast.js';
import { unsupported, type LoweringContext, type Value } from './context.js';
import { siteOf, typeRange, type QTensor } from './emit.js';

/*
 * LayerNormalization (last axis) between DequantizeLinear and QuantizeLinear (onnxruntime computes it in float), as
 * QLayerNorm (docs/quantized-onnx.md). In codes, with c_j = N·x_j - Σx (exactly N times x_j minus the row mean) and
 * V = Σ c_j² + N³·eps/sx²:  (x_j - mean) / sqrt(var + eps) = c_j·sqrt(N) / sqrt(V). So the output code is
 *   gamma_j·sqrt(N)/sy · c_j / sqrt(V) + beta_j/sy + zy,
 * computed as (G_j·c_j·2^frac + B_j·r) / (r·2^shift) with r = isqrt(V·4^frac), G_j = round(gamma_j·sqrt(N)/sy·2^shift),
 * B_j = round(beta_j/sy·2^shift): frac sized for r near 2^20 (below), shift as large as 64-bit words and int32 gains
 * allow, so the roundings of r, G and B move an output by far less than a step.
 */

const TOP = 2 ** 62;
const INT32_TOP = 2 ** 31 - 1;

/** x's shape rides along: a gain or bias folded in later (layernorm-chain.ts) makes another node the pending one. */
export interface LayerNormPending { kind: 'layernorm'; node: Node; x: QTensor; shape: number[]; gamma: number[]; beta: number[]; eps: number }

/** Real per-column values of a scale or bias operand: a float constant or a dequantized one. */
export function realValues(n: Node, v: Value | undefined, N: number, what: string, absent: number): number[] {
  const f32 = Math.fround;
  if (v === undefined) return new Array<number>(N).fill(absent);
  let values: number[];
  if (v.k === 'const') values = Array.from(v.data.data, f32);
  else if (v.k === 'wq') {
    const at = (a: number[], i: number): number => (a.length > 1 ? a[i] : a[0] ?? 0);
    values = Array.from(v.w.data.data, (q, i) => f32(f32(q - at(v.w.zps, i)) * f32(at(v.w.scales, i))));
  } else throw unsupported(siteOf(n), `the ${what} must be a constant (float or dequantized)`);
  if (values.length === 1) return new Array<number>(N).fill(values[0]);
  if (values.length !== N) throw unsupported(siteOf(n), `the ${what} has ${values.length} values, not one per column (${N})`);
  return values;
}

export function layerNormOp(ctx: LoweringContext, n: Node, x: QTensor): LayerNormPending {
  const shape = ctx.shapeOf(n.inputs[0]);
  const rank = shape.length;
  const axis = normAxis(attrInt(n, 'axis', -1), rank);
  if (axis !== rank - 1) throw unsupported(siteOf(n), `LayerNormalization over axes ${axis}.. of a rank-${rank} tensor (the last axis alone is lowered)`);
  if (n.outputs.length > 1 && n.outputs.slice(1).some((o) => o)) throw unsupported(siteOf(n), 'LayerNormalization with its mean or inverse deviation as outputs');
  const N = shape[rank - 1];
  const gamma = realValues(n, ctx.valueOf(n.inputs[1]), N, 'scale', 1);
  const beta = realValues(n, n.inputs[2] ? ctx.valueOf(n.inputs[2]) : undefined, N, 'bias', 0);
  return { kind: 'layernorm', node: n, x, shape, gamma, beta, eps: Math.fround(attrNumber(n, 'epsilon', 1e-5)) };
}

export function emitLayerNorm(ctx: LoweringContext, p: LayerNormPending, y: QTensor, clip: [number, number]): void {
  const site = siteOf(p.node);
  const N = p.shape[p.shape.length - 1];
  const E = Math.round((N ** 3 * p.eps) / (p.x.scale * p.x.scale));
  const [xl, xh] = typeRange(p.x.dtype);
  const cMax = N * (xh - xl);
  const vMax = N * cMax * cMax + E;
  if (!(E <= INT32_TOP) || vMax >= TOP) throw unsupported(site, `a row of ${N} entries with epsilon ${p.eps}: the sum of squares would pass 62 bits`);
  // r = sqrt(V)·2^frac near 2^20 for a row whose codes spread by 32 (V = N³·32²): its roundings then move an output by
  // about 2^-12 of a step (2^-7 for a row spread by 1), and the quotient (about the output code times r) and r fit 32
  // bits, so a 32-bit core divides in 32 bits (kernels: the same floor either way).
  let frac = 0;
  while (frac < 30 && vMax * 4 ** (frac + 1) < TOP && Math.sqrt(N ** 3 * 1024) * 2 ** (frac + 1) <= 2 ** 20) frac++;
  const rMax = Math.sqrt(vMax) * 2 ** frac + 1;
  const G = p.gamma.map((gm) => (gm * Math.sqrt(N)) / y.scale);
  const B = p.beta.map((b) => b / y.scale);
  const gMax = Math.max(...G.map(Math.abs));
  const bMax = Math.max(...B.map(Math.abs));
  const fits = (s: number): boolean => {
    const k = 2 ** s;
    return (gMax + 1) * k <= INT32_TOP && (bMax + 1) * k <= INT32_TOP && (gMax + 1) * k * cMax * 2 ** frac + (bMax + 1) * k * rMax + rMax * k < TOP;
  };
  let shift = -1;
  while (shift < 62 && fits(shift + 1)) shift++;
  if (shift < 8) throw unsupported(site, `gains up to ${gMax} output steps: the fixed-point gains would keep ${shift} fraction bits (8 needed)`);
  const w = ctx.w;
  const g = w.constant(`${p.node.name}_gain`, 'int32', [N], G.map((v) => Math.round(v * 2 ** shift)));
  const b = w.constant(`${p.node.name}_offset`, 'int32', [N], B.map((v) => Math.round(v * 2 ** shift)));
  const [tl, th] = typeRange(y.dtype);
  w.b.tensor(y.name, y.dtype, []);
  w.node('QLayerNorm', p.node.name, [p.x.name, g, b], [y.name], {
    eps: int(E), frac: int(frac), shift: int(shift), zero_point: int(y.zp), lo: int(Math.max(tl, clip[0])), hi: int(Math.min(th, clip[1])),
  });
}
