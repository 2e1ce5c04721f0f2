import { int } from '../../../quantize/builder.js';
import type { Node } from '../../../ir/graph.js';
import { unsupported, type LoweringContext } from './context.js';
import { siteOf, typeRange, type QTensor } from './emit.js';

/*
 * Div of two dequantized tensors (LayerNorm's (x - mean) / std as torch exports it, each op quantized): the quotient
 * in output codes is (a - za)·c/(b - zb) + zy with c = sa/(sb·sy), and c/(b - zb) takes one of 256 values, one per
 * code of b. A table R[b] = round(2^k·c/(b - zb)) read by Gather, times a - za (an int32 Mul), divided by 2^k with
 * RequantShift's rounding, gives it. k is the largest that keeps |a - za|·|R| in int32, so R's rounding moves an
 * output by at most |y|·2^-(k+1)·|b - zb|/c: about 2^-9 of a step. A divisor code at its zero point (a real 0;
 * onnxruntime gives ±inf, saturating) takes the largest entry the int32 product allows: beyond every other divisor,
 * saturating where that does.
 */

/** The pending Div (context.ts Pending). */
export interface DividePending { kind: 'div'; node: Node; a: QTensor; b: QTensor }

const INT32_TOP = 2147483647;

export function emitDivide(ctx: LoweringContext, p: DividePending, y: QTensor, clip: [number, number]): void {
  const { w } = ctx;
  const site = siteOf(p.node);
  const base = p.node.name;
  const { a, b } = p;
  const c = (a.scale / b.scale) / y.scale;
  const [al, ah] = typeRange(a.dtype);
  const A = Math.max(Math.abs(al - a.zp), Math.abs(ah - a.zp));
  // The largest entry, at |b - zb| = 1, is 2^k·c; A times it stays in int32.
  const top = Math.floor(INT32_TOP / A);
  const k = Math.min(30, Math.floor(Math.log2(top / c)));
  if (k < 8) throw unsupported(site, `a quotient scale of ${c} output steps per divisor step leaves the divisor table ${k} fraction bits (8 needed)`);
  const table = Array.from({ length: 256 }, (_, i) => {
    const code = b.dtype === 'int8' && i >= 128 ? i - 256 : i;
    return code === b.zp ? top : Math.round((2 ** k * c) / (code - b.zp));
  });
  // Gather reads an entry per code: an int8 code's negative values index from the end, as i - 256 is stored.
  const t = w.constant(`${base}_recip`, 'int32', [256], table);
  const r = w.b.tensor(w.fresh(`${base}_r`), 'int32', []);
  w.node('Gather', `${base}_recip`, [t, b.name], [r], { axis: int(0) });
  let centred = a.name;
  if (a.zp !== 0) {
    const z = w.constant(`${base}_za`, 'int32', [1], [a.zp]);
    centred = w.b.tensor(w.fresh(`${base}_centred`), 'int32', []);
    w.node('Sub', `${base}_centre`, [a.name, z], [centred]);
  }
  const prod = w.b.tensor(w.fresh(`${base}_prod`), 'int32', []);
  w.node('Mul', base, [centred, r], [prod]);
  w.requantize(site, base, prod, [2 ** -k], undefined, 0, y, clip);
}
