import { GenError } from '../errors.js';
import { BRAINSCALES2_DESCRIPTION } from './brainscales2/description.js';
import { GEMMINI_DESCRIPTION } from './gemmini/description.js';
import { GENERIC_DESCRIPTION } from './generic/description.js';
import { SIRACUSA_DESCRIPTION } from './siracusa/description.js';
import { SPINNAKER2_DESCRIPTION } from './spinnaker2/description.js';
import { TANGRAM_DESCRIPTION } from './tangram/description.js';
import type { PlatformOption } from './options.js';
import type { Platform } from './types.js';

/**
 * What the command line needs to know of a platform before it generates for it: its name, its options (flags and
 * help) and which commands it takes. Each platform's folder declares it in description.ts, which imports nothing of
 * the platform's kernels, passes, emitter or emulator parts; `load` brings those in (a dynamic import), so that
 * `gen firmware --platform X` loads X's backend only and `gen --help` none. test/platforms/catalog.test.ts keeps
 * each description equal to what its loaded platform says.
 */
export interface PlatformDescription {
  name: string;
  options: PlatformOption[];
  /** It has a far memory (Platform.far): it takes --l3. */
  far: boolean;
  /** It runs `gen forward` (Platform.forward). */
  forward: boolean;
  load(): Promise<Platform>;
}

/** Every platform, in the order the command line lists them. */
export const CATALOG: PlatformDescription[] = [
  GENERIC_DESCRIPTION, SIRACUSA_DESCRIPTION, SPINNAKER2_DESCRIPTION, GEMMINI_DESCRIPTION, TANGRAM_DESCRIPTION, BRAINSCALES2_DESCRIPTION,
];

export function describePlatform(name: string): PlatformDescription {
  const p = CATALOG.find((d) => d.name === name);
  if (!p) throw new GenError('input', `unknown platform '${name}' (known: ${CATALOG.map((d) => d.name).join(', ')})`);
  return p;
}

/** The platform by name, its modules loaded now (an unknown name: the promise rejects with describePlatform's error). */
export async function loadPlatform(name: string): Promise<Platform> {
  return describePlatform(name).load();
}
