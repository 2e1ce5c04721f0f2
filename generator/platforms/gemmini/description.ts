import type { PlatformDescription } from '../catalog.js';

/** Gemmini before its modules are loaded (platforms/catalog.ts). */
export const GEMMINI_DESCRIPTION: PlatformDescription = {
  name: 'gemmini', options: [], far: false, forward: false,
  load: async () => (await import('./platform.js')).gemmini,
};
