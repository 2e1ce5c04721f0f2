import { GenError } from '../errors.js';
import { brainscales2 } from './brainscales2/platform.js';
import { gemmini } from './gemmini/platform.js';
import { generic } from './generic/platform.js';
import { siracusa } from './siracusa/platform.js';
import { spinnaker2 } from './spinnaker2/platform.js';
import { tangram } from './tangram/platform.js';
import type { Platform } from './types.js';

export const PLATFORMS: Record<string, Platform> = { generic, siracusa, spinnaker2, gemmini, tangram, brainscales2 };

export function platformByName(name: string): Platform {
  const p = PLATFORMS[name];
  if (!p) throw new GenError('input', `unknown platform '${name}' (known: ${Object.keys(PLATFORMS).join(', ')})`);
  return p;
}
