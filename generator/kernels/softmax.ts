import { GenError } from '../errors.js';
import { fillsPast } from '../frontend/passes/bound-by-position.js';
import { attrInt } from '../ir/attrs.js';
import { tensorOf, type Graph, type Node, type Tensor } from '../ir/graph.js';
import { byteWide, typeNames } from './common.js';
import type { KernelDef, KernelView } from './types.js';
import { bigRange, maxAbs, rowAccepts, rowsOf, siteOf, wordFor, type Site, type Word } from './words.js';

/*
 * The integer softmaxes of SEMANTICS.md, row-wise over the last axis; cores take contiguous ranges of rows, so a
 * row's max and sum never cross cores. Outputs are unsigned probabilities stored in whatever type the graph gives
 * the output. Words are chosen from value bounds (words.ts): int32 for int8 inputs, int64 where needed.
 */

const MAX32 = 2n ** 31n - 1n;

function need32(v: bigint, what: string, site: Site): void {
  if (v > MAX32) throw new GenError('unsupported', `${what} can reach ${v}, beyond the kernel's 32-bit words`, site);
}

function rowView(x: Tensor, y: Tensor, params: Record<string, unknown>): Pick<KernelView, 'args' | 'params'> {
  return {
    args: [
      { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
      { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
    ],
    params: { ...params, x: typeNames(x.dtype), y: typeNames(y.dtype) },
  };
}

/** A constant in a word's arithmetic: C needs LL past 32 bits; AS gets an explicit cast so no literal is inferred i32. */
function lit(v: bigint, w: Word): { c: string; as: string } {
  const fits = v >= -MAX32 - 1n && v <= MAX32;
  return { c: fits ? (v < 0n ? `(${v})` : `${v}`) : `(${v}LL)`, as: `(<${w.as}>(${v}))` };
}

const floorShr = (v: bigint, s: number): bigint => v >> BigInt(s); // bigint >> is a floor shift

/**
 * z = floor(v / d) for 0 <= v <= R (v = -xt, d = log2) as a multiply by a reciprocal: floor(v * m / 2^32) with
 * m = ceil(2^32 / d) and e = m * d - 2^32, exact for every v in range when R * e < 2^32 (v = q * d + r: the error
 * v * e / (d * 2^32) stays below (d - r) / d). One `mulhu` (5 cycles: the ISS's CV32E40P rule, emulator/assembly/iss/timing.ts) where gcc 12 divides by the constant
 * with `div` (3 + its leading zero bits: 25 cycles for 525, emulator/assembly/iss/timing.ts). False for a power of two
 * (gcc shifts) or where the bound fails: the division stays. The tiny-llama prompt pass on the ISS: its softmaxes of
 * log2 = 525 from 50,813-92,114 to 49,616-83,931 cycles.
 */
export function reciprocalOf(d: bigint, R: bigint): { m: string } | false {
  if (d <= 1n || (d & (d - 1n)) === 0n || R >= 1n << 31n || d >= 1n << 31n) return false;
  const p = 1n << 32n;
  const m = (p + d - 1n) / d;
  return R * (m * d - p) < p ? { m: `${m}u` } : false;
}

/**
 * The range of iSoftmax's e over entries whose xt = x - max lies in [lo - hi, 0], and the largest magnitude of any step
 * of its chain (xt, z * log2, q = p + B, q^2, A * q^2, t = A * q^2 + C), for the coefficients A, B, C and log2 > 0.
 */
export function iSoftmaxBounds(A: bigint, B: bigint, C: bigint, log2: bigint, lo: bigint, hi: bigint): { eMin: bigint; eMax: bigint; chain: bigint } {
  const xtMin = lo - hi;
  const zRaw = (hi - lo) / log2; // floor(-xt / log2) at its largest
  // Two regimes of z. Not clipped (z = floor(-xt / log2) <= 30): p = -((-xt) mod log2) in [1 - log2, 0], never below
  // xt itself, and e = t >> z. Clipped (z = 31, only where -xt reaches 31 * log2): p = xt + 31 * log2 in
  // [xtMin + 31 * log2, 0], and e = t >> 31. The chain's word holds every step of both; e's range (the row sum's and
  // the numerator's words) is each regime's own: a clipped entry's large (p + B)^2 is shifted by 31, so bounding it
  // by the smaller shift of the other regime made the tiny-llama's int16 scores' sums 64-bit where 32 bits hold them.
  const hull = (pLo: bigint) => {
    const q0 = pLo + B;
    const q1 = B; // p = 0
    const sq = [q0 * q0, q1 * q1];
    const sqMin = q0 <= 0n && q1 >= 0n ? 0n : sq[0] < sq[1] ? sq[0] : sq[1];
    const sqMax = sq[0] > sq[1] ? sq[0] : sq[1];
    return { q0, q1, sqMin, sqMax, t: [A * sqMin + C, A * sqMax + C] };
  };
  const open = hull(1n - log2 > xtMin ? 1n - log2 : xtMin);
  const zOpen = Number(zRaw < 30n ? zRaw : 30n);
  const e = [...open.t, ...open.t.map((v) => floorShr(v, zOpen))];
  const regimes = [open];
  if (zRaw >= 31n) {
    const clipped = hull(xtMin + 31n * log2);
    e.push(...clipped.t.map((v) => floorShr(v, 31)));
    regimes.push(clipped);
  }
  const eMin = e.reduce((m, v) => (v < m ? v : m));
  const eMax = e.reduce((m, v) => (v > m ? v : m));
  const steps = regimes.flatMap((r) => [r.q0, r.q1, r.sqMax, A * r.sqMin, A * r.sqMax, ...r.t]);
  return { eMin, eMax, chain: maxAbs(xtMin, 31n * log2, ...steps, A, B, C) };
}

/**
 * The bounds of iSoftmax's chain over its input's range (see below) and the words they need: the element chain's (eT)
 * and the row sum's and normalisation's (sT). Read by the kernel's view and by the tiler's estimate (a 64-bit word
 * costs an entry SOFTMAX_WIDE / SOFTMAX_SUM_WIDE more).
 */
export function iSoftmaxWords(node: Node, graph: Graph) {
  const site = siteOf(node);
  const { x, L } = rowsOf(node, graph);
  const [A, B, C, log2, n] = ['coeffA', 'coeffB', 'coeffC', 'log2', 'n_levels'].map((k) => BigInt(attrInt(node, k)));
  if (log2 <= 0n) throw new GenError('unsupported', `log2 = ${log2} must be positive`, site);
  const { lo, hi } = bigRange(x);
  const { eMin, eMax, chain } = iSoftmaxBounds(A, B, C, log2, lo, hi);
  const eT = wordFor(chain, 'the exponent', site);
  const Lb = BigInt(L);
  const sT = wordFor(maxAbs(Lb * eMin, Lb * eMax, eMin * (n - 1n), eMax * (n - 1n)), 'the row sum', site);
  // 0 <= -xt <= hi - lo: z's division in 32 bits when that fits, whatever word the chain needs (the same quotient;
  // the ISS measured a 64-bit division by a constant as a __divdi3 call of ~100 cycles an entry on rv32), as a
  // multiply by the reciprocal where log2 is not a power of two (reciprocalOf) and the input is wider than a byte:
  // from an 8-bit input gcc knows -xt within [-255, 255] and folds the division into compares, which the ISS
  // measured faster than the mulhu (softmax 64x16 on 8 cores, log2 = 255: 8,408 against 10,195 cycles).
  const z32 = hi - lo <= 2147483647n && log2 <= 2147483647n
    ? { d: String(log2), recip: byteWide(x.dtype) ? false : reciprocalOf(log2, hi - lo) } : false as const;
  return { A, B, C, log2, n, lo, hi, eMin, eMax, eT, sT, z32 };
}

/**
 * The row sum the tiler's estimate takes an iSoftmax's divisions by (Platform.divisionCycles): a row of its entries
 * all at e's largest value, within 32 bits. ASSUMPTION: the largest sum, so the fewest leading zeros and the
 * quickest division on a CV32E40P: optimistic (a decoder step's attention rows, 129 entries of 256: 7.6 to ~11
 * cycles a division measured on the ISS by layer, 4 to 6 estimated).
 */
export function iSoftmaxSumEstimate(node: Node, graph: Graph): number {
  const { L } = rowsOf(node, graph);
  const { eMax } = iSoftmaxWords(node, graph);
  const sum = BigInt(L) * eMax;
  return sum <= 0n ? 0 : sum >= 1n << 31n ? 0x7fffffff : Number(sum);
}

/**
 * The AS's extra classes per entry of an iSoftmax (isoftmax.ts.mustache): the 64-bit chain's, the 64-bit sum's, z's
 * multiply by the reciprocal, or z's division by the constant in 32 bits on an input wider than a byte (`zDiv`: gcc's
 * shifts and sign fix for a power of two, its multiply-high otherwise; from an 8-bit input it folds the division into
 * compares, SOFTMAX_ELEM's calibration).
 */
export function iSoftmaxWideCharges(node: Node, graph: Graph): { chain: boolean; sum: boolean; recip: boolean; zDiv: boolean } {
  const { eT, sT, z32 } = iSoftmaxWords(node, graph);
  const wideInput = !byteWide(rowsOf(node, graph).x.dtype);
  return { chain: eT.wide, sum: sT.wide, recip: z32 !== false && z32.recip !== false, zDiv: z32 !== false && z32.recip === false && wideInput };
}

/**
 * iSoftmax: xt = x - max; z = clip(tdiv(-xt, log2), 0, 31); p = xt + z*log2; e = (A*(p+B)^2 + C) >> z;
 * out = floor(e*(n-1) / sum(e)). Bounds of every step decide the words of the element chain (eT) and of the
 * sum and normalisation (sT).
 */
export const iSoftmaxKernel: KernelDef = {
  name: 'isoftmax',
  template: 'isoftmax',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['iSoftmax'], 'an iSoftmax'),
  view({ node, graph }) {
    const { x, y, L, rows } = rowsOf(node, graph);
    const { A, B, C, log2, n, eMin, eT, sT, z32 } = iSoftmaxWords(node, graph);
    // A position operand (a decoder's cache, quantize/stateful.ts): rows span entries 0..pos only, the rest are 0.
    const pos = node.inputs[1] ? tensorOf(graph, node.inputs[1]) : undefined;
    const v = rowView(x, y, {
      rows, L, eT, sT, n: pos ? 'len' : String(L), pos: pos ? { p: typeNames(pos.dtype), fill: fillsPast(node) } : false,
      cA: lit(A, eT), cB: lit(B, eT), cC: lit(C, eT), log2: lit(log2, eT), nm1: lit(n - 1n, sT),
      // floor division equals C's truncating one while numerator and sum are non-negative.
      floorFix: eMin < 0n,
      // The AS's extra charges per entry (isoftmax.ts.mustache): a chain, a row sum in 64-bit words; z by the
      // reciprocal or by gcc's division by the constant.
      wideChain: eT.wide, wideSum: sT.wide, z32, zDiv: iSoftmaxWideCharges(node, graph).zDiv,
    });
    if (pos) v.args.splice(1, 0, { field: 'p', tensor: pos.name, dtype: pos.dtype, write: false });
    return { ...v, macs: 0 };
  },
};

/**
 * ITAMax: sh_j = (max - x_j + 16) >> 5; S = sum(256 >> sh_j); inv = floor((n-1)*256 / S); out_j = inv >> sh_j.
 * S >= 256 (the max contributes 256) and shifts past 31 give 0, so int32 words suffice and shifts are clamped.
 */
export const itaMaxKernel: KernelDef = {
  name: 'itamax',
  template: 'itamax',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['ITAMax'], 'an ITAMax'),
  view({ node, graph }) {
    const site = siteOf(node);
    const { x, y, L, rows } = rowsOf(node, graph);
    const n = attrInt(node, 'n_levels');
    if (n < 1) throw new GenError('model', `n_levels = ${n} must be positive`, site);
    const { lo, hi } = bigRange(x);
    need32(hi - lo + 16n, 'max - x + 16', site);
    need32(BigInt(L) * 256n, 'the row sum', site);
    need32(BigInt(n - 1) * 256n, '(n_levels-1)*256', site);
    return { ...rowView(x, y, { rows, L, num: (n - 1) * 256 }), macs: 0 };
  },
};

/**
 * ITAPartialMax: the streaming form over full groups of group_width columns (SEMANTICS.md); columns past the
 * last full group take no part in the sum but get outputs. A negative output shift (a column above the final
 * running max) gives 0, as the reference's shift does for non-negative values.
 */
export const itaPartialMaxKernel: KernelDef = {
  name: 'itapartialmax',
  template: 'itapartialmax',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['ITAPartialMax'], 'an ITAPartialMax'),
  view({ node, graph }) {
    const site = siteOf(node);
    const { x, y, L, rows } = rowsOf(node, graph);
    const n = attrInt(node, 'n_levels');
    const gw = attrInt(node, 'group_width');
    if (gw <= 0) throw new GenError('model', 'group_width must be positive', site);
    if (L < gw) throw new GenError('model', `a row of ${L} holds no full group of ${gw} (the sum would be 0)`, site);
    const { lo, hi } = bigRange(x);
    const top = hi > -128n ? hi : -128n;
    need32(maxAbs(top - lo + 16n, hi + 128n + 16n), 'the exponent shift', site);
    need32(BigInt(L) * 256n, 'the row sum', site);
    if (n < 2) throw new GenError('model', `n_levels = ${n} must be at least 2`, site);
    const num = (Math.floor(n / 2) - 1) * 256;
    need32(BigInt(num), '(n_levels/2-1)*256', site);
    return { ...rowView(x, y, { rows, L, gw, groups: Math.floor(L / gw), num }), macs: 0 };
  },
};
