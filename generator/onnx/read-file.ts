import { readFileSync, statSync } from 'node:fs';
import { GenError } from '../errors.js';

/** Reads a file the user named; a missing or unreadable one is a GenError naming it, with the system's reason. */
export function readUserFile(path: string, what: string): Uint8Array {
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    return readFileSync(path);
  } catch (e) {
    throw new GenError('input', `cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { file: path });
  }
}
