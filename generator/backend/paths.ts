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

/** Resolved once per process (every layer's closure asks again; the template folders do not change while it runs). */
const resolved = new Map<string, string>();

export function templatePath(platform: string, lang: 'c' | 'as', file: string): string {
  const key = `${platform}/${lang}/${file}`;
  let path = resolved.get(key);
  if (path === undefined) {
    const specific = join(TEMPLATES, platform, lang, file);
    path = existsSync(specific) ? specific : join(TEMPLATES, 'common', lang, file);
    resolved.set(key, path);
  }
  return path;
}
