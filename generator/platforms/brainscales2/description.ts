import type { PlatformDescription } from '../catalog.js';
import type { PlatformOption } from '../options.js';

/** gen firmware / gen forward --analog and the emulated chip's seeds (parsed by platform.ts's configure). */
export const BSS2_OPTIONS: PlatformOption[] = [
  { flag: '--analog <on|off>', key: 'analog', help: 'on (default): int8 products with constant weights on the analog arrays; off: every layer on the digital core, exactly the int8 model' },
  { flag: '--chip-seed <n>', key: 'chipSeed', help: 'the emulated chip: seed of its fixed-pattern noise (0..4294967295; default 1)' },
  { flag: '--fixed-pattern <on|off>', key: 'fixedPattern', help: 'the chip\'s fixed-pattern noise (synapse and neuron gains, neuron offsets; default on)' },
  { flag: '--noise-seed <n>', key: 'noiseSeed', help: 'seed of the temporal noise (0..4294967295; default 1)' },
  { flag: '--noise-std <x>', key: 'noiseStd', help: 'temporal noise in output LSB (default 2, hxtorch\'s mock; 0 switches it off)' },
  { flag: '--analog-calibration <file>', key: 'analogCalibration', help: 'per analog layer and column, the correction a * v + b of the analog outputs (JSON, [{"a": [...], "b": [...]}, ...]; calibrate.ts makes it on the emulated chip)' },
  { flag: '--analog-samples <npz>', key: 'analogSamples', help: 'calibration samples, the integer model\'s inputs (one array per input, samples along the first axis, as gen forward --inputs): each analog layer\'s num_sends from the sums they give (default: an input-free bound)' },
];

/** BrainScaleS-2 before its modules are loaded (platforms/catalog.ts). It runs `gen forward`. */
export const BRAINSCALES2_DESCRIPTION: PlatformDescription = {
  name: 'brainscales2', options: BSS2_OPTIONS, far: false, forward: true,
  load: async () => (await import('./platform.js')).brainscales2,
};
