/**
 * Runs `body(i, lane)` for i = 0, 1, ... on `n` concurrent lanes (each lane awaits its own case before taking the
 * next index) until `count` cases were started or `stop()` says so. Each case must draw its randomness from its
 * index alone, so a seed gives the same cases whatever the number of lanes and their timing.
 */
export async function inLanes(n: number, count: number, stop: () => boolean, body: (i: number, lane: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (k: number): Promise<void> => {
    while (next < count && !stop()) await body(next++, k);
  };
  await Promise.all(Array.from({ length: Math.max(1, n) }, (_, k) => lane(k)));
}

/** A case's own seed from the run's seed and the case index (stable under any lane count). */
export function caseSeedOf(seed: number, salt: number, i: number): number {
  return (Math.imul(seed ^ salt, 0x9e3779b1) + Math.imul(i + 1, 0x85ebca6b)) >>> 0;
}
