/**
 * An accelerator's C path on its functional C model (the platform's `image.hostModel`, `make host-model`: Gemmini's
 * commands, Tangram's engine programs), run on raw inputs like runHostC.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { packInputs, unpackOutputs } from '../../runtime/node/raw-io.js';

export function runHostModelC(outDir: string, inputs: NDArray[]): NDArray[] {
  const manifest = readManifest(outDir);
  execFileSync('make', ['-s', '-C', join(outDir, 'c'), 'host-model'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const bin = join(outDir, 'c', 'network_host_model');
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-host-model-'));
  try {
    writeFileSync(join(dir, 'in.bin'), packInputs(manifest, inputs, outDir));
    execFileSync(bin, [join(dir, 'in.bin'), join(dir, 'out.bin')], { stdio: ['ignore', 'pipe', 'pipe'] });
    return unpackOutputs(manifest, new Uint8Array(readFileSync(join(dir, 'out.bin'))), bin);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
