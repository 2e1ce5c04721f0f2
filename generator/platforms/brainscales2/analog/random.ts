/**
 * The integer random numbers of the BrainScaleS-2 analog model, written operation for operation like the emulator's
 * (emulator/assembly/brainscales2/random.ts) so that both draw the same values: 32-bit integer hashing and xorshift32
 * on unsigned 32-bit words, and Gaussian draws made only of IEEE f64 operations that are exact here and in wasm
 * (a u32 divided by 2^32, sums of twelve such, minus 6): no Math.log/cos/exp, whose last bit differs between V8 and
 * AssemblyScript's Math.
 */

/** A 32-bit avalanche hash (the "lowbias32" multipliers of Wellons' hash-prospector): u32 in, u32 out. */
export function mix32(h: number): number {
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** A non-zero xorshift32 state for a key (xorshift32 stays at 0 forever, so bit 0 is set). */
export function seedOf(key: number): number {
  return (mix32(key >>> 0) | 1) >>> 0;
}

/** xorshift32 (Marsaglia 2003, shifts 13, 17, 5): a stream of u32, the state kept by the caller. */
export class XorShift32 {
  constructor(public state: number) {}

  next(): number {
    let x = this.state;
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    this.state = x;
    return x;
  }

  /**
   * An approximately standard normal value: the Irwin-Hall sum of 12 uniforms in [0, 1), minus 6 (mean 0,
   * variance 1, tails cut at +-6). Exact in f64: each uniform is k / 2^32 and their sum k' / 2^32 with k' < 2^36.
   */
  gauss(): number {
    let s = 0;
    for (let i = 0; i < 12; i++) s += this.next() / 4294967296;
    return s - 6;
  }
}

/** One Gaussian draw keyed by `key` alone (fixed-pattern noise: the same chip seed gives the same value). */
export function keyedGauss(key: number): number {
  return new XorShift32(seedOf(key)).gauss();
}
