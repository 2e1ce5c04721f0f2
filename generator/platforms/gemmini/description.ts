import type { PlatformDescription } from '../catalog.js';
import type { PlatformOption } from '../options.js';

export const GEMMINI_OPTIONS: PlatformOption[] = [
  {
    flag: '--depthwise-on <where>', key: 'depthwiseOn',
    help: 'where depthwise convolutions run: cost (the faster of the array and the host core by the cost rule), array, host (default cost)',
  },
  {
    flag: '--pool-on <where>', key: 'poolOn',
    help: "where max-pools between array layers run: array (the store unit's pooling on mvout, where it is exact; else the host core), host (default array)",
  },
];

/** Gemmini before its modules are loaded (platforms/catalog.ts). */
export const GEMMINI_DESCRIPTION: PlatformDescription = {
  name: 'gemmini', options: GEMMINI_OPTIONS, far: false, forward: false,
  load: async () => (await import('./platform.js')).gemmini,
};
