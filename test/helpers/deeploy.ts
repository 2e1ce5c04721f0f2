import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { deeployDir, repoRoot } from './paths.js';

export const REPO = repoRoot;
export const DEEPLOY = deeployDir;

export interface Folder {
  /** Path relative to deeploy-tests, e.g. Kernels/Integer/Add/Regular. */
  name: string;
  dir: string;
  model: string;
}

/** Every folder with a network.onnx, integer ones only (Kernels/Mixed holds float graphs the dialect excludes). */
export function integerFolders(): Folder[] {
  const out: Folder[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'network.onnx') out.push({ name: relative(DEEPLOY, dir), dir, model: join(dir, e.name) });
    }
  };
  if (existsSync(DEEPLOY)) walk(DEEPLOY);
  return out.filter((f) => !f.name.startsWith('Kernels/Mixed')).sort((a, b) => a.name.localeCompare(b.name));
}

export function arrays(path: string): NDArray[] {
  return [...readNpz(path).values()];
}
