import type { PlatformDescription } from '../catalog.js';
import type { PlatformOption } from '../options.js';
import type { Objective } from './partition.js';

export const OBJECTIVES = ['time', 'energy', 'edp'] as const;
export const MAX_BATCH = 4096;
/** What the dataflow search minimises unless --dataflow-objective says otherwise. */
export const DEFAULT_OBJECTIVE: Objective = 'energy';

/** gen firmware --tangram-config, --dataflow-objective, --dataflow-batch (parsed by platform.ts's configure). */
export function tangramOptions(objective: Objective): PlatformOption[] {
  return [
    { flag: '--tangram-config <file>', key: 'tangramConfig', help: 'JSON file changing the engine grid and the buffer per engine, e.g. {"grid":{"rows":8,"cols":8},"bufferBytes":65536}' },
    { flag: '--dataflow-objective <goal>', key: 'dataflowObjective', help: `what the dataflow search minimises: ${OBJECTIVES.join(', ')} (default ${objective})` },
    { flag: '--dataflow-batch <n>', key: 'dataflowBatch', help: `batch size the dataflow is searched for (1..${MAX_BATCH}; default 1: the model's own batch is folded into its maps)` },
  ];
}

/** Tangram before its modules are loaded (platforms/catalog.ts). */
export const TANGRAM_DESCRIPTION: PlatformDescription = {
  name: 'tangram', options: tangramOptions(DEFAULT_OBJECTIVE), far: false, forward: false,
  load: async () => (await import('./platform.js')).tangram,
};
