import type { PlatformDescription } from '../catalog.js';
import type { PlatformOption } from '../options.js';

/** gen firmware --engines, --weights-in, --cores (parsed by engines.ts's configureSiracusa). */
export const SIRACUSA_OPTIONS: PlatformOption[] = [
  { flag: '--engines <list>', key: 'engines', help: 'cluster (default), cluster+npu (N-EUREKA where estimated faster) or npu (N-EUREKA wherever it can run)' },
  { flag: '--weights-in <memory>', key: 'weightsIn', help: 'with the NPU: nms (neural memory, read in place; default) or l2 (moved to L1 with the tiles)' },
  { flag: '--cores <n>', key: 'cores', help: 'cluster cores to use (1..8; default 8)' },
];

/** Siracusa before its modules are loaded (platforms/catalog.ts). It has a far memory (L3). */
export const SIRACUSA_DESCRIPTION: PlatformDescription = {
  name: 'siracusa', options: SIRACUSA_OPTIONS, far: true, forward: false,
  load: async () => (await import('./platform.js')).siracusa,
};
