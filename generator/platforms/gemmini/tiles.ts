/**
 * Tile sizes of a loop_ws product, in blocks of 16: as gemmini.h's tiled_matmul_auto does it, grow the tile one
 * block at a time along K, J and I in turn while A's and B's blocks fit half the scratchpad and C's half the
 * accumulator (the other halves hold the next tile while this one computes), never past the product's own size.
 * Figures: HARDWARE.md "Gemmini" (scratchpad 4 banks x 4096 rows, accumulator 1024 rows, 16 elements a row).
 */
const SPAD_ROWS = 4 * 4096;
const ACC_ROWS = 1024;
const DIM = 16;

export interface Blocks {
  I: number;
  J: number;
  K: number;
}

export function fits(t: Blocks): boolean {
  return (t.I * t.K + t.K * t.J) * DIM <= SPAD_ROWS / 2 && t.I * t.J * DIM <= ACC_ROWS / 2;
}

export function loopWsTiles(total: Blocks): Blocks {
  const t: Blocks = { I: 1, J: 1, K: 1 };
  for (let grew = true; grew;) {
    grew = false;
    for (const d of ['K', 'J', 'I'] as const) {
      if (t[d] >= total[d]) continue;
      const next = { ...t, [d]: t[d] + 1 };
      if (fits(next)) {
        t[d]++;
        grew = true;
      }
    }
  }
  return t;
}
