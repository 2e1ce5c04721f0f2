import { describePlatform } from './catalog.js';
import { brainscales2 } from './brainscales2/platform.js';
import { gemmini } from './gemmini/platform.js';
import { generic } from './generic/platform.js';
import { siracusa } from './siracusa/platform.js';
import { spinnaker2 } from './spinnaker2/platform.js';
import { tangram } from './tangram/platform.js';
import type { Platform } from './types.js';

export const PLATFORMS: Record<string, Platform> = { generic, siracusa, spinnaker2, gemmini, tangram, brainscales2 };

/**
 * Every platform, its modules loaded with this file: for code that works on many (tests, benches, scripts). The
 * command line loads only the platform it is asked for (catalog.ts).
 */
export function platformByName(name: string): Platform {
  return PLATFORMS[describePlatform(name).name];
}
