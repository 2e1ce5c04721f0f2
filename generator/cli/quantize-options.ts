import type { Command } from 'commander';
import { GenError } from '../errors.js';
import type { Calibrate } from '../quantize/clipping.js';
import type { Scheme } from '../quantize/types.js';

/*
 * The quantizer's command-line options, apart from the quantizer: `gen firmware` registers them without loading it
 * (it is loaded only when --calibration is given).
 */

export interface QuantizeFlags {
  calibration: string;
  scheme: string;
  calibrate: string;
  equalize?: boolean;
  biasCorrection?: boolean;
  context?: string;
  multiplierBits?: string;
}

const SCHEMES = ['per-tensor', 'per-channel', 'pow2'];
const METHODS = ['minmax', 'mse'];

/** Checked quantizer options from command-line flags. */
export function quantizeOptions(o: QuantizeFlags): { scheme: Scheme; calibrate: Calibrate; equalize?: boolean; biasCorrection?: boolean; context?: number; multiplierBits?: 15 | 24 } {
  if (!SCHEMES.includes(o.scheme)) throw new GenError('input', `--scheme ${o.scheme}: expected one of ${SCHEMES.join(', ')}`);
  if (!METHODS.includes(o.calibrate)) throw new GenError('input', `--calibrate ${o.calibrate}: expected minmax or mse`);
  const context = o.context === undefined ? undefined : Number(o.context);
  if (context !== undefined && !(Number.isInteger(context) && context > 0 && context <= 65536)) {
    throw new GenError('input', `--context ${o.context}: expected a whole number of tokens from 1 to 65536`);
  }
  const bits = o.multiplierBits === undefined ? undefined : Number(o.multiplierBits);
  if (bits !== undefined && bits !== 15 && bits !== 24) throw new GenError('input', `--multiplier-bits ${o.multiplierBits}: expected 15 or 24`);
  return { scheme: o.scheme as Scheme, calibrate: o.calibrate as Calibrate, equalize: o.equalize, biasCorrection: o.biasCorrection, context, multiplierBits: bits };
}

/** The options `gen quantize` and `gen firmware --calibration` share. */
export function addQuantizeOptions(c: Command, calibrationRequired: boolean): Command {
  const cal = '<npz>';
  const what = 'calibration inputs (.npz): arrays in graph-input order, [N, ...] for N samples of a batch-1 input';
  if (calibrationRequired) c.requiredOption(`--calibration ${cal}`, what);
  else c.option(`--calibration ${cal}`, `${what}; quantizes a float model first`);
  return c
    .option('--scheme <scheme>', 'weight scales: per-tensor, per-channel or pow2 (power-of-two scales: shift-only requantization)', 'per-channel')
    .option('--calibrate <method>', 'activation clipping ranges: minmax or mse', 'minmax')
    .option('--equalize', 'cross-layer equalisation (default for per-tensor and pow2: tried, kept when the output SQNR rises)')
    .option('--no-equalize', 'no cross-layer equalisation')
    .option('--no-bias-correction', 'no empirical bias correction')
    .option('--context <tokens>', 'decoder step graphs with key/value caches (past.* -> present.*): tokens the caches hold')
    .option('--multiplier-bits <bits>', 'requantization multipliers of accumulators: 15 (fast on the board) or 24 (onnxruntime\'s precision: the --qdq model lowers to the integer model exactly)', '15');
}

