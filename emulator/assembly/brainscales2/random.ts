// The integer random numbers of the BrainScaleS-2 analog model, written operation for operation like the generator's
// reference (generator/platforms/brainscales2/analog/random.ts): the same hash, the same xorshift32 stream, Gaussian
// draws from exact f64 operations only (a u32 over 2^32, twelve of them summed, minus 6), so both draw equal values.

/** A 32-bit avalanche hash (the "lowbias32" multipliers of Wellons' hash-prospector). */
export function mix32(h: u32): u32 {
  h ^= h >> 16;
  h *= 0x7feb352d;
  h ^= h >> 15;
  h *= 0x846ca68b;
  return h ^ (h >> 16);
}

/** A non-zero xorshift32 state for a key. */
export function seedOf(key: u32): u32 {
  return mix32(key) | 1;
}

/** One xorshift32 step (Marsaglia 2003, shifts 13, 17, 5). */
// @ts-ignore: decorator
@inline export function xorshift(x: u32): u32 {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

let gaussState: u32 = 1;

/** Irwin-Hall: twelve uniforms in [0, 1) from the stream at `state`, minus 6; gaussNext() then holds the state. */
export function gaussFrom(state: u32): f64 {
  let x = state;
  let s: f64 = 0;
  for (let i = 0; i < 12; i++) {
    x = xorshift(x);
    s += <f64>x / 4294967296.0;
  }
  gaussState = x;
  return s - 6.0;
}

/** The stream state after the last gaussFrom. */
export function gaussNext(): u32 {
  return gaussState;
}

/** One Gaussian draw keyed by `key` alone (fixed-pattern noise). */
export function keyedGauss(key: u32): f64 {
  return gaussFrom(seedOf(key));
}
