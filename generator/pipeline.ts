import { compileFor, generateFor, type Compiled, type FirmwareOptions, type CompileOptions } from './compile.js';
import type { Emitted } from './backend/emit.js';
import { platformByName } from './platforms/index.js';

export type { Compiled, CompileOptions, FirmwareOptions } from './compile.js';

/*
 * The pipeline by platform name, every platform's modules loaded with this file (platforms/index.ts): for code that
 * generates for many platforms (tests, benches, scripts). The command line loads only the platform it is asked for
 * and calls compile.ts itself.
 */

/** load -> infer -> lower -> select -> plan (DESIGN.md pipeline), without writing anything. */
export function compileModel(opts: CompileOptions): Compiled {
  return compileFor(platformByName(opts.platform), opts);
}

export function generateFirmware(opts: FirmwareOptions): Compiled & Omit<Emitted, 'files'> {
  return generateFor(platformByName(opts.platform), opts);
}
