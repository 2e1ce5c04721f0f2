/**
 * A matrix product on the analog core, partitioned as the firmware partitions it (docs/brainscales2.md "Mapping",
 * Partitioning): the input dimension in blocks of 128 signed rows, the outputs in blocks of 256 columns; block t of
 * the layer (column blocks outer, row blocks inner) is written to array (firstArray + t) mod 2 at row 0, column 0, then
 * every input vector runs on it in order; the int8 results of a column's row blocks are summed digitally and clipped
 * to int8. The emulated firmware makes the same calls in the same order, so with the same chip it gives the same values.
 */
import { AnalogChip } from './chip-model.js';
import { ARRAYS, COLUMNS, SIGNED_ROWS } from './constants.js';

export interface AnalogLayer {
  /** Inputs in [0, 31]: M vectors of K. */
  x: ArrayLike<number>;
  /** Weights in [-63, 63]: K x N, row-major. */
  w: ArrayLike<number>;
  M: number;
  K: number;
  N: number;
  numSends: number;
  gain: number;
  /** The array the layer's first block goes to. */
  firstArray: number;
}

export function rowBlocks(K: number): number {
  return Math.ceil(K / SIGNED_ROWS);
}

export function colBlocks(N: number): number {
  return Math.ceil(N / COLUMNS);
}

/** The analog results of every row block: [row block][m][n], int8, before the digital sum. */
export function analogBlocks(chip: AnalogChip, l: AnalogLayer): number[][] {
  const { M, K, N } = l;
  const local = Array.from({ length: rowBlocks(K) }, () => new Array<number>(M * N).fill(0));
  let t = 0;
  for (let cb = 0; cb < colBlocks(N); cb++) {
    const c0 = cb * COLUMNS;
    const cols = Math.min(COLUMNS, N - c0);
    for (let rb = 0; rb < rowBlocks(K); rb++) {
      const r0 = rb * SIGNED_ROWS;
      const rows = Math.min(SIGNED_ROWS, K - r0);
      const array = (l.firstArray + t) % ARRAYS;
      t++;
      chip.configure(array, 0, 0, rows, cols, (r, c) => l.w[(r0 + r) * N + c0 + c]);
      for (let m = 0; m < M; m++) {
        const xs = Array.from({ length: rows }, (_, r) => l.x[m * K + r0 + r]);
        const out = chip.run(array, 0, 0, rows, cols, xs, l.numSends, l.gain);
        for (let c = 0; c < cols; c++) local[rb][m * N + c0 + c] = out[c];
      }
    }
  }
  return local;
}

/** The layer's int8 outputs (M x N) on `chip`: the blocks' results summed digitally and clipped. */
export function analogMatmul(chip: AnalogChip, l: AnalogLayer): number[] {
  const local = analogBlocks(chip, l);
  return Array.from({ length: l.M * l.N }, (_, i) => {
    const v = local.reduce((s, b) => s + b[i], 0);
    return v < -128 ? -128 : v > 127 ? 127 : v;
  });
}
