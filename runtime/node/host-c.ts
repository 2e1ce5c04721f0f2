/**
 * Runs the generated C built with the host compiler (`make host` in out/c: the host HAL runs a fork on threads),
 * inputs and outputs through raw little-endian files in graph order (raw-io.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenError } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { buildC } from './c-build.js';
import { readManifest } from './manifest.js';
import { packInputs, unpackOutputs } from './raw-io.js';

/** Builds out/c/network_host unless it is newer than every source. */
export function buildHostC(outDir: string): string {
  return buildC(outDir, 'host').path;
}

export function runHostC(outDir: string, inputs: NDArray[]): NDArray[] {
  const manifest = readManifest(outDir);
  const bin = buildHostC(outDir);
  const inBytes = packInputs(manifest, inputs, outDir);
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-host-'));
  try {
    writeFileSync(join(dir, 'in.bin'), inBytes);
    try {
      execFileSync(bin, [join(dir, 'in.bin'), join(dir, 'out.bin')], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new GenError('run', `the host firmware failed: ${(e as Error).message.split('\n')[0]}`, { file: bin });
    }
    return unpackOutputs(manifest, new Uint8Array(readFileSync(join(dir, 'out.bin'))), bin);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
