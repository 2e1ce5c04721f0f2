import { blockingOf, computeCycles, type Partition, shareGroups, type Tiles } from './cost.js';
import type { TangramHardware } from './hardware.js';
import { hasFilters, type LayerShape, operandsOf } from './layers.js';
import { snake } from './regions.js';

/**
 * Per-engine programs of one layer running alone on the grid (the emulator's engine model runs them:
 * emulator/assembly/tangram/, docs/tangram.md "Engine programs"). The layer's partitioning gives each engine a block
 * of the output (batch, output channels, rows, columns) over a range of input channels; the program of an engine
 * loads its slice of the inputs and filters from its nearer DRAM edge in chunks (at least 2, one per buffer pass up
 * to 8; the next chunk's load issued before the current chunk's compute: double buffering), rotates shared slices around its sharing group (buffer sharing),
 * computes, reduces partial sums over its input-channel group by a binary tree, and the group's leader stores the
 * block.
 *
 * The image is an Int32Array (layout below, the emulator reads the same offsets): a header with the hardware's
 * figures (the emulator holds none of its own: a configuration file reaches it through the program), the functional
 * operation (a strided 8-bit x 8-bit -> int32 convolution; a matrix product is one with 1x1 windows), one record per
 * engine (position, commands, block), the commands, 4 words each, and a table the emulator writes the messages'
 * arrival times into (so the image must be writable memory; its size grows with the messages, not bounded by the
 * emulator's own tables).
 */
export const PROGRAM_MAGIC = 0x54474d31; // 'TGM1'
export const HEADER_WORDS = 48;
export const ENGINE_WORDS = 14;
export const COMMAND_WORDS = 4;
/** Q16 fixed point for the fractional rates (bytes or words per cycle). */
export const Q16 = 65536;

/** Bounds on a program's size (commands grow with engines x chunks x messages): documented approximations. */
const MAX_CHUNKS = 8;
const MAX_ROTATION_MESSAGES = 4;

/**
 * STEP and FINISH are a pipeline segment's (segment-programs.ts): STEP computes the engine's block's rows [b, c)
 * (counted in the block, sample by sample) for `a` cycles; FINISH is the leader's element-wise epilogue (the fused
 * requantization) of those rows.
 */
export const OP = { LOAD: 1, WAIT_LOADS: 2, COMPUTE: 3, SEND: 4, RECV: 5, STORE: 6, STEP: 7, FINISH: 8 } as const;

/** The arithmetic of a convolution in element strides: y[n,k,oh,ow] = bias[k] + sum x[n,c,ih,iw] * w[k,c,r,s]. */
export interface Functional {
  n: number; k: number; c: number; ho: number; wo: number; r: number; s: number;
  strideH: number; strideW: number; padT: number; padL: number; h: number; w: number;
  xStrides: [number, number, number, number];
  wStrides: [number, number, number, number];
  yStrides: [number, number, number, number];
  bias: boolean;
  /** Element types: x and w 8-bit; the bias and y any kind (the sums are exact modulo the output's width). */
  xType: ElementKind;
  wType: ElementKind;
  biasType: ElementKind;
  yType: ElementKind;
  /**
   * The integer dialect's requantization of each whole sum (SEMANTICS.md: clip((acc*mul + add + 2^(s-1)) >> s)),
   * mul and add scalar or one per output channel: the engines accumulate in int32 and requantize at the end.
   */
  requant?: { shift: number; min: number; max: number; mulPerChannel: boolean; addPerChannel: boolean; mulType: ElementKind; addType: ElementKind };
}

/** Element kinds as the program's header numbers them. */
export const ELEMENT_KINDS = ['int8', 'uint8', 'int16', 'int32', 'uint16'] as const;
export type ElementKind = (typeof ELEMENT_KINDS)[number];

/** Header word offsets. */
export const H = {
  magic: 0, engines: 1, rows: 2, cols: 3, channels: 4, channelBytesQ16: 5, linkWordsQ16: 6, hopCycles: 7,
  wordBytes: 8, messages: 9, functional: 10, commands: 11,
  // the functional operation, 13 dims then 12 strides then bias (words 12..37)
  dims: 12, xStrides: 25, wStrides: 29, yStrides: 33, bias: 37, xType: 38, wType: 39, biasType: 40,
  /** Word offset of the message table: two words (an f64 arrival time the emulator writes) per message. */
  messageTable: 41, yType: 42,
  /** Requantization: shift + 1 (0: none), the clip range, and per parameter: per-channel flag + 2 x element kind. */
  requant: 43, requantMin: 44, requantMax: 45, mulDesc: 46, addDesc: 47,
} as const;

interface Cmd { op: number; a: number; b: number; c: number }

function split(total: number, parts: number, i: number): [number, number] {
  return [Math.floor((i * total) / parts), Math.floor(((i + 1) * total) / parts)];
}

/** Words `total` cut into `parts` whole pieces (the remainder to the first ones). */
export function piece(total: number, parts: number, i: number): number {
  const base = Math.floor(total / parts);
  return base + (i < total - base * parts ? 1 : 0);
}

/** The DRAM channel an engine loads from: its nearer edge (west first on a tie), then its band of rows. */
export function channelOf(hw: TangramHardware, row: number, col: number): number {
  // One channel: it sits on the west edge (the emulator's channelEast agrees).
  if (hw.dram.channels < 2) return 0;
  const perSide = Math.floor(hw.dram.channels / 2);
  const east = hw.grid.cols - col < col + 1 ? 1 : 0;
  return east * perSide + Math.min(perSide - 1, Math.floor((row * perSide) / hw.grid.rows));
}

export interface EngineBlock {
  row: number;
  col: number;
  /** [from, to) per dimension: batch, output channels, input channels, rows, columns. */
  n: [number, number]; k: [number, number]; c: [number, number]; h: [number, number]; w: [number, number];
  cmds: Cmd[];
}

/** One layer's engines, blocks and buffer passes, before its commands are written (phase 1 of two). */
export interface LayerPlan {
  l: LayerShape;
  p: Partition;
  /** Index of the layer's first engine in the image (sends and receives name engines by image index). */
  base: number;
  blocks: EngineBlock[];
  tiles: Tiles[];
  ifmPasses: number[];
  filPasses: number[];
  groups: { ifm: number; fil: number };
}

interface BlockIndex { ib: number; ih: number; iw: number; io: number; ii: number }

function indexOf(p: Partition, j: number): BlockIndex {
  let r = j;
  const ii = r % p.pi; r = Math.floor(r / p.pi);
  const io = r % p.po; r = Math.floor(r / p.po);
  const iw = r % p.pw; r = Math.floor(r / p.pw);
  const ih = r % p.ph; r = Math.floor(r / p.ph);
  return { ib: r, ih, iw, io, ii };
}

function engineAt(p: Partition, q: BlockIndex): number {
  return (((q.ib * p.ph + q.ih) * p.pw + q.iw) * p.po + q.io) * p.pi + q.ii;
}

/**
 * Engine j's block is j in mixed radix (pb, ph, pw, po, pi), pi fastest: a reduction group is consecutive engines, an
 * input-sharing group (same block but output channels) engines pi apart. `forwarded`: an input arrives over the NoC
 * (it must stay resident, blockingOf); `reservedWords`: buffer words per engine the pipeline's forwarded data hold.
 */
export function planLayer(
  l: LayerShape, batch: number, hw: TangramHardware, p: Partition, sharing: boolean,
  places: Array<[number, number]>, base: number, forwarded: boolean, reservedWords = 0,
): LayerPlan {
  const n = p.pb * p.po * p.ph * p.pw * p.pi;
  if (places.length < n) throw new Error(`programs: ${n} engines for a region of ${places.length}`);
  const g = shareGroups(l, p, sharing);
  const capacity = Math.floor(hw.bufferBytes / hw.wordBytes) - reservedWords;
  const blocks: EngineBlock[] = places.slice(0, n).map(([row, col], j) => {
    const q = indexOf(p, j);
    const k = split(l.k, p.po, q.io);
    return {
      row, col,
      n: split(batch, p.pb, q.ib), k,
      c: hasFilters(l) ? split(l.c, p.pi, q.ii) : k,
      h: split(l.h, p.ph, q.ih), w: split(l.w, p.pw, q.iw),
      cmds: [],
    };
  });
  const tiles = blocks.map((b): Tiles => {
    const tb = b.n[1] - b.n[0], tk = b.k[1] - b.k[0], tc = b.c[1] - b.c[0], th = b.h[1] - b.h[0], tw = b.w[1] - b.w[0];
    return {
      b: tb, k: tk, c: tc, h: th, w: tw,
      ifm: tb * tc * ((th - 1) * l.stride + l.r) * ((tw - 1) * l.stride + l.s) * operandsOf(l),
      fil: hasFilters(l) ? tk * tc * l.r * l.s : 0,
      ofm: tb * tk * th * tw,
    };
  });
  const passes = tiles.map((t) => blockingOf(t, t.ifm / g.ifm, t.fil / g.fil, capacity, forwarded));
  return { l, p, base, blocks, tiles, ifmPasses: passes.map((x) => x.ifmPasses), filPasses: passes.map((x) => x.filPasses), groups: g };
}

/** Words engine j of a layer takes in of its own per chunk: its input slice (all operands) and its filter slice. */
export function ownWords(plan: LayerPlan, j: number): { ifm: number; fil: number } {
  const t = plan.tiles[j];
  return { ifm: (t.ifm * plan.ifmPasses[j]) / plan.groups.ifm, fil: (t.fil * plan.filPasses[j]) / plan.groups.fil };
}

/** Chunks of engine j alone: one per buffer pass, at least 2 (double buffering), at most MAX_CHUNKS. */
export function chunksOf(plan: LayerPlan, j: number): number {
  return Math.min(MAX_CHUNKS, Math.max(2, plan.ifmPasses[j], plan.filPasses[j]));
}

/** The leaders of a layer's reduction groups (ii = 0): the engines holding whole output blocks. */
export function isLeader(plan: LayerPlan, j: number): boolean {
  return j % plan.p.pi === 0;
}

/**
 * What engine j of a layer does beside its own compute: its DRAM channel, its loads of chunk s (`dramShare` of its
 * input words, all its filter words), the rotation of shared slices in chunk s, and the partial-sum tree.
 */
export function engineParts(plan: LayerPlan, hw: TangramHardware, msg: (key: string) => number, j: number, chunks: number, dramShare: number): {
  ch: number;
  load: (s: number) => void;
  rotate: (s: number) => void;
  reduce: (words: number, tag: string) => boolean;
} {
  const { p, base } = plan;
  const g = plan.groups;
  const b = plan.blocks[j];
  const t = plan.tiles[j];
  const ch = channelOf(hw, b.row, b.col);
  const own = ownWords(plan, j);
  const q = indexOf(p, j);
  const me = base + j;
  // Ring neighbours in the sharing groups: the input group varies io, the filter group varies (ib, ih, iw).
  const ifmRing = (d: number): number => base + engineAt(p, { ...q, io: (q.io + d + p.po) % p.po });
  const filMembers = p.pb * p.ph * p.pw;
  const filPos = (q.ib * p.ph + q.ih) * p.pw + q.iw;
  const filRing = (d: number): number => {
    const at = (filPos + d + filMembers) % filMembers;
    return base + engineAt(p, { ...q, ib: Math.floor(at / (p.ph * p.pw)), ih: Math.floor(at / p.pw) % p.ph, iw: at % p.pw });
  };
  const load = (s: number): void => {
    const wi = piece(Math.round(own.ifm * dramShare), chunks, s);
    const wf = piece(Math.round(own.fil), chunks, s);
    if (wi > 0) b.cmds.push({ op: OP.LOAD, a: ch, b: wi, c: 0 });
    if (wf > 0) b.cmds.push({ op: OP.LOAD, a: ch, b: wf, c: 0 });
  };
  // Rotation: g - 1 steps, each passing one slice to the next member and taking one from the previous; the steps
  // go in at most MAX_ROTATION_MESSAGES messages per chunk (consecutive steps merged: the same words over the same
  // link, so the link time is the same; a merged message waits for its whole share).
  const rotateOne = (s: number, data: string, size: number, total: number, ring: (d: number) => number): void => {
    const slice = piece(Math.round(total / size), chunks, s);
    const groups = Math.min(size - 1, MAX_ROTATION_MESSAGES);
    for (let r = 0; r < groups; r++) {
      const words = slice * piece(size - 1, groups, r);
      if (words === 0) continue;
      b.cmds.push({ op: OP.SEND, a: ring(1), b: words, c: msg(`${base}/${s}/${data}/${r}/${me}`) });
      b.cmds.push({ op: OP.RECV, a: ring(-1), b: words, c: msg(`${base}/${s}/${data}/${r}/${ring(-1)}`) });
    }
  };
  const rotate = (s: number): void => {
    if (g.ifm > 1 && dramShare > 0) rotateOne(s, 'i', g.ifm, t.ifm * plan.ifmPasses[j] * dramShare, ifmRing);
    if (g.fil > 1) rotateOne(s, 'f', g.fil, t.fil * plan.filPasses[j], filRing);
  };
  // The partial-sum tree over the input-channel group (at distance d = 1, 2, 4, ...: the engine at an odd multiple
  // of d sends its partial block to the one d before it): the leader receives log2(pi) blocks, not pi - 1.
  // Returns false for an engine that sent its block (it holds no output any more).
  const reduce = (words: number, tag: string): boolean => {
    for (let d = 1; d < p.pi; d *= 2) {
      if (q.ii % (2 * d) === d) {
        b.cmds.push({ op: OP.SEND, a: base + engineAt(p, { ...q, ii: q.ii - d }), b: words, c: msg(`${tag}/${me}`) });
        return false;
      }
      if (q.ii + d < p.pi) {
        const from = base + engineAt(p, { ...q, ii: q.ii + d });
        b.cmds.push({ op: OP.RECV, a: from, b: words, c: msg(`${tag}/${from}`) });
      }
    }
    return true;
  };
  return { ch, load, rotate, reduce };
}

/**
 * Phase 2: the commands of a layer's engines running alone: inputs and filters from DRAM in chunks (the next
 * chunk's load issued before the current compute), the rotation of shared slices, compute, the partial-sum tree, the
 * leader's store. (A layer of a pipeline segment: segment-programs.ts.)
 */
export function emitLayer(plan: LayerPlan, hw: TangramHardware, msg: (key: string) => number): void {
  const { l, base } = plan;
  plan.blocks.forEach((b, j) => {
    const t = plan.tiles[j];
    const chunks = chunksOf(plan, j);
    const cycles = computeCycles(l, t, hw);
    const e = engineParts(plan, hw, msg, j, chunks, 1);
    e.load(0);
    for (let s = 0; s < chunks; s++) {
      b.cmds.push({ op: OP.WAIT_LOADS, a: 0, b: 0, c: 0 });
      if (s + 1 < chunks) e.load(s + 1);
      e.rotate(s);
      b.cmds.push({ op: OP.COMPUTE, a: piece(cycles, chunks, s), b: s === chunks - 1 ? 1 : 0, c: 0 });
    }
    if (e.reduce(t.ofm, `${base}/r`) && t.ofm > 0) b.cmds.push({ op: OP.STORE, a: e.ch, b: t.ofm, c: 0 });
  });
}

/** A message allocator: one id per key, in the order keys are first named. */
export function messageIds(): { msg: (key: string) => number; count: () => number } {
  const ids = new Map<string, number>();
  return {
    msg: (key) => {
      let id = ids.get(key);
      if (id === undefined) { id = ids.size; ids.set(key, id); }
      return id;
    },
    count: () => ids.size,
  };
}

/**
 * The programs of `l` (batch `batch`) running alone under partitioning `p` on the first engines of the grid's
 * snake, with or without buffer sharing.
 */
export function programsOf(l: LayerShape, batch: number, hw: TangramHardware, p: Partition, sharing: boolean): { engines: EngineBlock[]; messages: number } {
  const plan = planLayer(l, batch, hw, p, sharing, snake(hw), 0, false);
  const ids = messageIds();
  emitLayer(plan, hw, ids.msg);
  return { engines: plan.blocks, messages: ids.count() };
}

/**
 * Writes a functional operation at the header's offsets from `base` (0: the header itself; a pipeline segment's
 * layer records use the same layout, segment-programs.ts).
 */
export function writeFunctional(out: Int32Array, base: number, fn: Functional, kind: number): void {
  out[base + H.functional] = kind;
  [fn.n, fn.k, fn.c, fn.ho, fn.wo, fn.r, fn.s, fn.strideH, fn.strideW, fn.padT, fn.padL, fn.h, fn.w].forEach((v, i) => { out[base + H.dims + i] = v; });
  fn.xStrides.forEach((v, i) => { out[base + H.xStrides + i] = v; });
  fn.wStrides.forEach((v, i) => { out[base + H.wStrides + i] = v; });
  fn.yStrides.forEach((v, i) => { out[base + H.yStrides + i] = v; });
  out[base + H.bias] = fn.bias ? 1 : 0;
  out[base + H.xType] = ELEMENT_KINDS.indexOf(fn.xType);
  out[base + H.wType] = ELEMENT_KINDS.indexOf(fn.wType);
  out[base + H.biasType] = ELEMENT_KINDS.indexOf(fn.biasType);
  out[base + H.yType] = ELEMENT_KINDS.indexOf(fn.yType);
  if (fn.requant) {
    const q = fn.requant;
    out[base + H.requant] = q.shift + 1;
    out[base + H.requantMin] = q.min;
    out[base + H.requantMax] = q.max;
    out[base + H.mulDesc] = (q.mulPerChannel ? 1 : 0) + 2 * ELEMENT_KINDS.indexOf(q.mulType);
    out[base + H.addDesc] = (q.addPerChannel ? 1 : 0) + 2 * ELEMENT_KINDS.indexOf(q.addType);
  }
}

/** The program image the emulator runs (layout: the constants above). */
export function programImage(hw: TangramHardware, engines: EngineBlock[], messages: number, fn?: Functional, kind: 1 | 2 = 1, tailWords = 0): Int32Array {
  const total = engines.reduce((s, e) => s + e.cmds.length, 0);
  const table = HEADER_WORDS + engines.length * ENGINE_WORDS + total * COMMAND_WORDS;
  // `tailWords` after the message table: a pipeline segment's layer records (segment-programs.ts).
  const out = new Int32Array(table + 2 * messages + tailWords);
  out[H.magic] = PROGRAM_MAGIC;
  out[H.engines] = engines.length;
  out[H.rows] = hw.grid.rows;
  out[H.cols] = hw.grid.cols;
  out[H.channels] = hw.dram.channels;
  out[H.channelBytesQ16] = Math.round(hw.dram.bytesPerCycle * Q16);
  out[H.linkWordsQ16] = Math.round(hw.noc.linkWordsPerCycle * Q16);
  out[H.hopCycles] = hw.noc.hopCycles;
  out[H.wordBytes] = hw.wordBytes;
  out[H.messages] = messages;
  // 0 timing only, 1 products (a strided convolution), 2 max pooling (the window's maximum, padding never wins).
  out[H.functional] = fn ? kind : 0;
  out[H.commands] = total;
  out[H.messageTable] = table;
  if (fn) writeFunctional(out, 0, fn, kind);
  let cmdAt = HEADER_WORDS + engines.length * ENGINE_WORDS;
  engines.forEach((e, j) => {
    const at = HEADER_WORDS + j * ENGINE_WORDS;
    out.set([e.row, e.col, cmdAt, e.cmds.length, e.n[0], e.n[1], e.k[0], e.k[1], e.c[0], e.c[1], e.h[0], e.h[1], e.w[0], e.w[1]], at);
    for (const c of e.cmds) {
      out.set([c.op, c.a, c.b, c.c], cmdAt);
      cmdAt += COMMAND_WORDS;
    }
  });
  return out;
}
