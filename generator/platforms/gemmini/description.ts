import type { PlatformDescription } from '../catalog.js';
import type { PlatformOption } from '../options.js';

export const GEMMINI_OPTIONS: PlatformOption[] = [
  {
    flag: '--depthwise-on <where>', key: 'depthwiseOn',
    help: 'where depthwise convolutions run: cost (the faster of the array and the host core by the cost rule), array, host (default cost)',
  },
];

/** Gemmini before its modules are loaded (platforms/catalog.ts). */
export const GEMMINI_DESCRIPTION: PlatformDescription = {
  name: 'gemmini', options: GEMMINI_OPTIONS, far: false, forward: false,
  load: async () => (await import('./platform.js')).gemmini,
};
