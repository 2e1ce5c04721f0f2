import type { TangramHardware } from './hardware.js';

/**
 * Regions of the engine grid: the engines a layer of a pipeline segment gets. Engines are handed out along a snake
 * (row 0 left to right, row 1 right to left, ...) so that every region is a connected run of neighbours and
 * consecutive layers sit side by side (the forwarded maps travel few hops).
 */
export interface Region {
  /** Engines as [row, col], in snake order. */
  engines: Array<[number, number]>;
  /** Sum over the engines of each one's hops to its nearest memory edge (the west and east columns' ports). */
  dramHopSum: number;
}

export function snake(hw: TangramHardware): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let r = 0; r < hw.grid.rows; r++) {
    for (let i = 0; i < hw.grid.cols; i++) out.push([r, r % 2 === 0 ? i : hw.grid.cols - 1 - i]);
  }
  return out;
}

/**
 * Hops from an engine to the memory: the DRAM channels sit at the west and east edges (nn_dataflow's '2D' memory
 * type: memory nodes along two sides); ASSUMPTION every row has a port on each edge, so an engine's distance is the
 * columns to the nearer edge plus the hop into the port. One engine alone (the monolithic array) is on the bus: 0.
 */
export function dramHops(hw: TangramHardware, col: number): number {
  if (hw.grid.rows * hw.grid.cols === 1) return 0;
  return Math.min(col + 1, hw.grid.cols - col);
}

/** Consecutive runs of the snake of the given sizes (their sum at most the grid's engines). */
export function regionsOf(hw: TangramHardware, sizes: number[]): Region[] {
  const order = snake(hw);
  const out: Region[] = [];
  let at = 0;
  for (const n of sizes) {
    const engines = order.slice(at, at + n);
    if (engines.length !== n) throw new Error(`regions: ${sizes.join('+')} engines exceed the grid's ${order.length}`);
    at += n;
    out.push({ engines, dramHopSum: engines.reduce((sum, [, c]) => sum + dramHops(hw, c), 0) });
  }
  return out;
}

/**
 * Hops a forwarded map travels between two regions: the Manhattan distance of their centres, at least one
 * (ASSUMPTION: a producer's engines send to the consumer's engines spread evenly, so the mean distance is that of
 * the centres).
 */
export function hopsBetween(a: Region, b: Region): number {
  const centre = (r: Region): [number, number] => [
    r.engines.reduce((s, e) => s + e[0], 0) / r.engines.length,
    r.engines.reduce((s, e) => s + e[1], 0) / r.engines.length,
  ];
  const [ar, ac] = centre(a);
  const [br, bc] = centre(b);
  return Math.max(1, Math.abs(ar - br) + Math.abs(ac - bc));
}

/**
 * Engines per layer of a segment: proportional to the layers' operations (so the stages take about equal time),
 * at least one each, by largest remainder with ties to the earlier layer (deterministic). Undefined when the
 * segment has more layers than the grid has engines.
 */
export function shareEngines(ops: number[], total: number): number[] | undefined {
  if (ops.length > total) return undefined;
  const sum = ops.reduce((a, b) => a + b, 0);
  const spare = total - ops.length;
  const exact = ops.map((o) => (sum > 0 ? (o / sum) * spare : spare / ops.length));
  const sizes = exact.map((x) => 1 + Math.floor(x));
  let left = total - sizes.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, rem: x - Math.floor(x) })).sort((a, b) => b.rem - a.rem || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    sizes[i]++;
    left--;
  }
  return sizes;
}
