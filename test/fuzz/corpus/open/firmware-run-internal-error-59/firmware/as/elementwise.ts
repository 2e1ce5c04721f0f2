// The elementwise layer on a worker: the fused expression (Add, Sub, RequantShift, iHardswish, ...) arrives as
// stack-machine code in the layer's parameters, since the firmware is the same for every model. Every value is
// 64-bit. Tiles are rows of the outermost loop, double-buffered as in gemm.ts. Format:
// generator/platforms/spinnaker2/elementwise.ts and ew-code.ts.

import { compute } from "./hal/chip";
import { ELEMENT } from "./hal/cost";
import { dma_in, dma_out } from "./s2";
import { DMA_BYTES, DMA_DRAM, DMA_SIZE, DMA_SRAM } from "./layout";
import { tile_loop, wait } from "./tiles";
import { loadElement, storeElement, typeBytes, word } from "./elements";

const TILE_BYTES: u32 = 224;
const LEAVES: u32 = 44;
const LEAF_BYTES: u32 = 20;
const CODE: u32 = 44 + 8 * 20;
const STACK = memory.data(16 * 8, 8);
/** Per operand: SRAM base, type, strides s0..s3 (six words). */
const OPERANDS = memory.data(8 * 24, 8);

const LEAF: u32 = 1;
const CONST: u32 = 2;
const ADD: u32 = 3;
const SUB: u32 = 4;
const MUL: u32 = 5;
const TDIV: u32 = 6;
const MIN: u32 = 7;
const MAX: u32 = 8;
const SHR: u32 = 9;
const CLIP: u32 = 10;
const ABS: u32 = 11;
const SIGN: u32 = 12;
const SIGNP: u32 = 13;
const WRAP8: u32 = 14;

@inline function push(sp: i32, v: i64): i32 {
  store<i64>(STACK + (<usize>sp << 3), v);
  return sp + 1;
}

@inline function at(sp: i32): i64 {
  return load<i64>(STACK + (<usize>sp << 3));
}

/** Runs the code for element (i, j1, j2, j3) of the tile. */
function evaluate(code: usize, words: u32, i: u32, j1: u32, j2: u32, j3: u32): i64 {
  let sp: i32 = 0;
  for (let pc: u32 = 0; pc < words; pc++) {
    const w = load<u32>(code + (<usize>pc << 2));
    const op = w & 0xff;
    if (op == LEAF) {
      const o = OPERANDS + <usize>((w >> 8) * 24);
      const idx = i * load<u32>(o, 8) + j1 * load<u32>(o, 12) + j2 * load<u32>(o, 16) + j3 * load<u32>(o, 20);
      const t = load<u32>(o, 4);
      sp = push(sp, loadElement(t, <usize>load<u32>(o) + <usize>(idx * typeBytes(t))));
    } else if (op == CONST) {
      sp = push(sp, load<i64>(code + (<usize>(pc + 1) << 2)));
      pc += 2;
    } else if (op == SHR) {
      store<i64>(STACK + (<usize>(sp - 1) << 3), at(sp - 1) >> <i64>(w >> 8));
    } else if (op == CLIP) {
      const lo = load<i64>(code + (<usize>(pc + 1) << 2));
      const hi = load<i64>(code + (<usize>(pc + 3) << 2));
      const v = at(sp - 1);
      store<i64>(STACK + (<usize>(sp - 1) << 3), v < lo ? lo : v > hi ? hi : v);
      pc += 4;
    } else if (op >= ABS) {
      const v = at(sp - 1);
      const r: i64 = op == ABS ? (v < 0 ? -v : v) : op == SIGN ? <i64>(v > 0) - <i64>(v < 0) : op == SIGNP ? (v >= 0 ? 1 : -1) : <i64><i8>v;
      store<i64>(STACK + (<usize>(sp - 1) << 3), r);
    } else {
      const b = at(sp - 1);
      const a = at(sp - 2);
      sp--;
      const r: i64 = op == ADD ? a + b : op == SUB ? a - b : op == MUL ? a * b : op == TDIV ? a / b : op == MIN ? (a < b ? a : b) : (a > b ? a : b);
      store<i64>(STACK + (<usize>(sp - 1) << 3), r);
    }
  }
  return at(0);
}

function fetch(me: usize, tile: usize): i32 {
  let ticket = -1;
  const n = word(tile, 40);
  for (let k: u32 = 0; k < n; k++) {
    const d = tile + 44 + <usize>(k * DMA_SIZE);
    ticket = dma_in(me + <usize>word(d, DMA_SRAM), word(d, DMA_DRAM), word(d, DMA_BYTES));
  }
  return ticket;
}

/** One tile; it writes the output slot tile i-2 used, so that write-back must be done first. */
function run_tile(me: usize, p: usize, tile: usize, slotWriteBack: i32): i32 {
  const n = word(p, 0);
  const outType = word(p, 4);
  const d1 = word(p, 8);
  const d2 = word(p, 12);
  const d3 = word(p, 16);
  const words = word(p, 36);
  for (let k: u32 = 0; k < n; k++) {
    const o = OPERANDS + <usize>(k * 24);
    const leaf = p + <usize>(LEAVES + k * LEAF_BYTES);
    store<u32>(o, <u32>(me + <usize>word(tile, 8 + 4 * k)));
    for (let f: u32 = 0; f < 5; f++) store<u32>(o + <usize>(4 + 4 * f), word(leaf, 4 * f));
  }
  const rows = word(tile, 0);
  const y = me + <usize>word(tile, 4);
  const yBytes = typeBytes(outType);
  wait(slotWriteBack);
  for (let i: u32 = 0; i < rows; i++) {
    for (let j1: u32 = 0; j1 < d1; j1++) {
      for (let j2: u32 = 0; j2 < d2; j2++) {
        for (let j3: u32 = 0; j3 < d3; j3++) {
          const idx = i * word(p, 20) + j1 * word(p, 24) + j2 * word(p, 28) + j3 * word(p, 32);
          storeElement(outType, y + <usize>(idx * yBytes), evaluate(p + CODE, words, i, j1, j2, j3));
        }
      }
    }
  }
  compute(ELEMENT, <i32>(rows * d1 * d2 * d3 * word(p, 40)));
  const out = tile + 204;
  return dma_out(me + <usize>word(out, DMA_SRAM), word(out, DMA_DRAM), word(out, DMA_BYTES));
}

export function elementwise_run(me: usize, p: usize, block: usize): void {
  tile_loop(me, p, block, TILE_BYTES, fetch, run_tile);
}
