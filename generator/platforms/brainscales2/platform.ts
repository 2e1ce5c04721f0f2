import { readFileSync } from 'node:fs';
import { GenError } from '../../errors.js';
import { foldBiasAdd } from '../../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../../frontend/passes/fuse-elementwise.js';
import { lowerQuantizedPass } from '../../frontend/passes/lower-quantized.js';
import { cv32e40pDivision, SCALAR_CORE_COSTS } from '../generic/platform.js';
import { CORE_KERNELS } from '../kernel-table.js';
import { oneOf, wholeNumber } from '../options.js';
import { BSS2_OPTIONS } from './description.js';
import type { Graph } from '../../ir/graph.js';
import type { Pass, Platform } from '../types.js';
import { DEFAULT_NOISE_STD } from './analog/constants.js';
import { lowerAnalog, type AnalogOptions, type Correction } from './lower-analog.js';
import { im2colKernel } from './im2col-kernel.js';
import { analogSamples } from './samples.js';
import { bss2MatmulKernel } from './matmul-kernel.js';

/** The emulated chip by default: chip 1, its fixed pattern on, hxtorch's default temporal noise from seed 1. */
export const DEFAULT_ANALOG: AnalogOptions = { analog: true, chipSeed: 1, fixedPattern: true, noiseSeed: 1, noiseStd: DEFAULT_NOISE_STD };

/** The corrections of --analog-calibration: a JSON file, or from code the array itself. */
function corrections(value: unknown): Correction[] {
  let v = value;
  if (typeof value === 'string') {
    try {
      v = JSON.parse(readFileSync(value, 'utf8'));
    } catch (e) {
      throw new GenError('input', `--analog-calibration ${value}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  const ok = Array.isArray(v) && v.every((c) => c && Array.isArray(c.a) && Array.isArray(c.b) && c.a.length === c.b.length
    && [...c.a, ...c.b].every((x: unknown) => typeof x === 'number' && Number.isFinite(x)));
  if (!ok) throw new GenError('input', '--analog-calibration: not a list of {"a": [numbers], "b": [numbers]} per analog layer');
  return v as Correction[];
}

function noiseStd(value: unknown): number {
  const v = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(v) || v < 0 || v > 64) throw new GenError('input', `--noise-std ${String(value)}: a number of output LSB in [0, 64]`);
  return v;
}

/** The lowering: the core passes without fuseRequant (the analog layers need the RequantShift after the product). */
function passes(o: AnalogOptions): Pass[] {
  return [lowerQuantizedPass, foldTrueIntegerDivPass, foldBiasAdd, lowerAnalog(o), fuseElementwise];
}

/**
 * BrainScaleS-2 in hxtorch's analog inference mode (HARDWARE.md "BrainScaleS-2"; docs/brainscales2.md): two synapse
 * arrays of 128 signed inputs x 256 outputs, driven over the FPGA link, beside a digital core. int8 matrix products
 * with constant weights and non-negative inputs run on the arrays (lower-analog.ts: 5-bit inputs, 6-bit weights, the
 * chip's 8-bit outputs, partitioned into blocks over both arrays and several runs); their requantization, the digital
 * sums of row blocks and everything else run on the core with the shared kernels. The analog layers give the chip's
 * values, not the int8 model's: the reference of the lowered graph (generator/reference/ops/analog-matmul.ts) is what
 * the firmware equals.
 */
export const brainscales2: Platform = {
  name: 'brainscales2',
  emulatorId: 5,
  // The digital core's clock, 250 MHz (emulator/assembly/chips/brainscales2.ts: the PPU at twice the FPGA's 125 MHz).
  clockHz: 250_000_000,
  cores: 1,
  // ASSUMPTION: the profile's utilisation is against one MAC per cycle of the digital core; the analog time is
  // reported apart (bss2 counters).
  peakMacsPerCoreCycle: 1,
  launch: 'call',
  // emulator/assembly/chips/brainscales2.ts: ASSUMPTION 64 MiB of memory on the digital side at 0x8000_0000.
  memories: [{ name: 'DRAM', chipBase: 0x8000_0000, size: 64 * 1024 * 1024 }],
  home: { memory: 'DRAM', offset: 0, size: 64 * 1024 * 1024 },
  passes: passes(DEFAULT_ANALOG),
  kernels: [bss2MatmulKernel, im2colKernel, ...CORE_KERNELS],
  // ASSUMPTION: the digital core (the PPU, or the host for what the PPU does not run) is priced as the generic scalar
  // core (docs/timing.md); the PPU's vector unit is not used.
  costs: SCALAR_CORE_COSTS,
  divisionCycles: cv32e40pDivision,
  image: {
    memory: 'DRAM', runtimeBytes: 16 * 1024, stackBytes: 8 * 1024, tileReserved: 0, tileLoadImage: false,
    boardFiles: [],
    rv32: { DRAM: 0x8000_0000 },
  },
  options: BSS2_OPTIONS,
  // loaded when used: forward.ts compiles models (the pipeline), which loads this file
  forward: async (model, batches, given, layers) => (await import('./forward.js')).forwardBatches(model, batches, given, layers),
  configure(self, given, context) {
    const onOff = (flag: string, v: unknown, fallback: boolean): boolean => (v === undefined ? fallback : oneOf(flag, v, ['on', 'off'] as const) === 'on');
    const seed = (flag: string, v: unknown, fallback: number): number => (v === undefined ? fallback : wholeNumber(flag, v, 0, 0xffff_ffff, 'a seed in 0..4294967295'));
    const o: AnalogOptions = {
      analog: onOff('--analog', given.analog, DEFAULT_ANALOG.analog),
      chipSeed: seed('--chip-seed', given.chipSeed, DEFAULT_ANALOG.chipSeed),
      fixedPattern: onOff('--fixed-pattern', given.fixedPattern, DEFAULT_ANALOG.fixedPattern),
      noiseSeed: seed('--noise-seed', given.noiseSeed, DEFAULT_ANALOG.noiseSeed),
      noiseStd: given.noiseStd === undefined ? DEFAULT_ANALOG.noiseStd : noiseStd(given.noiseStd),
      ...(given.analogCalibration === undefined ? {} : { corrections: corrections(given.analogCalibration) }),
      // --analog-samples, else the images a float model was quantized with (gen firmware --calibration)
      ...(given.analogSamples !== undefined ? { samples: analogSamples(given.analogSamples) }
        : context.calibrationSamples ? { samples: analogSamples(context.calibrationSamples, '(the --calibration images)') } : {}),
    };
    return { ...self, passes: passes(o) };
  },
};

/**
 * The lowered graph the reference interpreter runs for this platform: every pass but the elementwise fusion (whose
 * fused nodes the interpreter does not know), so the analog layers are Bss2Matmul nodes between ordinary ones.
 */
export function referenceGraph(p: Platform, g: Graph): Graph {
  return p.passes.filter((pass) => pass !== fuseElementwise).reduce((x, pass) => pass(x), g);
}
