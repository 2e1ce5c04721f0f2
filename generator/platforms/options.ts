import { GenError } from '../errors.js';
import type { NDArray } from '../ir/ndarray.js';
import type { Platform } from './types.js';

/**
 * A command-line option a platform accepts (`gen firmware --platform <name> ...`). The platform declares it in its
 * own folder with its help text and parses and checks the value in its `configure`; the CLI registers every
 * platform's options from this data and the pipeline hands them over by key, so neither names a platform.
 */
export interface PlatformOption {
  /** The flag as the CLI shows it: '--engines <list>'. */
  flag: string;
  /** Where the value arrives in the firmware options: the flag's camelCase name ('--weights-in' -> 'weightsIn'). */
  key: string;
  help: string;
}

/** What every platform's configure may look at besides its own options. */
export interface ConfigureContext {
  /** No tiles, no DMA (gen firmware --untiled). */
  untiled: boolean;
  /**
   * The integer model's inputs for the calibration set a float model was quantized with (`gen firmware --calibration`):
   * one array per graph input, the samples along axis 0. A platform whose mapping learns from sample inputs may take
   * them when it is not given its own.
   */
  calibrationSamples?: NDArray[];
}

/**
 * The platform as the given options configure it. An option another platform declares but this one does not is an
 * error naming the platforms that take it; a platform without options, given none, is returned as it is.
 */
export function configurePlatform(p: Platform, given: Record<string, unknown>, context: ConfigureContext, all: Pick<Platform, 'name' | 'options'>[]): Platform {
  const own = new Set((p.options ?? []).map((o) => o.key));
  for (const other of all) {
    for (const o of other.options ?? []) {
      if (own.has(o.key) || given[o.key] === undefined) continue;
      const takers = all.filter((x) => x.options?.some((y) => y.key === o.key)).map((x) => x.name);
      throw new GenError('input', `${o.flag.split(' ')[0]} applies to ${takers.join(', ')}, not to ${p.name}`);
    }
  }
  const mine = Object.fromEntries([...own].filter((k) => given[k] !== undefined).map((k) => [k, given[k]]));
  return p.configure ? p.configure(p, mine, context) : p;
}

/** An option's value as a whole number in [min, max]: from the command line (text) or from code (a number). */
export function wholeNumber(flag: string, value: unknown, min: number, max: number, what: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new GenError('input', `${flag} ${String(value)}: ${what}`);
  return n;
}

/** An option's value as one of the allowed words. */
export function oneOf<T extends string>(flag: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new GenError('input', `${flag} takes ${allowed.join(', ')}, not '${String(value)}'`);
  }
  return value as T;
}
