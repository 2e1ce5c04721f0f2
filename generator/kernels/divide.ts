/**
 * Division by a constant as a multiply and a shift (the C's FG_DIVC, runtime/c/include/firmgen_hal.h), for index
 * arithmetic in kernel loops: gcc 12 compiles `x / d` with d a constant to a hardware div on rv32 (3-35 cycles on
 * CV32E40P, HARDWARE.md "core timing"), a mul and a shift take 2.
 *
 * With m = ceil(2^s / d) and e = m d - 2^s (0 <= e < d): x m / 2^s = x / d + x e / (d 2^s). When x e < 2^s the
 * added part is below 1/d, and x / d's fraction is at most (d - 1) / d, so the floor is x / d's for every
 * 0 <= x < bound (bound e <= 2^s). The product must stay in 32 bits: (bound - 1) m < 2^32.
 */
export interface ConstDivision {
  m: number;
  s: number;
}

export function constDivision(d: number, bound: number): ConstDivision | null {
  if (!Number.isInteger(d) || d < 1 || !Number.isInteger(bound) || bound < 1) return null;
  for (let s = 0; s < 32; s++) {
    const p = 2 ** s;
    const m = Math.ceil(p / d);
    const e = m * d - p;
    if ((bound - 1) * m >= 2 ** 32) return null;
    if (bound * e <= p) return { m, s };
  }
  return null;
}

/** x / d as C for 0 <= x < bound: a shift by a power of two, FG_DIVC where a 32-bit multiply is exact, else `/`. */
export function cDivide(x: string, d: number, bound: number): string {
  if (d === 1) return x;
  if (Number.isInteger(Math.log2(d))) return `(int32_t)((uint32_t)(${x}) >> ${Math.log2(d)})`;
  const c = constDivision(d, bound);
  return c ? `FG_DIVC(${x}, ${c.m}u, ${c.s})` : `(${x}) / ${d}`;
}

/**
 * C declarations splitting a unit index `x` (0 <= x < bound) into mixed-radix digits, innermost first: digit i is
 * (x / (r0 ... r(i-1))) % ri, the last one (radix undefined) the quotient left. Each quotient is taken once and the
 * digit by a multiply-subtract; divisions through cDivide. `temp` prefixes the quotients' names (unique per scope).
 */
export function cDigits(x: string, bound: number, digits: { name: string; radix?: number }[], temp: string): string {
  const lines: string[] = [];
  let rest = x;
  let restBound = bound;
  digits.forEach((dig, i) => {
    if (dig.radix === undefined) {
      lines.push(`int32_t ${dig.name} = ${rest};`);
      return;
    }
    const q = `${temp}${i}`;
    lines.push(`const int32_t ${q} = ${cDivide(rest, dig.radix, restBound)};`);
    lines.push(`int32_t ${dig.name} = ${rest} - ${q} * ${dig.radix};`);
    rest = q;
    restBound = Math.floor((restBound - 1) / dig.radix) + 1;
  });
  return lines.join(' ');
}
