/**
 * Runs the generated C with the host compiler: `make host` in out/c (the host HAL runs each core's share of a
 * fork in turn), inputs and outputs through raw little-endian files in graph order.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenError } from '../../generator/errors.js';
import { bytesOf } from '../../generator/ir/dtype.js';
import { sizeOf, type NDArray } from '../../generator/ir/ndarray.js';
import { readManifest, type ManifestTensor } from './manifest.js';
import { readTensor, writeTensor } from './tensor-io.js';

function newestSource(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && /\.(c|h)$|Makefile$/.test(e.name)) t = Math.max(t, statSync(join(e.parentPath ?? dir, e.name)).mtimeMs);
  }
  return t;
}

/** Builds out/c/network_host unless it is newer than every source. */
export function buildHostC(outDir: string): string {
  const cDir = join(outDir, 'c');
  const bin = join(cDir, 'network_host');
  if (existsSync(bin) && statSync(bin).mtimeMs >= newestSource(cDir)) return bin;
  try {
    execFileSync('make', ['-s', '-C', cDir, 'host'], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    const first = (err.stderr?.toString() ?? err.message).split('\n').find((l) => /error/i.test(l)) ?? err.message;
    throw new GenError('run', `the host C build failed: ${first.trim()}`, { file: cDir });
  }
  return bin;
}

export function runHostC(outDir: string, inputs: NDArray[]): NDArray[] {
  const manifest = readManifest(outDir);
  const bin = buildHostC(outDir);
  const byName = new Map(manifest.tensors.map((t) => [t.name, t]));
  const tensorOf = (name: string): ManifestTensor => {
    const t = byName.get(name);
    if (!t) throw new GenError('run', `manifest has no tensor '${name}'`, { file: outDir });
    return t;
  };
  const ins = manifest.inputs.map(tensorOf);
  const outs = manifest.outputs.map(tensorOf);
  const inBytes = new Uint8Array(ins.reduce((s, t) => s + t.bytes, 0));
  let at = 0;
  ins.forEach((t, i) => {
    if (sizeOf(inputs[i].shape) !== sizeOf(t.shape)) {
      throw new GenError('run', `input holds ${sizeOf(inputs[i].shape)} values, the model expects ${sizeOf(t.shape)}`, { tensor: t.name });
    }
    writeTensor(inBytes, at, t.dtype, inputs[i].data, t.name);
    at += t.bytes;
  });
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-host-'));
  try {
    writeFileSync(join(dir, 'in.bin'), inBytes);
    try {
      execFileSync(bin, [join(dir, 'in.bin'), join(dir, 'out.bin')], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new GenError('run', `the host firmware failed: ${(e as Error).message.split('\n')[0]}`, { file: bin });
    }
    const raw = readFileSync(join(dir, 'out.bin'));
    const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    let off = 0;
    return outs.map((t) => {
      const a = readTensor({ buffer: buf }, off, t.dtype, t.shape);
      off += sizeOf(t.shape) * bytesOf(t.dtype);
      return a;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
