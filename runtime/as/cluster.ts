// Fork/join on the cluster, emulated sequentially: each core's share runs in turn after chip.enter(core), so the
// emulator charges its work to that core's clock. AssemblyScript has no capturing closures: `fn` is a top-level
// function and `args` points at its argument struct (docs/firmware-abi.md, "Closures").
//
// A barrier cannot sit inside `fn` (core 0 would pass it before core 1 has started). Split the work at the
// barrier into phases instead:  cluster_begin(); cluster_run(phase1, a); cluster_barrier(); cluster_run(phase2, a);
// cluster_end();  -- every share of phase 1 has run before any of phase 2, as on the chip.

import * as chip from "./chip";
import { CODE_BYTE, CODE_LAYER, CODE_NEXT, CODE_RUN, CODE_SHAPE, CODE_TILES, LAYER, SHARE } from "./cost";

/** Team size a fork gets by default: the chip's cluster cores, or 1 (the master) where there is no cluster. */
const DEFAULT_TEAM: i32 = max(1, chip.core_count());

let team: i32 = 0;
let coreId: i32 = -1;
/** The team's LAYER work is still to be charged: core 0 does it as soon as it first runs (enterCore). */
let layerDue = false;
/**
 * Units of CODE_RUN the next layer's LAYER comes with (enterCore): one for a run's first layer (the shared level of the
 * instruction cache is empty), one for an N-EUREKA layer (layer_cold: core 0's path of its own). A run whose first
 * layer is an N-EUREKA one pays both: EEGFormer's MatMul_19 ran 12 % over one unit on the ISS, 66 lines from L2 against
 * its later N-EUREKA layers' 32 (docs/timing-journal.md "A run's first layer on N-EUREKA: both cold starts").
 */
let coldStarts: i32 = 1;
/** Bytes of the current layer's C (layer_code), and the cores that have fetched it since (bit c: core c). */
let codeBytes: i32 = 0;
let codeFetched: u32 = 0;
/**
 * Of codeBytes, the tile loop's before the kernel (core 0 fetches it before tile 0's transfers start: tile_loop_code;
 * the other cores on their way to the first barrier, where they wait for those transfers anyway) and after it (core
 * 0's first write-back: tile_store_code); neither is fetched at a core's share.
 */
let loopBefore: i32 = 0;
let loopAfter: i32 = 0;
let beforeDue = false;
let afterDue = false;
/** The current layer is tiled and core 0 has not yet fetched its tile loop's HAL code (CODE_TILES). */
let tilesDue = false;
/**
 * Compiled bytes of the code the cores fetched since core 0 last ran the tile loop's shared code (the record walkers
 * every tiled layer calls, runtime/c/include/firmgen_tiles.h FG_TILE_SHARED, and the DMA HAL); -1: never in this run.
 */
let codeSinceTiles: f64 = -1;
/** The current layer is tiled and core 0 has not yet fetched its tile loop's code for a second tile on (CODE_NEXT). */
let nextDue = false;
/**
 * The current layer's kernel functions (a tiled layer's tile shapes, each its own function as in the C) in the order
 * they first ran, and per function the cores that have run it (bit c: core c). The first is the layer's code
 * (CODE_LAYER, CODE_BYTE); a core's first run of a further one costs CODE_SHAPE. A layer has at most a few shapes
 * (midend/tiling/layer-plan.ts: a remainder or a clipped edge per split axis); past MAX_SHAPES none is charged.
 */
const MAX_SHAPES: i32 = 16;
const shapeFns = new StaticArray<u32>(MAX_SHAPES);
const shapeCores = new StaticArray<u32>(MAX_SHAPES);
let shapeCount: i32 = 0;

/**
 * The layer that starts now has `bytes` of code of its own (its kernel and tile code as the generator estimates gcc
 * compiles them, or as the C build made them where the runner has the build: chip.layer_code_bytes; `tiled` != 0: a
 * tile loop): each core fetches it cold the first time it runs in the layer (CODE_LAYER, CODE_BYTE, CODE_TILES:
 * runtime/as/cost.ts). Called by the network skeleton after layer_begin.
 */
export function layer_code(bytes: i32, tiled: i32, before256: i32 = 0, after256: i32 = 0): void {
  // the layer that ends: its first kernel function and tile loop, and each further tile shape's function, taken to be
  // as large (ASSUMPTION: a shape differs from the first by its constants only)
  if (codeSinceTiles >= 0) codeSinceTiles += <f64>codeBytes * <f64>max(1, shapeCount);
  codeBytes = chip.layer_code_bytes(bytes);
  loopBefore = tiled != 0 ? <i32>(<i64>codeBytes * <i64>min(128, max(0, before256)) / 256) : 0;
  loopAfter = tiled != 0 ? <i32>(<i64>codeBytes * <i64>min(128, max(0, after256)) / 256) : 0;
  beforeDue = loopBefore > 0;
  afterDue = loopAfter > 0;
  codeFetched = 0;
  tilesDue = tiled != 0;
  nextDue = tiled != 0;
  shapeCount = 0;
}

/**
 * The layer that starts now runs the runtime's code on a path of its own, as cold as a run's first layer does
 * (CODE_RUN): an N-EUREKA layer, driven by core 0 on a team of one (neureka-layer.ts.mustache), whose path the cores'
 * layers between two of them evict. ASSUMPTION: all of it cold. Priced as a later layer of the cores, a network's
 * NPU layers ran 11-19 % over their charge on the ISS (docs/timing.md "A network's state for the fixed costs").
 */
export function layer_cold(): void {
  coldStarts++;
}

/** The core running the current share (0 .. num_cores()-1); -1 outside a share. */
export function core_id(): i32 {
  return coreId;
}

/** Cores of the current team; outside a fork, the team size a fork would get. */
export function num_cores(): i32 {
  return team > 0 ? team : DEFAULT_TEAM;
}

/** Starts a team of `cores` cores (0: all); returns its size. */
export function cluster_begin(cores: i32 = 0): i32 {
  team = chip.fork(cores);
  layerDue = true;
  return team;
}

/**
 * The following work runs on team core `core`. The first time core 0 runs in a team it first does the layer's own
 * work beside its tiles and shares (LAYER, runtime/as/cost.ts): charged here, not at the fork, so that between the
 * fork and the first enter no agent runs anything (the emulator faults on work charged there).
 */
function enterCore(core: i32): void {
  coreId = core;
  chip.enter(core);
  if (core == 0 && layerDue) {
    layerDue = false;
    chip.compute(LAYER, 1);
    if (coldStarts > 0) chip.compute(CODE_RUN, coldStarts);
    coldStarts = 0;
  }
}

/**
 * The layer's code fetched cold by a core at its first share (CODE_LAYER, CODE_BYTE): charged there and not in core 0's tile
 * driving before it (cluster_core), whose code the cores would else pay twice on the layer's path (core 0 before the
 * first barrier, then each core again in its share): on the chip the driving code is a small part, and the kernel's
 * lines come once, for all cores together.
 */
function fetchCode(core: i32): void {
  if (codeBytes > 0 && core < 32 && (codeFetched >> core & 1) == 0) {
    codeFetched |= 1 << core;
    chip.compute(CODE_LAYER, 1);
    chip.compute(CODE_BYTE, codeBytes - loopBefore - loopAfter);
  }
}

/** The slot of kernel function `index` among the current layer's (shapeFns), added if new; -1 past MAX_SHAPES. */
function shapeSlot(index: u32): i32 {
  for (let s = 0; s < shapeCount; s++) if (unchecked(shapeFns[s]) == index) return s;
  if (shapeCount == MAX_SHAPES) return -1;
  unchecked((shapeFns[shapeCount] = index));
  unchecked((shapeCores[shapeCount] = 0));
  return shapeCount++;
}

/**
 * Core `core`'s cold fetch of a further kernel function of the layer (CODE_SHAPE), on a team of more than one, in a
 * layer that declared its code (layer_code: the network's layers; a bare fork's phases have none).
 */
function fetchShape(core: i32, slot: i32): void {
  if (slot <= 0 || team <= 1 || codeBytes == 0 || core >= 32 || (unchecked(shapeCores[slot]) >> core & 1) != 0) return;
  unchecked((shapeCores[slot] |= 1 << core));
  chip.compute(CODE_SHAPE, 1);
}

/** One phase: runs fn(args) as each core's share in turn. */
export function cluster_run(fn: (args: usize) => void, args: usize): void {
  const slot = shapeSlot(fn.index);
  for (let c = 0; c < team; c++) {
    enterCore(c);
    fetchCode(c);
    fetchShape(c, slot);
    fn(args);
  }
  coreId = -1;
}

/** Between phases: all cores meet. */
export function cluster_barrier(): void {
  chip.barrier();
}

/**
 * Between phases, the following work runs on team core `core` alone (a tile loop's DMA driver is core 0, as on
 * the chip); a cluster_barrier() before the next phase lets the other cores see what it did.
 */
export function cluster_core(core: i32): void {
  enterCore(core);
  // a team of one (an N-EUREKA layer's driver) runs all its code here
  if (team == 1) fetchCode(core);
}

/**
 * Core 0's fetch of the tile loop's shared code (CODE_TILES) as far as it is no longer cached, once per tiled layer:
 * called by the tile loop after it has issued tile 0's transfers, so that the rest of that code's misses overlap the
 * transfer as on the chip (charged before the issue, the whole of it came before the transfer: small tiled layers
 * 10-20 % over the ISS). Charged whole at every tiled layer, it priced a network's small layers over the ISS (Siracusa
 * 76 of 102 layers within 10 %, a decoder step 149 of 278); once a run, under it (87, 182: the step 8 % under).
 */
export function tile_code(): void {
  if (!tilesDue) return;
  tilesDue = false;
  chip.compute(CODE_TILES, tilesEvicted());
  codeSinceTiles = 0;
}

/** Sixteenths of the tile loop's shared code (a unit of CODE_TILES is a sixteenth's cold fetch) gone from the
 * cluster's instruction cache since core 0 last ran it: all of it at the run's first tiled layer. */
function tilesEvicted(): i32 {
  if (codeSinceTiles < 0) return TILES_PARTS;
  // The shared level (emulator/assembly/iss/icache.ts: 2 banks x 32 sets x 4 ways of 16-byte lines) takes each line of
  // the code fetched since into one of its 64 sets and, once full, evicts a way its LFSR picks: a line survives each
  // refill of its set with probability 3/4. ASSUMPTION: the lines fetched since spread evenly over the sets.
  const refillsPerSet = codeSinceTiles / (16.0 * 64.0);
  return <i32>Math.round(<f64>TILES_PARTS * (1.0 - Math.pow(0.75, refillsPerSet)));
}
/** The parts CODE_TILES charges come in: fine enough for the few hundred cycles of the whole. */
const TILES_PARTS: i32 = 16;

/** Core 0's cold fetch of the layer's tile loop before the kernel, before tile 0's transfers start (layer_code). */
export function tile_loop_code(): void {
  if (!beforeDue) return;
  beforeDue = false;
  chip.compute(CODE_BYTE, loopBefore);
}

/** Core 0's cold fetch of the layer's tile loop after the kernel, at the first tile's write-back (layer_code). */
export function tile_store_code(): void {
  if (!afterDue) return;
  afterDue = false;
  chip.compute(CODE_BYTE, loopAfter);
}

/**
 * Core 0's cold fetch of the tile loop's code for the tiles after the first (CODE_NEXT), once per layer of two tiles
 * or more: called where the tile loop starts a next tile's transfers.
 */
export function tile_next_code(): void {
  if (!nextDue) return;
  nextDue = false;
  chip.compute(CODE_NEXT, 1);
}

/** Ends the team; work goes back to the master. */
export function cluster_end(): void {
  chip.join();
  team = 0;
  layerDue = false;
}

/** fork + one phase + join: the pi_cl_team_fork of the C HAL. */
export function cluster_fork(fn: (args: usize) => void, args: usize, cores: i32 = 0): void {
  cluster_begin(cores);
  cluster_run(fn, args);
  cluster_end();
}

/**
 * The current core's share of n items: [share_begin(n), share_end(n)), in chunks of ceil(n / cores) as pulp-nn
 * splits output rows (the last cores may get fewer items, or none).
 */
export function share_begin(n: i32): i32 {
  const chunk = (n + num_cores() - 1) / num_cores();
  return min(max(coreId, 0) * chunk, n);
}

export function share_end(n: i32): i32 {
  // The cycles of the C's hal_share_begin and hal_share_end, once per share (docs/timing.md).
  chip.compute(SHARE, 1);
  return share_limit(n);
}

/** share_end without its cycles: for timing-only uses where the C computes no share (the SIMD conv's streams). */
export function share_limit(n: i32): i32 {
  const chunk = (n + num_cores() - 1) / num_cores();
  return min(share_begin(n) + chunk, n);
}
