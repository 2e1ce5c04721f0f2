import { GenError } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import type { Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';
import { alignUp, bufferUses, type BufferUse } from './lifetimes.js';
import { assignOffsets, type OffsetReport, type SolverOptions } from './offsets.js';

export interface Placement {
  region: string;
  /** Byte offset inside the region. */
  offset: number;
  bytes: number;
  kind: BufferUse['kind'];
  root: string;
}

export interface MemoryPlan {
  /** Every tensor that has memory, aliases included. */
  placements: Map<string, Placement>;
  region: string;
  arenaOffset: number;
  arenaSize: number;
  /** Bytes of the arena used: constants plus the activation peak. */
  used: number;
  /** Constants plus the largest live set: what any plan needs at least. */
  lowerBound: number;
  /** Bytes of constants and tile tables, packed at the arena's start. */
  constants: number;
  /** How the activations were placed: live-set bound, greedy peak, final peak, the solver's part. */
  activations: OffsetReport;
  /** Wall time of the plan, solver included. */
  ms: number;
  /** Constant blobs that are not tensors (tile tables): offset in the region by name. */
  blobs: Map<string, { offset: number; bytes: number }>;
}

export interface PlanOptions {
  /** Bytes of the home memory the arena may use (default: the platform's arena). */
  arenaSize?: number;
  /** Constant blobs to place with the constants (tile tables). */
  blobs?: { name: string; bytes: number }[];
  /** The exact solver behind the greedy (offsets.ts). */
  solver?: SolverOptions;
  /** Constants that live in another memory (N-EUREKA weights in the neural memory): no place in the arena. */
  elsewhere?: Set<string>;
}

const ALIGN = 4;

/**
 * Static memory plan of the home memory: every tensor has its place for the whole run. Constants are packed at the
 * arena's start (they are loaded once and live forever); activations share the rest by lifetime, placed by a greedy
 * and, when it misses the live-set bound on a small problem, by HiGHS (offsets.ts).
 */
export function planMemory(g: Graph, platform: Platform, isAliased: (nodeIndex: number) => boolean, opts: PlanOptions = {}): MemoryPlan {
  const t0 = performance.now();
  const mem = memoryOf(platform, platform.home.memory);
  const arenaOffset = platform.home.offset;
  const arenaSize = Math.min(opts.arenaSize ?? platform.home.size, mem.size - arenaOffset);
  if (opts.arenaSize !== undefined && opts.arenaSize > mem.size - arenaOffset) {
    throw new GenError('input', `--${mem.name.toLowerCase()} ${opts.arenaSize} is larger than the ${mem.size - arenaOffset} bytes ${mem.name} has for tensors`);
  }
  const uses = [...bufferUses(g, isAliased).values()].filter((u) => !opts.elsewhere?.has(u.root));
  const consts = uses.filter((u) => u.kind === 'const');
  const others = uses.filter((u) => u.kind !== 'const');

  const placed: { u: BufferUse; offset: number }[] = [];
  let cursor = 0;
  for (const u of consts) {
    placed.push({ u, offset: cursor });
    cursor += alignUp(u.bytes, ALIGN);
  }
  const blobs = new Map<string, { offset: number; bytes: number }>();
  for (const b of opts.blobs ?? []) {
    blobs.set(b.name, { offset: arenaOffset + cursor, bytes: b.bytes });
    cursor += alignUp(b.bytes, ALIGN);
  }
  const constBytes = cursor;
  const { offsets, report } = assignOffsets(others, ALIGN, opts.solver);
  const dynamic = others.map((u, i) => ({ u, offset: offsets[i] }));
  const peak = report.final;
  const used = constBytes + peak;
  const lowerBound = constBytes + report.lowerBound;
  if (used > arenaSize) {
    const biggest = [...uses].sort((a, b) => b.bytes - a.bytes)[0];
    throw new GenError(
      'capacity',
      `the model needs ${used} bytes of ${mem.name} (constants ${constBytes}, activations ${peak}; lower bound ${lowerBound}; largest tensor '${biggest.root}' ${biggest.bytes} bytes), ${arenaSize} bytes are available`,
      { file: g.source },
    );
  }
  const placements = new Map<string, Placement>();
  for (const { u, offset } of [...placed, ...dynamic.map((p) => ({ u: p.u, offset: p.offset + constBytes }))]) {
    for (const m of u.members) {
      placements.set(m, { region: mem.name, offset: arenaOffset + offset, bytes: u.bytes, kind: u.kind, root: u.root });
    }
  }
  return {
    placements, region: mem.name, arenaOffset, arenaSize, used, lowerBound, blobs, constants: constBytes, activations: report,
    ms: performance.now() - t0,
  };
}
