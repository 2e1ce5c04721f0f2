/** The generator's version, written into every generated file's header and firmware.json (kept with package.json). */
export const GENERATOR_VERSION = '0.1.0';
