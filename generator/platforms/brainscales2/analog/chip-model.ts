/**
 * The reference of the BrainScaleS-2 analog vector-matrix multiply: SEMANTICS.md 3's mock model (5-bit inputs,
 * weights in [-63, 63], per 128-row block `local = (x_b . W_b) * num_sends * gain`, Gaussian noise, floor, clip to
 * int8) on a chip with seeded fixed-pattern noise: a gain per physical synapse (a signed weight sits on the row pair
 * 2r (positive) / 2r + 1 (negative)), a gain and an offset per neuron, all drawn from the chip seed; temporal noise
 * from its own seed, or none. The emulator (emulator/assembly/brainscales2/) computes the same values with the same
 * f64 operations in the same order; the two are compared bit for bit.
 */
import {
  ARRAYS, COLUMNS, INPUT_MAX, KIND_NEURON_GAIN, KIND_NEURON_OFFSET, KIND_SYNAPSE, KIND_TEMPORAL, NEURON_GAIN_SPREAD,
  NEURON_OFFSET_STD, SEED_SALT, SIGNED_ROWS, SYNAPSE_GAIN_SPREAD, WEIGHT_MAX,
} from './constants.js';
import { keyedGauss, mix32, seedOf, XorShift32 } from './random.js';

export interface ChipConfig {
  /** Identity of the emulated chip: its fixed pattern. */
  chipSeed: number;
  /** Fixed-pattern noise on (seeded by chipSeed) or off (every gain 1, every offset 0). */
  fixedPattern: boolean;
  /** Seed of the temporal noise stream; restarted by every chip() call. */
  noiseSeed: number;
  /** Standard deviation of the temporal noise in output LSB; 0 switches it off. */
  noiseStd: number;
}

/** The key of one fixed-pattern draw. */
export function patternKey(chipSeed: number, kind: number, array: number, row: number, col: number): number {
  return (mix32((chipSeed ^ SEED_SALT) >>> 0) ^ ((kind << 17) | (array << 16) | (row << 8) | col)) >>> 0;
}

export function synapseGain(cfg: ChipConfig, array: number, physRow: number, col: number): number {
  return cfg.fixedPattern ? 1 + SYNAPSE_GAIN_SPREAD * keyedGauss(patternKey(cfg.chipSeed, KIND_SYNAPSE, array, physRow, col)) : 1;
}

/** Physical synapse rows per array (two per signed row). */
const SYNAPSE_ROWS = 2 * SIGNED_ROWS;
const gainTables = new Map<string, Float64Array>();

/**
 * Every synapse's gain of a chip, [array][physical row][column], computed once per chip (the same values as
 * synapseGain: a table, because a model's layers write hundreds of thousands of synapses per inference).
 */
function synapseGains(cfg: ChipConfig): Float64Array {
  const key = `${cfg.chipSeed >>> 0}:${cfg.fixedPattern}`;
  let t = gainTables.get(key);
  if (!t) {
    t = new Float64Array(ARRAYS * SYNAPSE_ROWS * COLUMNS);
    for (let a = 0; a < ARRAYS; a++) {
      for (let r = 0; r < SYNAPSE_ROWS; r++) {
        for (let c = 0; c < COLUMNS; c++) t[(a * SYNAPSE_ROWS + r) * COLUMNS + c] = synapseGain(cfg, a, r, c);
      }
    }
    if (gainTables.size >= 8) gainTables.clear();
    gainTables.set(key, t);
  }
  return t;
}

export function neuronGain(cfg: ChipConfig, array: number, col: number): number {
  return cfg.fixedPattern ? 1 + NEURON_GAIN_SPREAD * keyedGauss(patternKey(cfg.chipSeed, KIND_NEURON_GAIN, array, 0, col)) : 1;
}

export function neuronOffset(cfg: ChipConfig, array: number, col: number): number {
  return cfg.fixedPattern ? NEURON_OFFSET_STD * keyedGauss(patternKey(cfg.chipSeed, KIND_NEURON_OFFSET, array, 0, col)) : 0;
}

/** The first state of the temporal noise stream of a seed. */
export function temporalState(noiseSeed: number): number {
  return seedOf((mix32((noiseSeed ^ SEED_SALT) >>> 0) ^ (KIND_TEMPORAL << 17)) >>> 0);
}

const clip8 = (v: number): number => (v < -128 ? -128 : v > 127 ? 127 : v);

/** The analog core as the firmware drives it: write synapse blocks, run vector-matrix multiplies on them. */
export class AnalogChip {
  /** Effective weight of signed row r, column c of each array: w * the gain of the synapse that holds it. */
  private readonly eff: Float64Array[] = [];
  private readonly gain: Float64Array[] = [];
  private readonly offset: Float64Array[] = [];
  private readonly noise: XorShift32;

  constructor(readonly cfg: ChipConfig) {
    for (let a = 0; a < ARRAYS; a++) {
      this.eff.push(new Float64Array(SIGNED_ROWS * COLUMNS));
      const g = new Float64Array(COLUMNS);
      const o = new Float64Array(COLUMNS);
      for (let c = 0; c < COLUMNS; c++) {
        g[c] = neuronGain(cfg, a, c);
        o[c] = neuronOffset(cfg, a, c);
      }
      this.gain.push(g);
      this.offset.push(o);
    }
    this.noise = new XorShift32(temporalState(cfg.noiseSeed));
  }

  /** Writes weights w(r, c) (in [-63, 63]) to signed rows row0.., columns col0.. of `array`. */
  configure(array: number, row0: number, col0: number, rows: number, cols: number, w: (r: number, c: number) => number): void {
    const gains = synapseGains(this.cfg);
    if (row0 < 0 || cols < 0 || rows < 0 || row0 + rows > SIGNED_ROWS || col0 < 0 || col0 + cols > COLUMNS) {
      throw new Error(`synapse block ${rows}x${cols} at (${row0}, ${col0}) outside the ${SIGNED_ROWS}x${COLUMNS} array`);
    }
    const e = this.eff[array];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const v = w(r, c);
        if (!Number.isInteger(v) || v < -WEIGHT_MAX || v > WEIGHT_MAX) throw new Error(`weight ${v} outside [-63, 63]`);
        const phys = 2 * (row0 + r) + (v < 0 ? 1 : 0);
        e[(row0 + r) * COLUMNS + col0 + c] = v * gains[(array * SYNAPSE_ROWS + phys) * COLUMNS + col0 + c];
      }
    }
  }

  /**
   * One analog run: inputs x (in [0, 31]) on signed rows row0..row0+rows-1, outputs of columns col0..col0+cols-1,
   * each `clip(floor(((dot * numSends) * gain) * neuronGain + neuronOffset + noise), -128, 127)`; the noise is drawn
   * column by column in order.
   */
  run(array: number, row0: number, col0: number, rows: number, cols: number, x: ArrayLike<number>, numSends: number, gain: number): number[] {
    const e = this.eff[array];
    const out: number[] = new Array(cols);
    for (let r = 0; r < rows; r++) {
      if (x[r] < 0 || x[r] > INPUT_MAX) throw new Error(`input ${x[r]} outside [0, 31]`);
    }
    for (let c = 0; c < cols; c++) {
      let dot = 0;
      for (let r = 0; r < rows; r++) dot += x[r] * e[(row0 + r) * COLUMNS + col0 + c];
      let v = dot * numSends * gain;
      v = v * this.gain[array][col0 + c] + this.offset[array][col0 + c];
      if (this.cfg.noiseStd !== 0) v = v + this.cfg.noiseStd * this.noise.gauss();
      out[c] = clip8(Math.floor(v));
    }
    return out;
  }
}

/**
 * SEMANTICS.md 3's mock model without noise, on the whole matrix at once (no chip, no placement): x (M x K, [0, 31]),
 * W (K x N, [-63, 63]); blocks of 128 rows, each floored and clipped, summed and clipped again. What a partitioned run
 * without fixed-pattern or temporal noise must equal.
 */
export function mockMatmul(x: ArrayLike<number>, W: ArrayLike<number>, M: number, K: number, N: number, numSends: number, gain: number): number[] {
  const y: number[] = new Array(M * N);
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      let total = 0;
      for (let k0 = 0; k0 < K; k0 += SIGNED_ROWS) {
        let dot = 0;
        for (let k = k0; k < Math.min(K, k0 + SIGNED_ROWS); k++) dot += x[m * K + k] * W[k * N + n];
        total += clip8(Math.floor(dot * numSends * gain));
      }
      y[m * N + n] = clip8(total);
    }
  }
  return y;
}
