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
  /** Tensors at home in the far memory (Siracusa L3), when the home memory could not hold them all. */
  far?: FarPlan;
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
  /** Tensors (alias roots) at home in the platform's far memory (Siracusa L3; midend/l3.ts), and its bytes. */
  far?: { roots: Set<string>; size: number };
  /** Return a plan that overflows the arena instead of failing (the L3 spill loop measures by how much). */
  allowOverflow?: boolean;
}

/** The plan of the far memory (Siracusa L3): tensors staged through the home memory by copy layers. */
export interface FarPlan {
  region: string;
  size: number;
  used: number;
  lowerBound: number;
  constants: number;
  activations: OffsetReport;
  tensors: number;
}

const ALIGN = 4;

/** Constants packed at offset 0, then the blobs, then activations placed by lifetime: offsets within one level. */
function planLevel(uses: BufferUse[], blobs: { name: string; bytes: number }[], solver?: SolverOptions, align = ALIGN) {
  const placed: { u: BufferUse; offset: number }[] = [];
  let cursor = 0;
  for (const u of uses.filter((x) => x.kind === 'const')) {
    placed.push({ u, offset: cursor });
    cursor += alignUp(u.bytes, align);
  }
  const blobOffsets = new Map<string, number>();
  for (const b of blobs) {
    blobOffsets.set(b.name, cursor);
    cursor += alignUp(b.bytes, align);
  }
  const constBytes = cursor;
  const others = uses.filter((x) => x.kind !== 'const');
  const { offsets, report } = assignOffsets(others, align, solver);
  others.forEach((u, i) => placed.push({ u, offset: constBytes + offsets[i] }));
  return { placed, blobOffsets, constBytes, report, used: constBytes + report.final, lowerBound: constBytes + report.lowerBound };
}

/**
 * Static memory plan of the home memory: every tensor has its place for the whole run. Constants are packed at the
 * arena's start (they are loaded once and live forever); activations share the rest by lifetime, placed by a greedy
 * and, when it misses the live-set bound on a small problem, by HiGHS (offsets.ts). Tensors at home in the far
 * memory (L3) get their own plan there, the same way.
 */
export function planMemory(g: Graph, platform: Platform, isAliased: (nodeIndex: number) => boolean, opts: PlanOptions = {}): MemoryPlan {
  const t0 = performance.now();
  const mem = memoryOf(platform, platform.home.memory);
  const arenaOffset = platform.home.offset;
  const arenaSize = Math.min(opts.arenaSize ?? platform.home.size, mem.size - arenaOffset);
  if (opts.arenaSize !== undefined && opts.arenaSize > mem.size - arenaOffset) {
    throw new GenError('input', `--${mem.name.toLowerCase()} ${opts.arenaSize} is larger than the ${mem.size - arenaOffset} bytes ${mem.name} has for tensors`);
  }
  const all = [...bufferUses(g, isAliased, platform.layerGroups?.(g)).values()].filter((u) => !opts.elsewhere?.has(u.root));
  const isFar = (u: BufferUse): boolean => opts.far?.roots.has(u.root) ?? false;
  const uses = all.filter((u) => !isFar(u));
  const home = planLevel(uses, opts.blobs ?? [], opts.solver, platform.tensorAlign);
  const { used, lowerBound, constBytes } = home;
  const placements = new Map<string, Placement>();
  const place = (region: string, base: number, list: { u: BufferUse; offset: number }[]): void => {
    for (const { u, offset } of list) {
      for (const m of u.members) placements.set(m, { region, offset: base + offset, bytes: u.bytes, kind: u.kind, root: u.root });
    }
  };
  place(mem.name, arenaOffset, home.placed);
  const blobs = new Map<string, { offset: number; bytes: number }>();
  for (const b of opts.blobs ?? []) blobs.set(b.name, { offset: arenaOffset + home.blobOffsets.get(b.name)!, bytes: b.bytes });
  let far: FarPlan | undefined;
  if (opts.far && opts.far.roots.size > 0) {
    const region = platform.far?.memory;
    if (!region) throw new GenError('internal', `${platform.name} has no far memory for tensors`);
    const farUses = all.filter(isFar);
    const level = planLevel(farUses, [], opts.solver);
    if (level.used > opts.far.size) {
      const biggest = [...farUses].sort((a, b) => b.bytes - a.bytes)[0];
      throw new GenError(
        'capacity',
        `the tensors moved to ${region} need ${level.used} bytes there (largest '${biggest.root}' ${biggest.bytes} bytes), ${opts.far.size} bytes are available`,
        { file: g.source },
      );
    }
    place(region, 0, level.placed);
    far = {
      region, size: opts.far.size, used: level.used, lowerBound: level.lowerBound, constants: level.constBytes,
      activations: level.report, tensors: farUses.length,
    };
  }
  const plan: MemoryPlan = {
    placements, region: mem.name, arenaOffset, arenaSize, used, lowerBound, blobs, constants: constBytes, activations: home.report,
    far, ms: performance.now() - t0,
  };
  if (used > arenaSize && !opts.allowOverflow) throw overflowError(plan, g);
  return plan;
}

/** The home memory's overflow as the user sees it: which memory, how much, and the largest tensor. */
export function overflowError(plan: MemoryPlan, g: Graph): GenError {
  const biggest = [...plan.placements.values()].filter((p) => p.region === plan.region).sort((a, b) => b.bytes - a.bytes)[0];
  return new GenError(
    'capacity',
    `the model needs ${plan.used} bytes of ${plan.region} (constants ${plan.constants}, activations ${plan.activations.final}; ` +
    `lower bound ${plan.lowerBound}; largest tensor '${biggest?.root}' ${biggest?.bytes} bytes), ${plan.arenaSize} bytes are available`,
    { file: g.source },
  );
}
