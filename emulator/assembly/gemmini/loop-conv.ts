// loop_conv_ws (funct 15) and its configuration (16..21): the weight-stationary convolution macro, expanded into the
// primitive commands as Spike's model does (gemmini_t::loop_conv_ws): bias into the accumulator, the padded input
// tile and the weights into the scratchpad, one preload/compute per (output channel block, kernel row, kernel
// column group, input channel block, batch, output row, output column block), then the results out (optionally
// max-pooled). The moves and computes run through the same units, reservation stations and hazards as host-issued
// ones (timing.ts), each unit's stream on its own clock. The loop reconfigures mvin states 0..2 (and config_mvout
// around a pooled store) as the hardware's does; those settings stay after it.
// Modelled: batches, stride, padding, kernel dilation, depthwise (dw), wrot180, bias or none, pooling, activation,
// several pixels per row (max_pixels_per_row). Not modelled (fault): the transposes (trans_output_1203,
// trans_weight_1203, trans_weight_0132, trans_input_3120), input dilation and downsampling.

import { ACC_ROWS, DIM, MAX_ROW_BYTES, SPAD_ROWS } from "../chips/gemmini";
import { GARBAGE_ADDR } from "./addr";
import { accScale, config } from "./config";
import { fail } from "./faults";
import { mvin, mvout } from "./move";
import { compute, preload } from "./array";
import { beginUnroll, endUnroll } from "./timing";
import { msgBegin, msgDec, msgText, raise } from "../fault";
import { msgLayer } from "../events";

// configuration (field names of gemmini.h's gemmini_loop_conv_ws)
let batchSize: i32 = 0;
let inRowDim: i32 = 0;
let inColDim: i32 = 0;
let inChannels: i32 = 0;
let outChannels: i32 = 0;
let outRowDim: i32 = 0;
let outColDim: i32 = 0;
let poolOutRowDim: i32 = 0;
let poolOutColDim: i32 = 0;
let stride: i32 = 0;
let kernelDim: i32 = 0;
let kernelDilation: i32 = 0;
let poolSize: i32 = 0;
let poolStride: i32 = 0;
let batches: i32 = 0;
let porows: i32 = 0;
let pocols: i32 = 0;
let pochs: i32 = 0;
let krows: i32 = 0;
let kcols: i32 = 0;
let kchs: i32 = 0;
let lpad: i32 = 0;
let rpad: i32 = 0;
let upad: i32 = 0;
let dpad: i32 = 0;
let plpad: i32 = 0;
let pupad: i32 = 0;
let orows: i32 = 0;
let ocols: i32 = 0;
let inStride: i32 = 0;
let weightStride: i32 = 0;
let outStride: i32 = 0;
let weights: u64 = 0;
let output: u64 = 0;
let bias: u64 = 0;
let input: u64 = 0;
/** The accumulator half each of D and C starts at, alternating between loops (Spike's and gemmini.h's statics). */
let dRow: u32 = 0;
let cRow: u32 = 0;
/**
 * The scratchpad half the loop's input and weights go to. LoopConv.scala holds concurrent_loops = 2 loops, loop slot
 * i with its own a_addr_start = i x half and b_addr_end at the end of half i, the slots taken in turn: so successive
 * loops alternate halves and the next loop's moves in do not wait for this loop's computes (spad ids 0; a spad id 2
 * names the second half, as for loop_ws).
 */
let spadHalf: i32 = 0;

export function resetGemminiConv(): void {
  batchSize = inRowDim = inColDim = inChannels = outChannels = outRowDim = outColDim = 0;
  poolOutRowDim = poolOutColDim = stride = kernelDim = kernelDilation = poolSize = poolStride = 0;
  batches = porows = pocols = pochs = krows = kcols = kchs = 0;
  lpad = rpad = upad = dpad = plpad = pupad = orows = ocols = 0;
  inStride = weightStride = outStride = 0;
  weights = output = bias = input = 0;
  dRow = cRow = 0;
  spadHalf = 0;
}

function f16(v: u64, lo: i32): i32 {
  return <i32>((v >> <u64>lo) & 0xffff);
}

function f8(v: u64, lo: i32): i32 {
  return <i32>((v >> <u64>lo) & 0xff);
}

/** funct 16..21: rs1/rs2 of gemmini.h's gemmini_loop_conv_ws macro. */
export function loopConvConfig(funct: i32, rs1: u64, rs2: u64): void {
  if (funct == 16) {
    batchSize = f16(rs1, 0);
    inRowDim = f16(rs1, 16);
    inChannels = f16(rs1, 32);
    outChannels = f16(rs1, 48);
    outRowDim = f16(rs2, 0);
    poolOutRowDim = f16(rs2, 16);
    outColDim = f16(rs2, 32);
    stride = f8(rs2, 48);
    // rs2[63:56], the padding, is only the software tiler's: the loop takes its per-side paddings below
  } else if (funct == 17) {
    kernelDim = f16(rs1, 48);
    poolOutColDim = f16(rs1, 32);
    poolSize = f16(rs1, 16);
    poolStride = f8(rs1, 8);
    // rs1[7:0], the pool padding, likewise: the loop takes plpad and pupad
    batches = f16(rs2, 48);
    porows = f16(rs2, 32);
    pocols = f16(rs2, 16);
    pochs = f16(rs2, 0);
  } else if (funct == 18) {
    krows = f16(rs1, 48);
    kcols = f16(rs1, 32);
    kchs = f16(rs1, 16);
    lpad = f16(rs1, 0);
    rpad = f16(rs2, 48);
    upad = f16(rs2, 32);
    dpad = f8(rs2, 24);
    plpad = f8(rs2, 16);
    inColDim = f16(rs2, 0);
  } else if (funct == 19) {
    orows = f16(rs1, 48);
    pupad = f8(rs1, 21);
    kernelDilation = f8(rs1, 0);
    inStride = f16(rs2, 48);
    weightStride = f16(rs2, 32);
    outStride = f16(rs2, 16);
    ocols = f16(rs2, 0);
  } else if (funct == 20) {
    weights = rs1;
    output = rs2;
  } else {
    bias = rs1;
    input = rs2;
  }
}

// @ts-ignore: decorator
@inline function local(rows: i32, cols: i32, addr: u32): u64 {
  return (<u64>rows << 48) | (<u64>cols << 32) | <u64>addr;
}

/** config_mvin: state, stride in bytes, block stride, pixel repeats; scale 1, not shrunk. */
function configLoad(state: i32, dramStride: u64, blockStride: i32, repeats: i32): void {
  config((<u64>reinterpret<u32>(<f32>1.0) << 32) | (<u64>blockStride << 16) | (<u64>repeats << 8) | (<u64>state << 3) | 1,
    dramStride);
}

/** config_mvout with the current scale (and optionally pooling): what the loop issues around its pooled store. */
function configStore(act: i32, pool: bool): void {
  let rs1: u64 = (<u64>act << 2) | 2;
  if (pool) {
    rs1 |= (<u64>ocols << 56) | (<u64>orows << 48) | (<u64>pocols << 40) | (<u64>porows << 32) |
      (<u64>poolOutColDim << 24) | (<u64>plpad << 10) | (<u64>pupad << 8) | (<u64>poolSize << 6) | (<u64>poolStride << 4);
  }
  config(rs1, (<u64>reinterpret<u32>(accScale) << 32) | <u64>outStride);
}

function tooLarge(what: string, rows: i64, most: i32): void {
  msgBegin("gemmini loop_conv_ws: bad config: the tile needs ");
  msgDec(rows);
  msgText(what);
  msgDec(most);
  msgText(")");
  msgLayer();
  raise();
}

export function loopConv(rs1: u64, rs2: u64): void {
  const noBias = (rs1 & 1) != 0;
  const wrot180 = ((rs1 >> 1) & 1) != 0;
  const dw = ((rs1 >> 6) & 1) != 0;
  let maxPixels = f8(rs1, 8);
  if (maxPixels == 0) maxPixels = 1;
  const aId = <i32>((rs1 >> 18) & 3);
  const bId = <i32>((rs1 >> 16) & 3);
  const noPool = (rs2 & 1) != 0;
  const act = <i32>((rs2 >> 3) & 3) != 0 ? 1 : 0; // Spike keeps it as a bool: ReLU or none
  if ((rs1 & 0x3c) != 0) fail("loop_conv_ws", "the input/weight/output transposes (rs1 bits 2..5) are not modelled");
  if ((rs2 & 6) != 0) fail("loop_conv_ws", "downsampling and input dilation (rs2 bits 1..2) are not modelled");
  if (batches == 0 || orows == 0 || ocols == 0 || krows == 0 || kcols == 0 || kchs == 0 || pochs == 0 || stride == 0) {
    fail("loop_conv_ws", "bad config: batches, orows, ocols, krows, kcols, kchs, pochs and stride must be at least 1");
  }
  if (kernelDilation == 0) kernelDilation = 1;
  const ochs = pochs;
  const dilKrows = krows + (kernelDilation - 1) * (krows - 1);
  const dilKcols = kcols + (kernelDilation - 1) * (kcols - 1);
  const irows = orows * stride + dilKrows - 1; // padded
  const icols = ocols * stride + dilKcols - 1;
  const irowsUnpadded = irows - upad - dpad;
  const icolsUnpadded = icols - lpad - rpad;
  const ichs = kchs;
  const ochBlocks = (ochs + DIM - 1) / DIM;
  const ichBlocks = (ichs + DIM - 1) / DIM;
  const bRows = ochBlocks * kcols * krows * kchs;
  const aRows = <i64>ichBlocks * batches * irows * icols;
  const cRows = <i64>ochBlocks * batches * orows * ocols;
  if (aRows + bRows > SPAD_ROWS / 2) tooLarge(" scratchpad rows for input and weights (at most ", aRows + bRows, SPAD_ROWS / 2);
  if (cRows > ACC_ROWS / 2) tooLarge(" accumulator rows (at most ", cRows, ACC_ROWS / 2);

  const half = SPAD_ROWS / 2;
  const own = aId == 0 && bId == 0;
  const second = own && spadHalf == 1;
  if (own) spadHalf ^= 1;
  const aStart: u32 = aId == 2 || second ? <u32>half : 0;
  const bStart: u32 = <u32>((bId == 2 || second ? SPAD_ROWS : half) - bRows);
  const dStart: u32 = 0x8000_0000 + dRow;
  const cStart: u32 = 0xc000_0000 + cRow;
  if (bias != 0) dRow = (dRow + <u32>(ACC_ROWS / 2)) % <u32>ACC_ROWS;
  if (output != 0) cRow = (cRow + <u32>(ACC_ROWS / 2)) % <u32>ACC_ROWS;
  const pixelsPlane = batches * orows * ocols;
  const inPlane = irows * icols;

  beginUnroll();
  // bias: one int32 row repeated down each output-column block (mvin3, main-memory stride 0)
  if (bias != 0) {
    const perMvin = min(ochs, MAX_ROW_BYTES / 4);
    configLoad(2, 0, pixelsPlane, 1);
    for (let b = 0; b < batches; b++) {
      for (let orow = 0; orow < orows; orow++) {
        for (let ocol = 0; ocol < ocols; ocol += DIM) {
          const I = min(DIM, ocols - ocol);
          for (let och = 0; och < ochs; och += perMvin) {
            const J = min(perMvin, ochs - och);
            const d = dStart + <u32>((och / DIM) * pixelsPlane + b * orows * ocols + orow * ocols + ocol);
            mvin(2, 14, noBias ? 0 : bias + <u64>(och * 4), local(I, J, d));
          }
        }
      }
    }
  }
  // input: the padded tile, one pixel per row, channel blocks inPlane x batches rows apart; padding moves in zeros
  if (input != 0) {
    const perMvin = min(ichs, MAX_ROW_BYTES);
    const spadStride = batches * inPlane;
    configLoad(0, <u64>inStride, spadStride, maxPixels);
    for (let b = 0; b < batches; b++) {
      for (let irow = -upad; irow < irowsUnpadded + dpad; irow++) {
        const irowPadded = irow + upad;
        let icol = -lpad;
        while (icol < icolsUnpadded + rpad) {
          let I = min(DIM, icolsUnpadded - icol);
          if (icol < 0) I = min(DIM, -icol);
          else if (icol >= icolsUnpadded) I = min(DIM, icolsUnpadded + rpad - icol);
          const icolPadded = icol + lpad;
          for (let ich = 0; ich < ichs; ich += perMvin) {
            const K = min(perMvin, ichs - ich);
            const a = aStart + <u32>((ich / DIM) * spadStride + b * inPlane + irowPadded * icols + icolPadded);
            const zeros = irow < 0 || irow >= irowsUnpadded || icol < 0 || icol >= icolsUnpadded;
            const src = zeros ? 0 : input + <u64>((b * inRowDim * inColDim + irow * inColDim + icol) * inStride + ich);
            mvin(0, 2, src, local(I, K, a));
          }
          icol += I;
        }
      }
    }
  }
  // weights: rows (kernel row, kernel column, input channel), columns the output channels; blocks of 16 output channels
  // krows x kcols x kchs rows apart
  if (weights != 0) {
    const perMvin = min(ochs, MAX_ROW_BYTES);
    configLoad(1, dw ? 1 : <u64>weightStride, krows * kcols * kchs, 1);
    for (let och = 0; och < ochs; och += perMvin) {
      for (let krow = 0; krow < krows; krow++) {
        for (let kcol = 0; kcol < kcols; kcol++) {
          for (let kch = 0; kch < kchs; kch += DIM) {
            const K = min(DIM, kchs - kch);
            const J = min(perMvin, ochs - och);
            const bAddr = bStart + <u32>((och / DIM) * krows * kcols * kchs + krow * kcols * kchs + kcol * kchs + kch);
            const w = dw ? weights + <u64>(krow * kernelDim + kcol) :
              weights + <u64>((krow * kernelDim * inChannels + kcol * inChannels + kch) * weightStride + och);
            mvin(1, 1, w, local(K, J, bAddr));
          }
        }
      }
    }
  }
  // the array: per weight block, every output pixel block accumulates onto C (address bit 30)
  for (let och = 0; och < ochs; och += DIM) {
    for (let krow = 0; krow < krows; krow++) {
      for (let kcol = 0; kcol < kcols; kcol += maxPixels) {
        for (let kch = 0; kch < kchs; kch += DIM) {
          let newWeights = true;
          for (let b = 0; b < batches; b++) {
            for (let orow = 0; orow < orows; orow++) {
              for (let ocol = 0; ocol < ocols; ocol += DIM) {
                const irow = orow * stride + krow * kernelDilation;
                const icol = ocol * stride + kcol * kernelDilation;
                const c = cStart + <u32>((och / DIM) * pixelsPlane + b * orows * ocols + orow * ocols + ocol);
                const pixels = min(maxPixels, kcols - kcol);
                const I = min(DIM, ocols - ocol);
                const J = min(DIM, ochs - och);
                const K = pixels * min(DIM, kchs - kch);
                const a = aStart + <u32>((kch / DIM) * batches * inPlane + b * inPlane + irow * icols + icol);
                const kr = wrot180 ? krows - krow - 1 : krow;
                const kc = wrot180 ? kcols - kcol - 1 : kcol;
                const bAddr = bStart + <u32>((och / DIM) * krows * kcols * kchs + kr * kcols * kchs + kc * kchs + kch);
                preload(local(K, J, newWeights ? bAddr : GARBAGE_ADDR), local(I, J, c));
                compute(newWeights, local(I, K, a), local(I, J, GARBAGE_ADDR));
                newWeights = false;
              }
            }
          }
        }
      }
    }
  }
  // results out: per pixel row block, or max-pooled per channel block
  if (output != 0 && noPool) {
    for (let b = 0; b < batches; b++) {
      for (let orow = 0; orow < orows; orow++) {
        for (let ocol = 0; ocol < ocols; ocol += DIM) {
          const I = min(DIM, ocols - ocol);
          for (let och = 0; och < ochs; och += DIM) {
            const J = min(DIM, ochs - och);
            const c = cStart + <u32>((och / DIM) * pixelsPlane + b * orows * ocols + orow * ocols + ocol);
            const out = output + <u64>((b * outRowDim * outColDim + orow * outColDim + ocol) * outStride + och);
            mvout(out, local(I, J, c));
          }
        }
      }
    }
  } else if (output != 0) {
    configStore(act, true);
    for (let b = 0; b < batches; b++) {
      for (let poch = 0; poch < pochs; poch += DIM) {
        const channels = min(DIM, pochs - poch);
        const c = cStart + <u32>((poch / DIM) * pixelsPlane + b * orows * ocols);
        mvout(output + <u64>(b * poolOutRowDim * poolOutColDim * outStride + poch), local(0, channels, c));
      }
    }
    configStore(act, false);
  }
  endUnroll();
}
