import { readFileSync } from 'node:fs';
import { GenError } from '../../errors.js';
import type { TangramHardware } from './hardware.js';

/**
 * The chip as a JSON file changes it (`gen firmware --platform tangram --tangram-config chip.json`): the engine grid
 * and the buffer per engine, the two parameters Tangram's evaluation scales. Example:
 *   { "grid": { "rows": 8, "cols": 8 }, "bufferBytes": 65536 }
 * Any other key is refused, so a misspelt one does not silently leave the default in place.
 */
const KEYS = new Set(['grid', 'bufferBytes']);
/** Bounds that keep the search's enumeration and the emulator's engine table small and the figures meaningful. */
const MAX_GRID_SIDE = 64;
const MIN_BUFFER = 1024;
const MAX_BUFFER = 64 * 1024 * 1024;

export function readTangramConfig(file: string, base: TangramHardware): TangramHardware {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new GenError('input', 'cannot read the Tangram configuration file', { file });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new GenError('input', 'the Tangram configuration is not valid JSON', { file });
  }
  return applyTangramConfig(raw, base, file);
}

/** The configuration object applied to `base`; `file` only names the source in errors. */
export function applyTangramConfig(raw: unknown, base: TangramHardware, file: string): TangramHardware {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new GenError('input', 'the Tangram configuration must be a JSON object', { file });
  }
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!KEYS.has(k)) throw new GenError('input', `unknown key '${k}' in the Tangram configuration (known: ${[...KEYS].join(', ')})`, { file });
  }
  let hw = base;
  if (o.grid !== undefined) {
    const g = o.grid as Record<string, unknown>;
    if (typeof g !== 'object' || g === null) throw new GenError('input', 'grid must be { "rows": n, "cols": n }', { file });
    const rows = side(g.rows, 'grid.rows', file);
    const cols = side(g.cols, 'grid.cols', file);
    hw = { ...hw, grid: { rows, cols } };
  }
  if (o.bufferBytes !== undefined) {
    const b = o.bufferBytes;
    if (typeof b !== 'number' || !Number.isInteger(b) || b < MIN_BUFFER || b > MAX_BUFFER) {
      throw new GenError('input', `bufferBytes must be a whole number of bytes in [${MIN_BUFFER}, ${MAX_BUFFER}]`, { file });
    }
    hw = { ...hw, bufferBytes: b };
  }
  return hw;
}

function side(v: unknown, what: string, file: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_GRID_SIDE) {
    throw new GenError('input', `${what} must be a whole number in [1, ${MAX_GRID_SIDE}]`, { file });
  }
  return v;
}
