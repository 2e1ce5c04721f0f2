import type { PlatformDescription } from '../catalog.js';

/** The generic platform before its modules are loaded (platforms/catalog.ts). */
export const GENERIC_DESCRIPTION: PlatformDescription = {
  name: 'generic', options: [], far: false, forward: false,
  load: async () => (await import('./platform.js')).generic,
};
