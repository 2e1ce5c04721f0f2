// Gemmini's configuration registers and the config command (funct 0), decoded as gemmini.h encodes them
// (gemmini_extended3_config_ex, gemmini_extended5_config_ld, gemmini_extended2_config_st). Reset values are ours
// (the hardware's are not part of the ISA): firmware configures before use.

import { fail, failValue } from "./faults";

export const OS: i32 = 0;
export const WS: i32 = 1;

// config_ex: the execute pipeline
export let dataflow: i32 = OS;
export let sysAct: i32 = 0;
export let sysShift: i32 = 0;
export let aStride: i32 = 1;
export let cStride: i32 = 1;
export let aTranspose: i32 = 0;
export let bTranspose: i32 = 0;

// config_mvin: one set per mvin instruction (mvin, mvin2, mvin3 = state 0, 1, 2)
const LOAD_STATES: i32 = 3;
const LOAD_STRIDE = memory.data(LOAD_STATES * 8);
const LOAD_BLOCK_STRIDE = memory.data(LOAD_STATES * 4);
const LOAD_SCALE = memory.data(LOAD_STATES * 4);
const LOAD_SHRUNK = memory.data(LOAD_STATES * 4);
const LOAD_REPEATS = memory.data(LOAD_STATES * 4);

// config_mvout: the store pipeline
export let storeStride: u32 = 16;
export let accAct: i32 = 0;
export let accScale: f32 = 1;
export let poolStride: i32 = 0;
export let poolSize: i32 = 0;
export let poolUpad: i32 = 0;
export let poolLpad: i32 = 0;
export let poolOutDim: i32 = 0;
export let poolPorows: i32 = 0;
export let poolPocols: i32 = 0;
export let poolOrows: i32 = 0;
export let poolOcols: i32 = 0;

export function resetGemminiConfig(): void {
  dataflow = OS;
  sysAct = 0;
  sysShift = 0;
  aStride = 1;
  cStride = 1;
  aTranspose = 0;
  bTranspose = 0;
  for (let s = 0; s < LOAD_STATES; s++) {
    store<u64>(LOAD_STRIDE + (<usize>s << 3), 16);
    store<i32>(LOAD_BLOCK_STRIDE + (<usize>s << 2), 16);
    store<f32>(LOAD_SCALE + (<usize>s << 2), 1);
    store<i32>(LOAD_SHRUNK + (<usize>s << 2), 0);
    store<i32>(LOAD_REPEATS + (<usize>s << 2), 1);
  }
  storeStride = 16;
  accAct = 0;
  accScale = 1;
  poolStride = 0;
  poolSize = 0;
  poolUpad = 0;
  poolLpad = 0;
  poolOutDim = 0;
  poolPorows = 0;
  poolPocols = 0;
  poolOrows = 0;
  poolOcols = 0;
}

export function loadStride(state: i32): u64 {
  return load<u64>(LOAD_STRIDE + (<usize>state << 3));
}

export function loadBlockStride(state: i32): i32 {
  return load<i32>(LOAD_BLOCK_STRIDE + (<usize>state << 2));
}

export function loadScale(state: i32): f32 {
  return load<f32>(LOAD_SCALE + (<usize>state << 2));
}

/** Pixels per row (the first-layer optimisation): each row is also written shifted into the rows before it. */
export function loadRepeats(state: i32): i32 {
  return load<i32>(LOAD_REPEATS + (<usize>state << 2));
}

export function loadShrunk(state: i32): bool {
  return load<i32>(LOAD_SHRUNK + (<usize>state << 2)) != 0;
}

/** The unit a config command is ordered with: 0 load, 1 execute, 2 store (timing.ts). */
export function configUnit(rs1: u64): i32 {
  const kind = <i32>(rs1 & 3);
  return kind == 1 ? 0 : kind == 0 ? 1 : 2;
}

function bits(v: u64, lo: i32, width: i32): i32 {
  return <i32>((v >> <u64>lo) & ((<u64>1 << <u64>width) - 1));
}

function finite(f: f32): bool {
  return f - f == 0;
}

/** Activation field: 0 none, 1 ReLU; 2 (layernorm) and 3 (igelu) belong to the I-BERT extension, not modelled. */
function activation(cmd: string, act: i32): i32 {
  if (act > 1) failValue(cmd, "activation ", act, " (layernorm/igelu of the I-BERT extension) is not modelled");
  return act;
}

export function config(rs1: u64, rs2: u64): void {
  const kind = <i32>(rs1 & 3);
  if (kind == 0) configEx(rs1, rs2);
  else if (kind == 1) configLoad(rs1, rs2);
  else if (kind == 2) configStore(rs1, rs2);
  else fail("config_norm", "the I-BERT normalisation configuration is not modelled");
}

function configEx(rs1: u64, rs2: u64): void {
  const onlyStrides = bits(rs1, 7, 1) != 0;
  const df = bits(rs1, 2, 1);
  const act = activation("config_ex", bits(rs1, 3, 2));
  const shift = <u32>rs2;
  const at = bits(rs1, 8, 1);
  const bt = bits(rs1, 9, 1);
  if (!onlyStrides) {
    if (shift >= 32) failValue("config_ex", "bad config: shift ", shift, " (at most 31)");
    if ((df == OS && at == 0 && bt == 1) || (df == WS && at == 1 && bt == 1)) {
      fail("config_ex", df == OS ? "bad config: output-stationary cannot transpose B alone" :
        "bad config: weight-stationary cannot transpose both A and B");
    }
    dataflow = df;
    sysAct = act;
    sysShift = <i32>shift;
    aTranspose = at;
    bTranspose = bt;
  }
  aStride = bits(rs1, 16, 16);
  cStride = bits(rs2, 48, 16);
  // rs1[63:32], the execute pipeline's accumulator scale, has no effect in the functional model (the reference,
  // Spike's gemmini extension, scales on mvout with config_mvout's scale only): stored nowhere.
}

function configLoad(rs1: u64, rs2: u64): void {
  const state = bits(rs1, 3, 2);
  if (state > 2) failValue("config_mvin", "bad config: mvin state ", state, " (0 mvin, 1 mvin2, 2 mvin3)");
  const repeats = max(1, bits(rs1, 8, 8)); // 0 means 1 (Spike)
  const scale = reinterpret<f32>(<u32>(rs1 >> 32));
  if (!finite(scale)) fail("config_mvin", "bad config: the mvin scale is not a finite float32");
  store<u64>(LOAD_STRIDE + (<usize>state << 3), rs2);
  store<i32>(LOAD_BLOCK_STRIDE + (<usize>state << 2), bits(rs1, 16, 16));
  store<f32>(LOAD_SCALE + (<usize>state << 2), scale);
  store<i32>(LOAD_SHRUNK + (<usize>state << 2), bits(rs1, 2, 1));
  store<i32>(LOAD_REPEATS + (<usize>state << 2), repeats);
}

function configStore(rs1: u64, rs2: u64): void {
  const act = activation("config_mvout", bits(rs1, 2, 2));
  const scale = reinterpret<f32>(<u32>(rs2 >> 32));
  if (!finite(scale)) fail("config_mvout", "bad config: acc_scale is not a finite float32");
  const pStride = bits(rs1, 4, 2);
  const pSize = bits(rs1, 6, 2);
  if (pStride == 0 && pSize != 0) fail("config_mvout", "1-D mvout (pool size without pool stride) is not modelled");
  if (pStride != 0 && pSize == 0) fail("config_mvout", "bad config: max-pooling with a window of size 0");
  storeStride = <u32>rs2;
  accAct = act;
  accScale = scale;
  poolStride = pStride;
  poolSize = pSize;
  poolUpad = bits(rs1, 8, 2);
  poolLpad = bits(rs1, 10, 2);
  poolOutDim = bits(rs1, 24, 8);
  poolPorows = bits(rs1, 32, 8);
  poolPocols = bits(rs1, 40, 8);
  poolOrows = bits(rs1, 48, 8);
  poolOcols = bits(rs1, 56, 8);
}
