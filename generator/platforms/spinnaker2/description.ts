import type { PlatformDescription } from '../catalog.js';
import type { PlatformOption } from '../options.js';
import { S2 } from './timing.js';

/** gen firmware --pes (parsed by platform.ts's configure). */
export const SPINNAKER2_OPTIONS: PlatformOption[] = [
  { flag: '--pes <n>', key: 'pes', help: `processing elements of the chip to use, the scheduler included (2..${S2.pes}; default ${S2.pes})` },
];

/** SpiNNaker2 before its modules are loaded (platforms/catalog.ts). */
export const SPINNAKER2_DESCRIPTION: PlatformDescription = {
  name: 'spinnaker2', options: SPINNAKER2_OPTIONS, far: false, forward: false,
  load: async () => (await import('./platform.js')).spinnaker2,
};
