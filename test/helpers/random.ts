/**
 * Seeded pseudo-random numbers for reproducible property tests (mulberry32: 32-bit state, full period, enough
 * for test data; not for anything that needs statistical quality).
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Uniform float in [lo, hi), rounded to float32. */
  float(lo: number, hi: number): number {
    return Math.fround(lo + this.next() * (hi - lo));
  }

  ints(n: number, lo: number, hi: number): number[] {
    return Array.from({ length: n }, () => this.int(lo, hi));
  }

  floats(n: number, lo: number, hi: number): number[] {
    return Array.from({ length: n }, () => this.float(lo, hi));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
}
