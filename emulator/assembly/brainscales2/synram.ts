// The analog core of BrainScaleS-2 (docs/brainscales2.md): two synapse arrays of 128 signed rows (a row pair each) x
// 256 columns, the neurons' gain and offset, and the temporal noise. Values are the generator's reference model's
// (generator/platforms/brainscales2/analog/chip-model.ts), computed with the same f64 operations in the same order.
// The state lives in linear memory after the chip's regions (placed by configure, as Gemmini's scratchpad is).

import { msgBegin, msgDec, msgText, raise } from "../fault";
import { msgLayer } from "../events";
import { msgAddress, placePrivate, regionAt, region_linear_base, region_size } from "../regions";
import {
  BSS2_ARRAYS, BSS2_COLUMNS, BSS2_INPUT_MAX, BSS2_NEURON_GAIN_SPREAD, BSS2_NEURON_OFFSET_STD, BSS2_SEED_SALT,
  BSS2_SIGNED_ROWS, BSS2_SYNAPSE_GAIN_SPREAD, BSS2_WEIGHT_MAX,
} from "../chips/brainscales2";
import { gaussFrom, gaussNext, keyedGauss, mix32, seedOf } from "./random";

const KIND_SYNAPSE: u32 = 0;
const KIND_NEURON_GAIN: u32 = 1;
const KIND_NEURON_OFFSET: u32 = 2;
const KIND_TEMPORAL: u32 = 3;

const CELLS: usize = <usize>(BSS2_SIGNED_ROWS * BSS2_COLUMNS);
/** Per array: the written weights (int8), their effective values (f64), the neurons' gain and offset (f64). */
const WEIGHT_BYTES: usize = <usize>BSS2_ARRAYS * CELLS;
const EFF_BYTES: usize = <usize>BSS2_ARRAYS * CELLS * 8;
const NEURON_BYTES: usize = <usize>(BSS2_ARRAYS * BSS2_COLUMNS * 8);

let weightBase: usize = 0;
let effBase: usize = 0;
let gainBase: usize = 0;
let offsetBase: usize = 0;
let placed = false;

let chipSeed: u32 = 0;
let fixedPattern = true;
let noiseStd: f64 = 0;
let noiseState: u32 = 1;

export function resetSynram(): void {
  placed = false;
}

export function synramPlaced(): bool {
  return placed;
}

/** Places and clears the state after the last region (configure calls this after placeRegions). */
export function placeSynram(): void {
  weightBase = placePrivate(WEIGHT_BYTES + EFF_BYTES + 2 * NEURON_BYTES, "BrainScaleS-2's synapse arrays");
  effBase = weightBase + WEIGHT_BYTES;
  gainBase = effBase + EFF_BYTES;
  offsetBase = gainBase + NEURON_BYTES;
  placed = true;
  setChip(0, true, 0, 0);
}

function patternKey(kind: u32, array: i32, row: i32, col: i32): u32 {
  return mix32(chipSeed ^ BSS2_SEED_SALT) ^ ((kind << 17) | (<u32>array << 16) | (<u32>row << 8) | <u32>col);
}

function synapseGain(array: i32, physRow: i32, col: i32): f64 {
  return fixedPattern ? 1.0 + BSS2_SYNAPSE_GAIN_SPREAD * keyedGauss(patternKey(KIND_SYNAPSE, array, physRow, col)) : 1.0;
}

// @ts-ignore: decorator
@inline function cell(array: i32, row: i32, col: i32): usize {
  return <usize>array * CELLS + <usize>(row * BSS2_COLUMNS + col);
}

/** The effective weight of a cell from its written weight and its synapse's gain. */
function refresh(array: i32, row: i32, col: i32): void {
  const c = cell(array, row, col);
  const w = <i32>load<i8>(weightBase + c);
  const phys = 2 * row + (w < 0 ? 1 : 0);
  store<f64>(effBase + (c << 3), <f64>w * synapseGain(array, phys, col));
}

/** A chip identity (its fixed pattern) and a fresh temporal noise stream; effective weights follow the new pattern. */
export function setChip(seed: u32, pattern: bool, noise: u32, std: f64): void {
  const changed = seed != chipSeed || pattern != fixedPattern;
  chipSeed = seed;
  fixedPattern = pattern;
  noiseStd = std;
  noiseState = seedOf(mix32(noise ^ BSS2_SEED_SALT) ^ (KIND_TEMPORAL << 17));
  for (let a = 0; a < BSS2_ARRAYS; a++) {
    for (let c = 0; c < BSS2_COLUMNS; c++) {
      const i = <usize>(a * BSS2_COLUMNS + c) << 3;
      store<f64>(gainBase + i, pattern ? 1.0 + BSS2_NEURON_GAIN_SPREAD * keyedGauss(patternKey(KIND_NEURON_GAIN, a, 0, c)) : 1.0);
      store<f64>(offsetBase + i, pattern ? BSS2_NEURON_OFFSET_STD * keyedGauss(patternKey(KIND_NEURON_OFFSET, a, 0, c)) : 0.0);
    }
  }
  if (changed) {
    for (let a = 0; a < BSS2_ARRAYS; a++) {
      for (let r = 0; r < BSS2_SIGNED_ROWS; r++) {
        for (let c = 0; c < BSS2_COLUMNS; c++) refresh(a, r, c);
      }
    }
  }
}

// --- faults: one line naming the command, what is wrong, and the layer ---

function begin(cmd: string, why: string): void {
  msgBegin("brainscales2 ");
  msgText(cmd);
  msgText(": ");
  msgText(why);
}

export function failBss2(cmd: string, why: string): void {
  begin(cmd, why);
  msgLayer();
  raise();
}

function failValue(cmd: string, why: string, v: i64, after: string): void {
  begin(cmd, why);
  msgDec(v);
  msgText(after);
  msgLayer();
  raise();
}

/** The array index and the block of signed rows x columns must lie on the chip. */
export function checkBlock(cmd: string, array: i32, row0: i32, col0: i32, rows: i32, cols: i32): void {
  if (!placed) failBss2(cmd, "this chip has no synapse arrays (configure platform 5)");
  if (array < 0 || array >= BSS2_ARRAYS) failValue(cmd, "no synapse array ", array, " (the chip has arrays 0 and 1)");
  if (rows < 1 || cols < 1) failBss2(cmd, "rows and cols must be at least 1");
  if (row0 < 0 || row0 + rows > BSS2_SIGNED_ROWS) failSpan(cmd, "rows ", row0, rows, " outside the array's 128 signed rows");
  if (col0 < 0 || col0 + cols > BSS2_COLUMNS) failSpan(cmd, "columns ", col0, cols, " outside the array's 256 columns");
}

/** "rows 100..128 outside ...": the span of `count` from `first`. */
function failSpan(cmd: string, what: string, first: i32, count: i32, outside: string): void {
  begin(cmd, what);
  msgDec(first);
  msgText("..");
  msgDec(<i64>first + <i64>count - 1);
  msgText(outside);
  msgLayer();
  raise();
}

/** `bytes` at linear `ptr` must lie inside one region of the chip. */
export function checkRange(cmd: string, what: string, ptr: usize, bytes: i64): void {
  const r = regionAt(ptr);
  const inside = r >= 0 && <i64>(ptr - region_linear_base(r)) + bytes <= <i64>region_size(r);
  if (!inside) {
    begin(cmd, what);
    msgText(" (");
    msgDec(bytes);
    msgText(" bytes at ");
    msgAddress(ptr, r);
    msgText(") outside the chip's memory");
    msgLayer();
    raise();
  }
}

/** Writes int8 weights (rows `stride` bytes apart, each in [-63, 63]) to a block of an array. */
export function writeWeights(array: i32, row0: i32, col0: i32, rows: i32, cols: i32, w: usize, stride: i32): void {
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = <i32>load<i8>(w + <usize>(r * stride + c));
      if (v < -BSS2_WEIGHT_MAX || v > BSS2_WEIGHT_MAX) {
        begin("configure", "weight ");
        msgDec(v);
        msgText(" at row ");
        msgDec(r);
        msgText(", column ");
        msgDec(c);
        msgText(" of the block outside [-63, 63]");
        msgLayer();
        raise();
      }
      store<i8>(weightBase + cell(array, row0 + r, col0 + c), <i8>v);
      refresh(array, row0 + r, col0 + c);
    }
  }
}

/**
 * One analog run: 5-bit inputs (u8 in [0, 31]) on signed rows row0.., int8 outputs of columns col0..:
 * clip(floor(((dot * numSends) * gain) * neuronGain + neuronOffset [+ noiseStd * gauss]), -128, 127), dot summed
 * over the rows in order, the noise drawn column by column.
 */
export function analogRun(array: i32, row0: i32, col0: i32, rows: i32, cols: i32, x: usize, y: usize, numSends: i32, gain: f64): void {
  for (let r = 0; r < rows; r++) {
    const v = <i32>load<u8>(x + <usize>r);
    if (v > BSS2_INPUT_MAX) failValue("run", "input ", v, " outside [0, 31] (5 bit)");
  }
  const ns = <f64>numSends;
  for (let c = 0; c < cols; c++) {
    let dot: f64 = 0;
    for (let r = 0; r < rows; r++) {
      dot += <f64>load<u8>(x + <usize>r) * load<f64>(effBase + (cell(array, row0 + r, col0 + c) << 3));
    }
    let v = dot * ns * gain;
    const n = <usize>(array * BSS2_COLUMNS + col0 + c) << 3;
    v = v * load<f64>(gainBase + n) + load<f64>(offsetBase + n);
    if (noiseStd != 0) {
      v = v + noiseStd * gaussFrom(noiseState);
      noiseState = gaussNext();
    }
    const f = Math.floor(v);
    store<i8>(y + <usize>c, <i8>(f < -128 ? -128 : f > 127 ? 127 : <i32>f));
  }
}

/** The effective weight of a cell, for tests. */
export function effectiveWeight(array: i32, row: i32, col: i32): f64 {
  return load<f64>(effBase + (cell(array, row, col) << 3));
}
