// BrainScaleS-2's device API (module "chip"; docs/brainscales2.md "Firmware interface"): the firmware chooses the
// emulated chip's identity and noise, writes synapse blocks and runs vector-matrix multiplies. Each call charges the
// calling core the time of its link transfers and of the analog run (chips/brainscales2.ts has the figures) and
// counts them for the profile (bss2_stat).

import { currentAgent, cyclesOf, spend } from "../agents";
import { currentLayer, recordBss2 } from "../events";
import { Q } from "../cost";
import {
  BSS2_FPGA_CYCLE, BSS2_LINK_CYCLES_PER_BYTE, BSS2_RUN_FIXED_FPGA, BSS2_SIGNED_ROWS,
} from "../chips/brainscales2";
import { analogRun, checkBlock, checkRange, effectiveWeight, failBss2, resetSynram, setChip, synramPlaced, writeWeights } from "./synram";

/** Counters of bss2_stat, in this order. */
const STAT_RUNS: i32 = 0;
const STAT_CONFIGS: i32 = 1;
const STAT_ANALOG_CYCLES: i32 = 2;
const STAT_LINK_BYTES: i32 = 3;
const STAT_LINK_CYCLES: i32 = 4;
const STAT_SYNAPSES: i32 = 5;
const STAT_MACS: i32 = 6;
const STATS: i32 = 7;
const stats = new StaticArray<i64>(STATS);

export function resetBss2(): void {
  resetSynram();
  for (let i = 0; i < STATS; i++) stats[i] = 0;
}

const PHASE_IN: i32 = 0;
const PHASE_RUN: i32 = 1;
const PHASE_OUT: i32 = 2;
const PHASE_CONFIG: i32 = 3;

/** The calling agent spends `cycles`; the profile gets the phase with its amount (bytes, or the run's MACs). */
function charge(phase: i32, amount: i64, cycles: i64): void {
  const agent = currentAgent();
  const start = cyclesOf(agent);
  spend(agent, cycles << Q);
  recordBss2(agent, currentLayer(), phase | (<i32>amount << 2), start, cyclesOf(agent));
}

function link(phase: i32, bytes: i64): void {
  const cycles = bytes * BSS2_LINK_CYCLES_PER_BYTE;
  stats[STAT_LINK_BYTES] += bytes;
  stats[STAT_LINK_CYCLES] += cycles;
  charge(phase, bytes, cycles);
}

/**
 * The emulated chip: `seed` fixes its fixed-pattern noise (`pattern` 0 switches it off), `noiseSeed` restarts the
 * temporal noise stream and `noiseStd` (output LSB, 0 = off) sets its size. Costs nothing (the host's choice of chip).
 */
export function bss2_chip(seed: u32, pattern: i32, noiseSeed: u32, noiseStd: f64): void {
  if (!synramPlaced()) failBss2("chip", "this chip has no synapse arrays (configure platform 5)");
  if (!(noiseStd >= 0) || noiseStd > 1e6) failBss2("chip", "noise std must be a number in [0, 1e6]");
  setChip(seed, pattern != 0, noiseSeed, noiseStd);
}

/**
 * Writes a block of int8 weights in [-63, 63] (at linear `w`, rows `stride` bytes apart) to signed rows row0.. and
 * columns col0.. of `array`: two synapses per weight over the link.
 */
export function bss2_configure(array: i32, row0: i32, col0: i32, rows: i32, cols: i32, w: usize, stride: i32): void {
  checkBlock("configure", array, row0, col0, rows, cols);
  if (stride < cols) failBss2("configure", "row stride shorter than a row");
  checkRange("configure", "weights", w, <i64>(rows - 1) * <i64>stride + <i64>cols);
  writeWeights(array, row0, col0, rows, cols, w, stride);
  stats[STAT_CONFIGS]++;
  stats[STAT_SYNAPSES] += 2 * <i64>rows * <i64>cols;
  link(PHASE_CONFIG, 2 * <i64>rows * <i64>cols);
}

/**
 * One vector-matrix multiply on `array`: `rows` 5-bit inputs (u8 at linear `x`) on signed rows row0.., int8 outputs
 * of columns col0.. to linear `y`. Time: the inputs over the link, num_sends x rows events `wait` FPGA cycles apart
 * and the run's fixed part, the outputs back over the link.
 */
export function bss2_run(array: i32, row0: i32, col0: i32, rows: i32, cols: i32, x: usize, y: usize, numSends: i32, wait: i32, gain: f64): void {
  checkBlock("run", array, row0, col0, rows, cols);
  if (numSends < 1 || numSends > 255) failBss2("run", "num_sends must be 1..255");
  if (wait < 1 || wait > 1000) failBss2("run", "wait_between_events must be 1..1000 FPGA cycles");
  if (!(gain > 0) || gain > 1) failBss2("run", "gain must be in (0, 1]");
  checkRange("run", "inputs", x, rows);
  checkRange("run", "outputs", y, cols);
  link(PHASE_IN, rows);
  analogRun(array, row0, col0, rows, cols, x, y, numSends, gain);
  const analog = (<i64>numSends * <i64>rows * <i64>wait + BSS2_RUN_FIXED_FPGA) * BSS2_FPGA_CYCLE;
  stats[STAT_ANALOG_CYCLES] += analog;
  charge(PHASE_RUN, <i64>rows * <i64>cols, analog);
  link(PHASE_OUT, cols);
  stats[STAT_RUNS]++;
  stats[STAT_MACS] += <i64>rows * <i64>cols;
}

/**
 * Counters since configure: 0 runs, 1 block writes, 2 analog cycles, 3 link bytes, 4 link cycles, 5 synapses written,
 * 6 analog multiply-accumulates.
 */
export function bss2_stat(i: i32): i64 {
  if (i < 0 || i >= STATS) return -1;
  return stats[i];
}

/** The effective weight (written weight times its synapse's gain) of signed row `row`, column `col`, for tests. */
export function bss2_effective_weight(array: i32, row: i32, col: i32): f64 {
  checkBlock("effective_weight", array, row, col, 1, 1);
  return effectiveWeight(array, row, col);
}

export const BSS2_ROWS_PER_BLOCK: i32 = BSS2_SIGNED_ROWS;
