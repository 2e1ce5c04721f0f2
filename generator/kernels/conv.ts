import { GenError } from '../errors.js';
import { attrInt, attrInts } from '../ir/attrs.js';
import { isIntType, type DType } from '../ir/dtype.js';
import { tensorOf, type Graph, type Node } from '../ir/graph.js';
import { accRange, epilogueOf } from './epilogue.js';
import { byteWide, extOf, tapsInside, typeNames, valueRange } from './common.js';
import type { ExtraWork, KernelDef } from './types.js';
import type { Platform } from '../platforms/types.js';
import { CONV_LOOP, DW_LOOP, DW_STRIDED_LOOP, loopOf } from './streams.js';
import { constDivision } from './divide.js';
import { dwAsm } from './dw-asm.js';
import { planeOf, planeRow } from './dw-plane.js';

/**
 * Direct integer convolution, NCHW, any groups (depthwise included), pads, strides and dilations; 1-D convs run
 * as 2-D with H = 1. The work unit is one output row of one channel (a band of them on the depthwise plane path,
 * kernels/dw-plane.ts; a pixel pair of a block of channels on the SIMD path, dealt round robin); the row, plane and
 * scalar paths' cores take contiguous ranges of units.
 */
export const convKernel: KernelDef = {
  name: 'conv2d',
  template: 'conv',
  engine: 'cores',
  accepts(node, g) {
    if (node.op !== 'Conv') return 'not a Conv';
    const x = tensorOf(g, node.inputs[0]);
    const w = tensorOf(g, node.inputs[1]);
    if (x.shape.length !== 3 && x.shape.length !== 4) return 'only 1-D and 2-D convolutions';
    if (!isIntType(x.dtype) || !isIntType(w.dtype)) return 'inputs are not integer tensors';
    const autoPad = node.attrs.auto_pad;
    if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value} is not supported (give pads)`;
    return null;
  },
  extraWork(node, g, out, platform) {
    return gatherWork(node, g, out, platform);
  },
  view({ node, graph, platform }) {
    const x = tensorOf(graph, node.inputs[0]);
    const w = tensorOf(graph, node.inputs[1]);
    const bias = node.inputs[2] ? tensorOf(graph, node.inputs[2]) : undefined;
    const y = tensorOf(graph, node.outputs[0]);
    const is1d = x.shape.length === 3;
    const [N, C, H, W] = is1d ? [x.shape[0], x.shape[1], 1, x.shape[2]] : x.shape;
    const [CO, CIG, KH, KW] = is1d ? [w.shape[0], w.shape[1], 1, w.shape[2]] : w.shape;
    const [HO, WO] = is1d ? [1, y.shape[2]] : [y.shape[2], y.shape[3]];
    const k = is1d ? 1 : 2;
    const pads = attrInts(node, 'pads', new Array<number>(2 * k).fill(0));
    const strides = attrInts(node, 'strides', new Array<number>(k).fill(1));
    const dil = attrInts(node, 'dilations', new Array<number>(k).fill(1));
    const group = attrInt(node, 'group', 1);
    const [PT, PL] = is1d ? [0, pads[0]] : [pads[0], pads[1]];
    const [SY, SX] = is1d ? [1, strides[0]] : strides;
    const [DY, DX] = is1d ? [1, dil[0]] : dil;

    // Bound of |acc| per output channel: sum |w| * max |x| + |bias|.
    const xr = valueRange(x);
    const xmax = Math.max(Math.abs(xr.min), Math.abs(xr.max));
    let bound = 0;
    const per = CIG * KH * KW;
    if (w.data) {
      bound = largestFilterSum(w.data.data, CO, per) * xmax;
    } else {
      const wr = valueRange(w);
      bound = per * xmax * Math.max(Math.abs(wr.min), Math.abs(wr.max));
    }
    if (bias) {
      const br = valueRange(bias);
      bound += Math.max(Math.abs(br.min), Math.abs(br.max));
    }
    const ep = epilogueOf(node, graph, accRange(bound), () => 'co', platform.image?.xpulp ? undefined : y.dtype);
    // Weight elements from one output channel's filter to the next: dense (per) unless the tile plan padded the
    // filter rows in L1 against bank conflicts (midend/tiling/filter-layout.ts).
    const WS = node.filterStride ?? per;
    if (WS < per) throw new GenError('internal', `filter stride ${WS} is shorter than a filter (${per} elements)`, { node: node.name, op: node.op });
    // The AS kernel's SIMD path (emulation speed only; the C and the charged cycles do not change): 8-bit input and
    // weights, unit stride along x, and outputs [OX0, OX1) whose taps all fall inside the input row.
    const OX0 = PL;
    const OX1 = Math.min(WO, W - (KW - 1) * DX + PL);
    const simd = byteWide(x.dtype) && byteWide(w.dtype) && SX === 1 && OX1 - OX0 >= 8;
    // The C kernel's SIMD path: 8-bit operands, one group, filters of at least MIN_TAPS.
    const plan = takesDot(group, x.dtype, w.dtype, KH * KW, per)
      ? dotPlan(per, KH * KW, N * HO, Math.ceil(WO / 2), CO, platform.cores, x.dtype, w.dtype) : undefined;
    // The SIMD loop's units (pixel pairs x channel blocks): the AS deals them to its cores as the C does and charges
    // each core its own units' MACs, outputs and gather (gatherWork gives the tiler the totals).
    const cunits = plan ? N * HO * plan.pairs * plan.blocks : 0;
    const cdot = plan
      ? {
        // `cunits` is named apart from the view's own `units` (the AS rows): a section's names shadow the outer ones.
        ...plan, cunits, div: unitDivisions(cunits, plan.blocks, plan.pairs, HO), pairRows: SX === 1 && DX === 1 && KW <= 3, pairShift: W >= 4,
        // The output stage's class: its own on a core without XpulpV2; with it (p.clip) the same as the GEMM's.
        outClass: simdOutClass(platform),
        // A 1x1 window's pairs gather four channels at a time (conv.c `pointwise`, inside `pairRows`: a dilation
        // attribute of 2 on a 1x1 conv takes the unpaired gather, as gatherWork counts it).
        pointwise: SX === 1 && DX === 1 && KH * KW === 1 ? { quads: pointwiseQuads(per, plan.chunk) } : false,
        // The unpaired gather copies a window row of 3 or 4 taps as one word where the word lies inside the row.
        wordTaps: wordTaps(KW, DX, platform),
        ...liveCode(plan, { CO, H, W, HO, WO, PT, PL, SY, SX, DY, DX, KH, KW }),
      } : false;
    // The C kernel's row path for one input channel per output (depthwise, or a single input channel): a window row
    // of up to 3 taps is one word of the input row, its filter row one word, a pair of pixels two dot products (one
    // word for both at stride 1, `shared`).
    const sign = (t: string): string => (t === 'uint8' ? 'u' : 's');
    const rowShape = !cdot && CIG === 1 && byteWide(x.dtype) && byteWide(w.dtype) && DX === 1 && KW <= 3;
    const rowFn = { fn: `fg_dot4_${sign(x.dtype)}${sign(w.dtype)}`, shared: SX === 1 };
    // A depthwise layer whose band of rows fits a buffer on the core's stack copies it there with the padding's zeros
    // (conv.c `plane`): no edge pairs, one loop per output row, rows of any width (kernels/dw-plane.ts).
    const plane = rowShape ? planeOf({ N, CO, H, W, HO, WO, KH, SY, SX, DY, PT, PL, cores: platform.cores, C, COG: CO / group }) : undefined;
    const rowPath = rowShape && !plane && W >= 4 ? { ...rowFn, ...rowPairs(WO, W, PL, SX) } : false;
    // Its interior pairs as one XpulpV2 hardware loop on the ISS build (kernels/dw-asm.ts), with the output stage
    // the C's requantization emitted: in int32, split at bit 16, or 64-bit up to the shift. The plane path's loop
    // takes a row's pairs from column 0 of its buffer.
    const r = ep.params.requant;
    const form = !r || !node.requant ? undefined : r.split ? 'split' : !r.wide ? 'int32' : r.shiftedInt32 ? 'int64' : undefined;
    const pairLoop = (ix0: number, ix1: number, pl: number) => (form && dwAsm({
      rq: node.requant!, form, outBytes: byteWide(y.dtype) ? 1 : 0, variant: `${sign(x.dtype)}${sign(w.dtype)}`, KH, SX,
      shared: SX === 1, ix0, ix1, WO, PL: pl,
    })) || false;
    const rowdot = plane ? { ...rowFn, ...planeRow(WO, SX) } : rowPath && {
      ...rowPath,
      edges: edgePairs(WO, rowPath.ix0, rowPath.ix1),
      asm: pairLoop(rowPath.ix0, rowPath.ix1, PL),
    };
    const planeView = plane && { ...plane, asm: pairLoop(0, WO, 0), lone: WO % 2 === 1 ? { ox: WO - 1 } : false };
    // The MACs the row and scalar paths compute (the SIMD path's are counted per core by the AS from its units): the
    // scalar path skips a window row in the padding (conv.c `continue`), where the SIMD path multiplies the gathered
    // zeros and the row path a zero filter word; the row path takes pixels in pairs (rowPairs: at stride 1 an odd
    // row's last pair computes its one pixel twice); the scalar path's taps in a padding column still pay their bound
    // test: counted (ISS, one core: 3x3 depthwise at 3x3 (scalar) 0.77 AS/ISS with those columns left out).
    const rowsInside = tapsInside(0, HO, SY, PT, KH, DY, H);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'w', tensor: w.name, dtype: w.dtype, write: false },
        ...(bias ? [{ field: 'bias', tensor: bias.name, dtype: bias.dtype, write: false }] : []),
        ...ep.args,
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        N, C, H, W, CO, CIG, KH, KW, WS, HO, WO, PT, PL, SY, SX, DY, DX, simd, OX0, OX1, xExt: extOf(x.dtype), cdot, rowdot, plane: planeView || false,
        COG: CO / group,
        // Depthwise convs cannot use the SIMD dot product across input channels: a different cost class.
        // The C's scalar loop (neither the SIMD nor the row path: a window past a row of 4 bytes, a filter shorter
        // than a word, operands wider than a byte) is priced per MAC of its own (MAC_SCALAR).
        macTotal: rowdot ? N * CO * HO * KH * rowdot.dots * KW : N * CO * CIG * rowsInside * WO * KW,
        // The row path's MACs cost the same whether the one input channel is depthwise or the layer's only one.
        macClass: cdot ? 'MAC_CONV' : rowdot ? 'MAC_DW' : 'MAC_SCALAR',
        loop: rowdot || (!cdot && CIG === 1 && group > 1) ? { ...loopOf(rowdot && !rowdot.shared ? DW_STRIDED_LOOP : DW_LOOP, platform.costs.MAC_DW), dense: false } : { ...loopOf(CONV_LOOP, platform.costs.MAC_CONV), dense: true },
        units: N * CO * HO,
        // The row and scalar loops' units split by an odometer where a division would be a hardware div (HO or CO not
        // a power of two: a 64-channel depthwise conv at 5x5, 94,099 -> 73,940 ISS cycles on one core); by powers of
        // two the shifts are cheaper than the odometer's compare and branch (a 1x1 conv 2->16 at 16x16: +9 %).
        odometer: !(isPowerOfTwo(HO) && isPowerOfTwo(CO)),
        // The row path's input-row words, every window row's (rowPairs), and its pairs in the padding's columns.
        rowWords: rowdot ? N * CO * HO * KH * rowdot.words : 0,
        rowEdges: rowdot && rowdot.shared ? N * CO * HO * rowdot.edge : 0,
        rowEdgesStrided: rowdot && !rowdot.shared ? N * CO * HO * rowdot.edge : 0,
        // ... and the rows with pairs inside the input row, whose loop over them has a set-up (ROW_LOOP).
        rowLoops: rowdot && rowdot.ix1 > rowdot.ix0 ? N * CO * HO : 0,
        // ... and the plane path's bands: each band's set-up, the rows it fills in its buffer and their words.
        planeBands: plane ? plane.units : 0,
        planeRows: plane ? plane.fills.rows : 0,
        planeWords: plane ? plane.fills.words : 0,
        planeLones: plane && WO % 2 === 1 ? N * CO * HO : 0,
        // ... and its word accesses off a word (MISALIGNED): the output rows' window words, the copies' over all bands.
        planeOffRows: plane ? N * CO * HO * plane.misaligned.row : 0,
        planeOffFills: plane ? plane.misaligned.fills : 0,
        // ... and of those words, the int8 ones that the portable dot product sign-extends lane by lane (a core without
        // XpulpV2; a uint8 row's lanes are masked: 2.5-2.7 ISS cycles a word less on generic, 16-channel 3x3 layers
        // 4..16 wide at strides 1 and 2).
        rowSigns: rowdot && sign(x.dtype) === 's' && !platform.image?.xpulp ? N * CO * HO * KH * rowdot.words : 0,
        // The row path's outputs are requantized inline in its pixel-pair loop, at a cost of their own (ROW_OUT).
        requantClass: rowdot ? 'ROW_OUT' : 'REQUANT',
        x: typeNames(x.dtype), w: typeNames(w.dtype), y: typeNames(y.dtype),
        bias: bias ? typeNames(bias.dtype) : false,
        ...ep.params,
      },
      macs: N * CO * HO * WO * CIG * KH * KW,
      codePath: cdot ? (cdot.pointwise ? 'simd 1x1' : 'simd') : plane ? 'plane' : rowdot ? 'row' : 'scalar',
    };
  },
};

/**
 * How the row path (conv.c `rowdot`) takes an output row's pixel pairs: the pairs whose words lie inside the input
 * row, [ix0, ix1), read them as they lie; the others (`edge`) find them through fg_row_at (a pair wholly in the
 * padding only keeps the bias). Per output row and window row: the input-row words read and the dot products taken
 * (both pixels of a pair at stride 1 share one word; a lone last pixel is computed twice inside the row, once in the
 * padding's columns and at stride 2).
 */
export function rowPairs(WO: number, W: number, PL: number, SX: number): { ix0: number; ix1: number; edge: number; words: number; dots: number } {
  const inRow = (px: number): boolean => px >= 0 && px <= W - 4;
  const reaches = (px: number): boolean => px > -4 && px < W;
  let ix0 = -1;
  let ix1 = -1;
  let edge = 0;
  let words = 0;
  let dots = 0;
  for (let ox = 0; ox < WO; ox += 2) {
    const px0 = ox * SX - PL;
    const px1 = px0 + SX;
    const inside = SX === 1 ? inRow(px0) : inRow(px0) && inRow(px1);
    if (inside) {
      if (ix0 < 0) ix0 = ox;
      else if (ix1 !== ox) throw new GenError('internal', `row path: the pixel pairs inside the row are not contiguous at ${ox}`);
      ix1 = ox + 2;
      words += SX === 1 ? 1 : 2;
      dots += 2;
    } else if (SX === 1) {
      edge++;
      // A row's lone last pixel in the padding's columns: the C's edge pair knows it at compile time (its loop's one
      // pass) and drops the second dot products (64-channel 3x3 rows of 5 against 6 wide on generic, ISS).
      if (reaches(px0)) { words++; dots += ox + 1 < WO ? 2 : 1; }
    } else {
      edge++;
      const used = Number(reaches(px0)) + Number(ox + 1 < WO && reaches(px1));
      words += used;
      dots += used;
    }
  }
  return ix0 < 0 ? { ix0: 0, ix1: 0, edge, words, dots } : { ix0, ix1, edge, words, dots };
}

/**
 * The row path's edge pairs, each pixel pair's `ox`: before the inside ones ([0, ix0)) and after them ([ix1, WO)).
 * The C takes each as a statement of its own with `ox` a constant, so that the compiler works out fg_row_at and which
 * pixels reach the row at compile time (a loop over two or more edge pairs kept them at run time: MobileNetV1's 8x8
 * stride-2 depthwise rows cost ~40 ISS cycles more per edge pixel than a folded one).
 */
export function edgePairs(WO: number, ix0: number, ix1: number): { left: number[]; right: number[] } {
  const from = (a: number, b: number): number[] => Array.from({ length: Math.max(0, Math.ceil((b - a) / 2)) }, (_, i) => a + 2 * i);
  return { left: from(0, ix0), right: from(ix1, WO) };
}

/**
 * The SIMD loop's unit index split into channel block, pixel pair, row and batch by multiplies and shifts (the C's
 * FG_DIVC), or false where a divisor has none in 32 bits (the C divides).
 */
function unitDivisions(units: number, blocks: number, pairs: number, HO: number) {
  // By powers of two gcc shifts, and the shifts measured faster than the multiplies on the ISS (a 3->16 conv at
  // 32x32: 544,068 cycles with shifts, 566,135 with FG_DIVC): only other divisors take the multiplies.
  if ([blocks, pairs, HO].every(isPowerOfTwo)) return false;
  const b = constDivision(blocks, units);
  const p = constDivision(pairs, Math.ceil(units / blocks));
  const h = constDivision(HO, Math.ceil(units / (blocks * pairs)));
  return b && p && h ? { bm: b.m, bs: b.s, pm: p.m, ps: p.s, hm: h.m, hs: h.s } : false;
}

const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

/** Whether the C kernel takes its SIMD (im2col) path: 8-bit operands, one group, filters of MIN_TAPS or more. */
function takesDot(group: number, xt: DType, wt: DType, window: number, per: number): boolean {
  return group === 1 && byteWide(xt) && byteWide(wt) && window <= CHUNK && per >= (window === 1 ? MIN_TAPS_1X1 : MIN_TAPS);
}

/**
 * The C's SIMD conv loop's work besides its MACs and outputs, for an output of shape `out` (the tiler and the AS
 * firmware charge the same): its units (pixel pairs x channel blocks, CONV_UNIT), the window rows its paired gather
 * reads (GATHER_ROW: stride and dilation 1 along x, windows at most 3 wide; an odd row's last pair is unpaired) and
 * the bytes its unpaired gather moves (COPY_BYTE: two pixels' taps per unit) or the window rows it copies as words
 * (GATHER_WORD, wordTaps and wordPixel); a 1x1 window's paired gather goes by four
 * channels instead of window rows (GATHER_QUAD, pointwiseQuads). All 0 off the SIMD path.
 */
export function gatherWork(node: Node, g: Graph, out: readonly number[], platform: Platform): ExtraWork {
  const cores = platform.cores;
  const x = tensorOf(g, node.inputs[0]);
  const w = tensorOf(g, node.inputs[1]);
  const is1d = w.shape.length === 3;
  const [CIG, KH, KW] = is1d ? [w.shape[1], 1, w.shape[2]] : [w.shape[1], w.shape[2], w.shape[3]];
  const per = CIG * KH * KW;
  if (!takesDot(attrInt(node, 'group', 1), x.dtype, w.dtype, KH * KW, per)) return { units: 0, rows: 0, bytes: 0, words: 0, quads: 0, blocks: 0, accs: 0, padMacs: 0 };
  const [N, CO, HO, WO] = is1d ? [out[0], out[1], 1, out[2]] : out;
  const pairs = Math.ceil(WO / 2);
  const plan = dotPlan(per, KH * KW, N * HO, pairs, CO, cores, x.dtype, w.dtype);
  const units = N * HO * pairs * plan.blocks;
  const sx = is1d ? attrInts(node, 'strides', [1])[0] : attrInts(node, 'strides', [1, 1])[1];
  const dx = is1d ? attrInts(node, 'dilations', [1])[0] : attrInts(node, 'dilations', [1, 1])[1];
  const paired = sx === 1 && dx === 1 && KW <= 3;
  // An odd row's last pair holds one pixel: it gathers unpaired, that pixel twice (conv.c).
  const lone = paired && WO % 2 === 1 ? N * HO * plan.blocks : 0;
  const pairedUnits = paired ? units - lone : 0;
  // A 1x1 window's gather takes a row's lone last pixel too (its byte twice).
  const quads = paired && KH * KW === 1 ? pointwiseQuads(per, plan.chunk) : 0;
  // Each unit's chunks of a word or more call the 4x2 block once per four of its channels (conv.c).
  const blocks = N * HO * pairs * plan.chunkWords * blockQuads(CO, plan.block);
  // The channels whose accumulators live in memory (conv.c `accs`): every one past one chunk, else those the blocks of
  // four leave.
  const accs = N * HO * pairs * (plan.fused ? CO - 4 * blockQuads(CO, plan.block) : CO);
  const padMacs = N * HO * pairs * 2 * CO * (plan.computedTaps - per);
  // Units are dealt round robin (conv.c): the busiest core takes ceil(units / cores) of them, not a row's share (a
  // 128-channel 1x1 tile of 3 rows x 6 pixels is 36 units, 5 on four cores and 4 on the others: 11 % over an
  // eighth, which MobileNetV1's planner missed, choosing such tiles that ran 9 % slower on the ISS).
  const busiest = units > 0 ? Math.ceil(units / cores) / units : 0;
  if (quads) return { units, rows: 0, quads: units * quads, bytes: 0, words: 0, blocks, accs, padMacs, busiest };
  // The unpaired gathers (every unit's two, or a row's lone last pixel twice): pixels whose window and word lie inside
  // the input copy a word per window row (GATHER_WORD), the others their taps byte by byte (COPY_BYTE).
  const [H, W] = is1d ? [1, x.shape[2]] : [x.shape[2], x.shape[3]];
  const pads = attrInts(node, 'pads', is1d ? [0, 0] : [0, 0, 0, 0]);
  const [PT, PL] = is1d ? [0, pads[0]] : [pads[0], pads[1]];
  const [sy, dy] = is1d ? [1, 1] : [attrInts(node, 'strides', [1, 1])[0], attrInts(node, 'dilations', [1, 1])[0]];
  const rowsInside = Array.from({ length: HO }, (_, oy) => oy * sy - PT).filter((iy0) => iy0 >= 0 && iy0 + (KH - 1) * dy < H).length;
  const wordy = wordTaps(KW, dx, platform) ? (ox: number): boolean => wordPixel(ox * sx - PL, W) : () => false;
  let wordGathers = 0;
  for (let ox = 0; ox < WO; ox += 2) {
    const pix = Math.min(2, WO - ox);
    if (paired && pix === 2) continue;
    for (let p = 0; p < 2; p++) if (wordy(ox + (p < pix ? p : 0))) wordGathers++;
  }
  // Pixel gathers over all units (two a unit gathering unpaired) and those taking the word copy.
  const gathers = 2 * (paired ? lone : units);
  const wordPixels = N * plan.blocks * rowsInside * wordGathers;
  return {
    units, rows: pairedUnits * CIG * KH, quads: 0, words: wordPixels * CIG * KH, bytes: (gathers - wordPixels) * per, blocks, accs, padMacs,
    busiest,
  };
}

/**
 * The unpaired gather copies a window row as one word: windows of 3 or 4 taps, columns next to each other, on cores
 * that load and store a word at any address (XpulpV2: CV32E40P splits it in two; a core without it goes through
 * memcpy, a byte at a time, and a window of 1 or 2 taps moves as few bytes as a word: ResNet-8's 1x1 stride-2 convs
 * took 3-5 % more cycles so on the ISS).
 */
export function wordTaps(KW: number, DX: number, platform: Platform): boolean {
  return KW >= 3 && KW <= 4 && DX === 1 && platform.image?.xpulp === true;
}

/** A pixel whose window starts at input column ix0 takes the word copy: the word [ix0, ix0 + 4) inside the row. */
export function wordPixel(ix0: number, W: number): boolean {
  return ix0 >= 0 && ix0 + 4 <= W;
}

/**
 * A 1x1 conv's gather per unit (conv.c `pointwise`, a pixel pair or a row's lone last pixel): its channels in groups
 * of four, chunk by chunk, a chunk's last one to three channels as a group too (ASSUMPTION: their byte copies and the
 * word's zero padding cost about a group's packing). The C takes this gather for pixels inside the input (all of
 * them without padding); the padded 1x1 convs' border pairs, which take the other gathers, are counted here too.
 */
export function pointwiseQuads(channels: number, chunk: number): number {
  let quads = 0;
  for (let k0 = 0; k0 < channels; k0 += chunk) quads += Math.ceil(Math.min(chunk, channels - k0) / 4);
  return quads;
}

/** Bytes of taps gathered per chunk: two columns of this size and the block's accumulators (BLOCK x 2 words) live on
 * a core's stack, and the board gives a cluster core other than core 0 1 KiB (main_pulp.c, hal_iss.c; the ISS faults
 * a core whose sp leaves its stack). 144 = 16 3x3 windows, a multiple of 4 (no tail per chunk): the conv closure's
 * frame is 704 bytes (gcc -fstack-usage, rv32-xpulp). With 256 the frame (848 and more) and the tile loop's passed
 * 1 KiB once tiles held 32 channels (found on the ISS); 216 and 144 run CNN_Linear1/2 in the same cycles. */
const CHUNK = 144;
/**
 * Shortest filter (taps) the SIMD path takes: four words; a 1x1 conv's, one word (it gathers nothing: its taps are
 * the channels). The scalar loop costs about ten times the SIMD path's cycles a MAC (MobileNetV1-0.25's 1x1 conv of 8
 * input channels on 8 ISS cores: 561,742 -> 220,994 cycles once it took the SIMD path). Each tile shape of a layer
 * carries its own copy of the SIMD code, so short windowed filters (3 channels x 2x2) keep the smaller loops: with
 * hundreds of tile shapes (an L1 of 300 bytes) their copies passed the 2 MiB of L2.
 */
const MIN_TAPS = 16;
const MIN_TAPS_1X1 = 4;
/** Output channels per unit at most: the gathered columns serve this many filters before the next pair of pixels. */
const BLOCK = 32;

/**
 * The C kernel's SIMD plan (conv.c.mustache, `cdot`): the filter length K, pixel pairs per output row, the chunk of it gathered at once (whole
 * input channels, at most CHUNK bytes), channels per unit (halved while the units, rows x pairs x blocks, would leave cores idle) and the dot product for the
 * operands' signedness. `pairRows` (stride and dilation 1 along x, windows at most 3 wide): the two pixels' window rows
 * overlap in one word of the input row, gathered with one load and two stores; `pairShift` (rows of 4 or more): the
 * word is read inside the row and shifted, so pairs at the left and right padding and at the row's end take it too.
 */
function dotPlan(K: number, window: number, rows: number, pairs: number, CO: number, cores: number, xt: string, wt: string) {
  let block = Math.min(CO, BLOCK);
  while (block > 2 && rows * pairs * Math.ceil(CO / block) < cores) block = Math.ceil(block / 2);
  const sign = (t: string): string => (t === 'uint8' ? 'u' : 's');
  // Whole input channels per chunk, so the gather walks rows of the window.
  const chunk = Math.min(K, Math.floor(CHUNK / window) * window);
  return {
    K, pairs, chunk, block, blocks: Math.ceil(CO / block),
    // All taps in one chunk of a word or more: the blocks of four channels keep their accumulators in registers and
    // requantize as their loop ends (conv.c `fused`); otherwise every channel's live in memory (`accs`, CONV_ACC).
    fused: K <= chunk && K >= 4,
    // The chunks holding a word of taps or more: the ones that call the 4x2 block (conv.c, `words > 0`).
    chunkWords: Math.floor(K / chunk) + (K % chunk >= 4 ? 1 : 0),
    // The taps the dot loop computes: a chunk's last 1..3 taps take a whole word (the columns are zero past them and
    // the loop runs the word that holds them; conv.c `over`), a chunk shorter than a word its own taps.
    computedTaps: Math.floor(K / chunk) * Math.ceil(chunk / 4) * 4 + (K % chunk >= 4 ? Math.ceil((K % chunk) / 4) * 4 : K % chunk),
    fn: `fg_dot4_${sign(xt)}${sign(wt)}`, fn4: `fg_dot4x2_${sign(xt)}${sign(wt)}`,
  };
}

/**
 * What of the SIMD conv's C a layer runs (conv.c.mustache renders only that: its bytes are what the generator's
 * estimate of the compiled code reads, backend/c-image.ts codeBytes, and gcc does not prove all of it dead itself):
 * `evenRow`: every unit has two pixels (WO even), so `pix` is the constant 2; `inside`: every window lies inside the
 * input (no padding reached), so the gathers' border branches are dead, and a 1x1 window's pair gather is the only
 * one (`pwInside`); `tapTail`: some chunk's taps end off a word (`len & 3`); `accsLive`: some channels' accumulators
 * live in `accs` (not fused, or a block's channel count not a multiple of 4), `pairTail` / `oneTail`: a block has 2 or
 * 3 / an odd count of channels past its groups of four (all of them past none in a chunk of fewer than 4 taps).
 */
function liveCode(plan: ReturnType<typeof dotPlan>, g: { CO: number; H: number; W: number; HO: number; WO: number; PT: number; PL: number; SY: number; SX: number; DY: number; DX: number; KH: number; KW: number }) {
  const inside = g.PT === 0 && g.PL === 0 && (g.HO - 1) * g.SY + (g.KH - 1) * g.DY < g.H && (g.WO - 1) * g.SX + (g.KW - 1) * g.DX < g.W;
  const counts = [...new Set([Math.min(plan.block, g.CO), g.CO - (plan.blocks - 1) * plan.block])];
  let tapTail = false;
  let wordless = false; // a chunk of fewer than 4 taps: its channels all go through the pair and one-channel loops
  for (let k0 = 0; k0 < plan.K; k0 += plan.chunk) {
    const len = Math.min(plan.chunk, plan.K - k0);
    tapTail ||= (len & 3) !== 0;
    wordless ||= len < 4;
  }
  return {
    evenRow: g.WO % 2 === 0,
    inside,
    pwInside: inside && g.SX === 1 && g.DX === 1 && g.KH * g.KW === 1,
    tapTail,
    accsLive: !plan.fused || counts.some((c) => c % 4 !== 0),
    pairTail: counts.some((c) => c % 4 >= 2 || (wordless && c >= 2)),
    oneTail: counts.some((c) => c % 2 === 1),
  };
}

/**
 * The class of an output of the SIMD conv (conv.c FG_CONV_OUT): CONV_OUT on a core without XpulpV2, where its row
 * address, parameters and plain clamp cost apart from the GEMM's output stage; with XpulpV2 REQUANT, as the cost fit
 * of that core measures it (its table keeps one class for both: scripts/cost-fit/targets.ts).
 */
export function simdOutClass(platform: Platform): 'CONV_OUT' | 'REQUANT' {
  return platform.image?.xpulp ? 'REQUANT' : 'CONV_OUT';
}

/** The 4-channel groups of every block of `block` channels out of CO (the last block may be short). */
function blockQuads(CO: number, block: number): number {
  return Math.floor(CO / block) * (block >> 2) + ((CO % block) >> 2);
}

/** The largest sum of |w| over one output channel's filter, by weight data: the planner and emit both ask per layer. */
const filterSums = new WeakMap<object, Map<string, number>>();

function largestFilterSum(data: ArrayLike<number>, CO: number, per: number): number {
  let byShape = filterSums.get(data);
  if (!byShape) {
    byShape = new Map();
    filterSums.set(data, byShape);
  }
  const key = `${CO}x${per}`;
  let best = byShape.get(key);
  if (best === undefined) {
    best = 0;
    for (let co = 0; co < CO; co++) {
      let s = 0;
      for (let i = 0; i < per; i++) s += Math.abs(data[co * per + i]);
      best = Math.max(best, s);
    }
    byShape.set(key, best);
  }
  return best;
}
