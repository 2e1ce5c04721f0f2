import { CapacityError, GenError } from '../errors.js';
import type { MemoryPlan } from '../midend/plan.js';
import { L1_ARGS_BYTES, type TilingPlan } from '../midend/tiling/plan-tiles.js';
import { maxRecordWords } from '../midend/tiling/table.js';
import type { Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';

/**
 * Bytes of code and static data per byte of generated network.c. Measured over the deeploy-tests folders for
 * rv32imc: 0.37-0.41 at gcc -O2, up to 0.47 at -O3; the tiny-llama example with its prompt pass (1.92 MB of source
 * without comments, 648 layers) links 606,080 bytes of text for rv32imc+XpulpV2 at -O2: 0.32. 0.55 keeps 17 % over
 * the largest of these for a board compiler that unrolls more (0.75 before refused that example on Siracusa's cluster
 * while its build took 1.6 of the 2 MiB of L2). test/e2e/rv32.test.ts keeps this estimate above what the rv32 build
 * really links.
 */
export const CODE_PER_SOURCE_BYTE = 0.55;

/**
 * The key of a layer's code among a platform's compiled bytes per byte of C (Platform.codeRatios): its kernel, the C
 * path its kernel takes where the template has several (KernelView.codePath), and ' untiled' for a layer without the
 * tile loop (whose inlined DMA code compiles denser than a kernel's constant-folded paths).
 */
export function codeKey(kernel: string, path: string | undefined, tiled: boolean): string {
  return `${kernel}${path ? ` ${path}` : ''}${tiled ? '' : ' untiled'}`;
}

/**
 * Bytes of C source without its comments, what CODE_PER_SOURCE_BYTE multiplies for network.c: a comment in a kernel
 * template compiles to nothing, yet it counted once per layer (a model of many conv layers lost 7 KB of its L2 budget
 * to two added template comments). String and character literals are kept whole.
 */
export function codeBytes(src: string): number {
  let n = 0;
  let i = 0;
  const special = /\/[*/]|["']/g; // where a comment or a literal starts
  const ascii = !/[^\x00-\x7f]/.test(src);
  while (i < src.length) {
    special.lastIndex = i;
    const m = special.exec(src);
    const next = m ? m.index : src.length;
    n += ascii ? next - i : utf8Units(src, i, next);
    i = next;
    if (!m) break;
    const c = m[0];
    if (c === '/*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 2;
      n++; // a comment separates tokens like one space
    } else if (c === '//') {
      const end = src.indexOf('\n', i + 2);
      i = end < 0 ? src.length : end;
    } else {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      n += Buffer.byteLength(src.slice(i, j + 1));
      i = j + 1;
    }
  }
  return n;
}

/**
 * UTF-8 bytes of src[from, to) counted one UTF-16 unit at a time, as Buffer.byteLength of each unit alone gives
 * them (a lone surrogate is the 3-byte replacement character): code outside literals was counted so, one Buffer
 * call per character (~35 ms of gen firmware for a 93 KB network.c, node --cpu-prof); ASCII source skips this.
 */
function utf8Units(src: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const u = src.charCodeAt(k);
    n += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
  }
  return n;
}

/** What the C image needs and may use, as the generator checks it (written to out/c/image.json for `gen build`). */
export interface CImageBudget {
  platform: string;
  /** The memory holding code, data, stack and arena, and its size. */
  memory: string;
  available: number;
  /** Estimated code and static data: the runtime allowance plus the generated network's share. */
  codeAndData: number;
  stack: number;
  /** Start of the arena when the code is smaller (the home offset: the SDK's window for code and data). */
  codeWindow: number;
  arena: number;
  /** Tile buffers counted in `memory` (the SDK's load image of L1 data), 0 when they take no room there. */
  tileImage: number;
  needed: number;
  tiles?: { memory: string; available: number; reserved: number; buffers: number; needed: number };
}

/** Bytes of the C arena: what the plan uses (not its budget), 8-aligned and never empty. */
export function cArenaBytes(plan: MemoryPlan): number {
  return Math.max(8, Math.ceil(plan.used / 8) * 8);
}

/** Bytes of the C tile buffers (fg_l1), or 0 when no layer is tiled. */
/** Bytes of the C's tile buffer array fg_l1 (NETWORK_L1_SIZE): the tile plan's peak, a multiple of 8. */
export function cL1ArrayBytes(tiling: TilingPlan | undefined): number {
  return tiling && tiling.layers.size > 0 ? Math.ceil(Math.max(8, tiling.l1Peak) / 8) * 8 : 0;
}

/** Bytes the C puts in L1 (the .fg_l1 section) besides the tile-record copies: the tile buffers and the argument
 * block beside them. */
function cTileBaseBytes(tiling: TilingPlan | undefined): number {
  const array = cL1ArrayBytes(tiling);
  return array > 0 ? array + L1_ARGS_BYTES : 0;
}

/**
 * Words of each of the two L1 copies of a tile record (firmgen_tiles.h fg_tile_load): the plan's longest record,
 * rounded to 8 bytes, when both fit in L1 beside the tile buffers and what the board's SDK keeps; else 0 (the records
 * are read in the table, in L2).
 */
export function cL1RecordWords(platform: Platform, tiling: TilingPlan | undefined): number {
  const base = cTileBaseBytes(tiling);
  if (base === 0 || !platform.tiling) return 0;
  const words = Math.ceil(maxRecordWords(tiling!.layers.values()) / 2) * 2;
  const l1 = memoryOf(platform, platform.tiling.memory);
  return base + 2 * words * 4 + (platform.image?.tileReserved ?? 0) <= l1.size ? words : 0;
}

/** Bytes the C puts in L1 (the .fg_l1 section): tile buffers, argument block and tile-record copies. */
export function cTileBytes(platform: Platform, tiling: TilingPlan | undefined): number {
  const base = cTileBaseBytes(tiling);
  return base > 0 ? base + 2 * 4 * cL1RecordWords(platform, tiling) : 0;
}

/**
 * The budget check of the C image, at generation: a model whose C would not fit the board's memories fails here,
 * naming the memory, the bytes needed and available, not at link time. Undefined for a platform without a budget.
 */
export function checkCImage(platform: Platform, plan: MemoryPlan, tiling: TilingPlan | undefined, networkC: string): CImageBudget | undefined {
  const image = platform.image;
  if (!image) return undefined;
  const home = memoryOf(platform, image.memory);
  const codeAndData = image.runtimeBytes + Math.ceil(CODE_PER_SOURCE_BYTE * codeBytes(networkC));
  const codeWindow = platform.home.memory === image.memory ? platform.home.offset : 0;
  const arena = cArenaBytes(plan);
  const buffers = cTileBytes(platform, tiling);
  const tileImage = image.tileLoadImage ? buffers : 0;
  const needed = Math.max(codeWindow, codeAndData + image.stackBytes) + arena + tileImage;
  const budget: CImageBudget = {
    platform: platform.name, memory: home.name, available: home.size, codeAndData, stack: image.stackBytes, codeWindow,
    arena, tileImage, needed,
  };
  if (platform.tiling) {
    const l1 = memoryOf(platform, platform.tiling.memory);
    budget.tiles = { memory: l1.name, available: l1.size, reserved: image.tileReserved, buffers, needed: buffers + image.tileReserved };
    if (budget.tiles.needed > l1.size) {
      throw new GenError('capacity', `the C image needs ${budget.tiles.needed} bytes of ${l1.name} (tile buffers ${buffers}, ` +
        `${image.tileReserved} kept by the board's SDK for cluster stacks and its own data), ${l1.size} bytes are available`);
    }
  }
  if (needed > home.size) {
    const tileText = tileImage > 0 ? `, load image of the ${budget.tiles?.memory ?? 'tile'} buffers ${tileImage}` : '';
    const window = codeWindow > codeAndData + image.stackBytes ? ` (in the first ${codeWindow} bytes, kept for them)` : '';
    throw new CapacityError(`the C image needs ${needed} bytes of ${home.name} (code and data ~${codeAndData} ` +
      `estimated, stack ${image.stackBytes}${window}, arena ${arena}${tileText}), ${home.size} bytes are available`, home.name, needed - home.size);
  }
  return budget;
}
