import { GenError } from '../errors.js';
import { tensorOf } from '../ir/graph.js';
import { typeNames } from './common.js';
import type { KernelDef } from './types.js';
import { bigRange, maxAbs, rowAccepts, rowsOf, siteOf, wordFor } from './words.js';

/*
 * TableSoftmax (SEMANTICS.md section 1; reference/ops/table-softmax.ts): per row of the last axis, the max, the sum
 * of table[max - x], then table[max - x]·mul / (sum·2^shift) rounded half up, the zero point added and clipped.
 * Cores take contiguous ranges of rows, so a row's max and sum never cross cores. The words of the sum, the
 * numerator and the denominator come from the table's values and the row length (int64 where they need it).
 */
export const tableSoftmaxKernel: KernelDef = {
  name: 'tablesoftmax',
  template: 'table-softmax',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['TableSoftmax'], 'a TableSoftmax'),
  view({ node, graph }) {
    const site = siteOf(node);
    const { x, y, L, rows } = rowsOf(node, graph);
    const t = tensorOf(graph, node.inputs[1]);
    // By range, not data: a tile's copy of the table (siracusa, in L1) keeps the range of the constant.
    const entries = bigRange(t);
    if (entries.lo < 0n) throw new GenError('model', 'the table of a TableSoftmax holds a negative entry', site);
    const { lo, hi } = bigRange(x);
    // Every index max - x of a row lies in [0, hi - lo].
    if (hi - lo >= BigInt(t.shape[0])) throw new GenError('unsupported', `codes in [${lo}, ${hi}] index beyond the table's ${t.shape[0]} entries`, site);
    const [mul, shift, zp, outLo, outHi] = ['mul', 'shift', 'zero_point', 'lo', 'hi'].map((k) => Number(node.attrs[k]?.kind === 'int' ? node.attrs[k].value : NaN));
    if (!(mul > 0) || !(shift >= 0 && shift <= 62)) throw new GenError('model', `mul ${mul} and shift ${shift}: mul > 0, 0 <= shift <= 62`, site);
    const eMax = entries.hi;
    const den = BigInt(L) * eMax * 2n ** BigInt(shift);
    const num = eMax * BigInt(mul) + den / 2n;
    const sT = wordFor(maxAbs(num, den), 'the row sum times 2^shift', site);
    // The quotient is at most mul/2^shift + 1 (an entry is at most the row's sum).
    wordFor(BigInt(mul) / 2n ** BigInt(shift) + 1n + BigInt(Math.abs(zp)), 'the output before its clip', site);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 't', tensor: t.name, dtype: t.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        rows, L, sT, shift, zp, lo: outLo, hi: outHi,
        mul: { c: sT.wide ? `${mul}LL` : `${mul}`, as: `(<${sT.as}>${mul})` },
        x: typeNames(x.dtype), t: typeNames(t.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};
