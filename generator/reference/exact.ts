/*
 * Exact integer arithmetic on JS numbers with a BigInt escape hatch.
 *
 * Tensors hold float64 values, which are exact integers below 2^53. Intermediate products of the integer dialect
 * (x*mul in a requant, Delta*eta*A in IntegerDiv) can exceed that, so every helper here returns a number while the
 * result is safely representable and switches to bigint only for the elements that need it: the fast path stays a
 * plain float64 operation plus one magnitude check.
 */

export type Exact = number | bigint;

const LIMIT = 2 ** 53;
const BIG_LIMIT = 2n ** 53n;

/** Back to a number when the bigint fits, so later steps take the fast path again. */
function settle(b: bigint): Exact {
  return b > -BIG_LIMIT && b < BIG_LIMIT ? Number(b) : b;
}

function big(a: Exact): bigint {
  return typeof a === 'bigint' ? a : BigInt(a);
}

// A float64 sum or product of integers is exact when its magnitude is below 2^53; rounding is monotone and 2^53
// is representable, so a computed magnitude below 2^53 proves the true one is too.
export function add(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (Math.abs(s) < LIMIT) return s;
  }
  return settle(big(a) + big(b));
}

export function sub(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a - b;
    if (Math.abs(s) < LIMIT) return s;
  }
  return settle(big(a) - big(b));
}

export function mul(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const p = a * b;
    if (Math.abs(p) < LIMIT) return p;
  }
  return settle(big(a) * big(b));
}

/** C-style division, truncating toward zero. */
export function tdiv(a: Exact, b: Exact): Exact {
  // With |a| + |b| < 2^53 the rounded float quotient cannot cross an integer, so trunc is exact.
  if (typeof a === 'number' && typeof b === 'number' && Math.abs(a) < 2 ** 52 && Math.abs(b) < 2 ** 52) {
    if (b === 0) throw new RangeError('integer division by zero');
    return Math.trunc(a / b) + 0; // + 0 turns -0 into 0
  }
  const bb = big(b);
  if (bb === 0n) throw new RangeError('integer division by zero');
  return settle(big(a) / bb); // bigint division truncates
}

/** Python-style division, rounding toward negative infinity. */
export function floorDiv(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number' && Math.abs(a) < 2 ** 52 && Math.abs(b) < 2 ** 52) {
    if (b === 0) throw new RangeError('integer division by zero');
    return Math.floor(a / b) + 0;
  }
  const ab = big(a);
  const bb = big(b);
  if (bb === 0n) throw new RangeError('integer division by zero');
  const q = ab / bb;
  return settle((ab % bb !== 0n) && ((ab < 0n) !== (bb < 0n)) ? q - 1n : q);
}

/**
 * Arithmetic right shift (floor division by 2^s) with numpy's semantics for out-of-range counts: a shift by 64 or
 * more, or by a negative count, gives 0 for non-negative values and -1 for negative ones.
 */
export function shr(a: Exact, s: number): Exact {
  if (s < 0 || s >= 64) return (typeof a === 'bigint' ? a < 0n : a < 0) ? -1 : 0;
  if (typeof a === 'number') return Math.floor(a / 2 ** s) + 0; // dividing by a power of two is exact
  return settle(a >> BigInt(s));
}

/** floor(sqrt(v)) for v >= 0 (0 for v <= 0, as the spec's isqrt). */
export function isqrt(v: Exact): Exact {
  if (typeof v === 'bigint') {
    if (v <= 0n) return 0;
    let x = BigInt(Math.floor(Math.sqrt(Number(v))));
    while (x * x > v) x--;
    while ((x + 1n) * (x + 1n) <= v) x++;
    return settle(x);
  }
  if (v <= 0) return 0;
  // Math.sqrt is correctly rounded, but its floor can still be off by one near perfect squares: fix it up.
  let r = Math.floor(Math.sqrt(v));
  while (r * r > v) r--;
  while ((r + 1) * (r + 1) <= v) r++;
  return r;
}

export function clip(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

export function clipExact(v: Exact, lo: number, hi: number): number {
  if (typeof v === 'number') return clip(v, lo, hi);
  return v < BigInt(lo) ? lo : v > BigInt(hi) ? hi : Number(v);
}

/** (int8_t) cast: the low 8 bits as a signed value. */
export function wrap8(v: Exact): number {
  if (typeof v === 'bigint') return Number(BigInt.asIntN(8, v));
  const m = ((v % 256) + 256) % 256;
  return m >= 128 ? m - 256 : m;
}

export function sign(v: Exact): number {
  return typeof v === 'bigint' ? (v > 0n ? 1 : v < 0n ? -1 : 0) : Math.sign(v);
}

/**
 * The value to store in a tensor. A result beyond 2^53 cannot be held exactly by a float64 tensor; it comes back
 * rounded and the interpreter's range check reports it.
 */
export function toNumber(v: Exact): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

/** Round half to even (numpy.round, nearbyint in the default rounding mode). */
export function roundHalfEven(v: number): number {
  const r = Math.round(v); // half rounds toward +infinity
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r + 0;
}
