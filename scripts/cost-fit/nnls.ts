/**
 * Non-negative least squares, min ||A x - b|| subject to x >= 0 (Lawson and Hanson's active-set method): the cost of a
 * unit of work is never negative, and a class the calibration cannot separate from another stays at zero rather
 * than taking a negative value that cancels its neighbour. Small dense problems only (tens of rows, ~10 columns).
 */
export function nnls(A: number[][], b: number[], maxIter = 200): number[] {
  const n = A[0]?.length ?? 0;
  const x = new Array<number>(n).fill(0);
  const passive = new Array<boolean>(n).fill(false);
  const gradient = (): number[] => {
    const r = b.map((bi, i) => bi - A[i].reduce((s, a, j) => s + a * x[j], 0));
    return Array.from({ length: n }, (_, j) => A.reduce((s, row, i) => s + row[j] * r[i], 0));
  };
  for (let iter = 0; iter < maxIter; iter++) {
    const w = gradient();
    let best = -1;
    for (let j = 0; j < n; j++) if (!passive[j] && w[j] > 1e-9 * (1 + Math.abs(w[j])) && (best < 0 || w[j] > w[best])) best = j;
    if (best < 0) return x;
    passive[best] = true;
    for (;;) {
      const z = leastSquares(A, b, passive);
      const bad = z.some((v, j) => passive[j] && v <= 0);
      if (!bad) {
        for (let j = 0; j < n; j++) x[j] = passive[j] ? z[j] : 0;
        break;
      }
      // Step towards z until the first passive variable reaches zero, and drop it.
      let alpha = 1;
      for (let j = 0; j < n; j++) if (passive[j] && z[j] <= 0) alpha = Math.min(alpha, x[j] / (x[j] - z[j]));
      for (let j = 0; j < n; j++) {
        x[j] += alpha * ((passive[j] ? z[j] : 0) - x[j]);
        if (passive[j] && Math.abs(x[j]) < 1e-12) passive[j] = false;
      }
    }
  }
  return x;
}

/** Unconstrained least squares over the columns in `use` (normal equations, Gaussian elimination with pivoting). */
function leastSquares(A: number[][], b: number[], use: boolean[]): number[] {
  const cols = use.map((u, j) => (u ? j : -1)).filter((j) => j >= 0);
  const k = cols.length;
  const M = cols.map((p) => [...cols.map((q) => A.reduce((s, row) => s + row[p] * row[q], 0)), A.reduce((s, row, i) => s + row[p] * b[i], 0)]);
  for (let c = 0; c < k; c++) {
    let piv = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
    [M[c], M[piv]] = [M[piv], M[c]];
    const d = M[c][c] || 1e-300;
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = M[r][c] / d;
      for (let q = c; q <= k; q++) M[r][q] -= f * M[c][q];
    }
  }
  const out = new Array<number>(use.length).fill(0);
  cols.forEach((j, i) => (out[j] = M[i][k] / (M[i][i] || 1e-300)));
  return out;
}
