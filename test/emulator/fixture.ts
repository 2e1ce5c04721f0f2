/**
 * Hand-made firmware for the emulator tests: an out/ directory in the OS temp dir with as/network.ts (the test's AS
 * source), as/hal/ (a copy of runtime/as, as the generator makes), firmware.json and optional memory images.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAL_DIR } from '../../runtime/node/paths.js';

export interface TensorSpec {
  name: string;
  role: 'input' | 'output' | 'const' | 'activation';
  dtype: string;
  shape: number[];
  region: string;
  address: number;
  bytes: number;
}

export interface FixtureSpec {
  platform: string;
  network: string;
  tensors: TensorSpec[];
  layers?: { id: number; name: string }[];
  cores?: number;
  images?: Record<string, Uint8Array>;
}

const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Writes the fixture; the directory is removed when the test process exits. */
export function makeFirmware(spec: FixtureSpec): string {
  const out = mkdtempSync(join(tmpdir(), 'firmgen-fixture-'));
  made.push(out);
  const hal = join(out, 'as', 'hal');
  mkdirSync(hal, { recursive: true });
  for (const f of readdirSync(HAL_DIR)) copyFileSync(join(HAL_DIR, f), join(hal, f));
  writeFileSync(join(out, 'as', 'network.ts'), spec.network);
  const manifest = {
    model: 'fixture',
    platform: spec.platform,
    generator: 'test',
    ...(spec.cores === undefined ? {} : { cores: spec.cores }),
    tensors: spec.tensors,
    layers: spec.layers ?? [],
    inputs: spec.tensors.filter((t) => t.role === 'input').map((t) => t.name),
    outputs: spec.tensors.filter((t) => t.role === 'output').map((t) => t.name),
  };
  writeFileSync(join(out, 'firmware.json'), JSON.stringify(manifest, null, 2));
  if (spec.images) {
    mkdirSync(join(out, 'memory'));
    for (const [region, bytes] of Object.entries(spec.images)) writeFileSync(join(out, 'memory', `${region}.bin`), bytes);
  }
  return out;
}
