import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { unzipSync, zipSync } from 'fflate';

/** A folder as one zip (relative paths), and back; entries that would land outside the target are refused. */
export function zipFolder(dir: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files[relative(dir, p)] = new Uint8Array(readFileSync(p));
    }
  };
  walk(dir);
  return zipSync(files);
}

export function unzipFolder(zip: Uint8Array, dir: string): void {
  for (const [name, bytes] of Object.entries(unzipSync(zip))) {
    const target = resolve(dir, name);
    if (!target.startsWith(resolve(dir) + '/')) throw new Error(`zip entry ${name} leaves ${dir}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
}
