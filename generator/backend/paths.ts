import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';

/** The repository root, found from this file whether it runs from generator/ (tsx) or dist/generator/ (tsc). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'firmware-templates'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot locate the firmgen installation (package.json + firmware-templates)');
}

export const ROOT = findRoot();
export const TEMPLATES = join(ROOT, 'firmware-templates');
export const RUNTIME = join(ROOT, 'runtime');

export function templatePath(platform: string, lang: 'c' | 'as', file: string): string {
  const specific = join(TEMPLATES, platform, lang, file);
  return existsSync(specific) ? specific : join(TEMPLATES, 'common', lang, file);
}
