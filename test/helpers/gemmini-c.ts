/**
 * Gemmini's C command path (runtime/c/gemmini/firmgen_gemmini.h) in tests: `make host-model` (the commands run by the
 * C model of the accelerator, hal/gemmini/gemmini_model.c) run on raw inputs like runHostC, and `make rv64` (the
 * board's RoCC build) with the custom-3 instructions its image holds, and `make rv64-model` (the rv64 image on the C
 * model) under qemu-system-riscv64.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { qemuArgs } from '../../runtime/node/qemu.js';
import { packInputs, unpackOutputs } from '../../runtime/node/raw-io.js';
import { runHostModelC } from './host-model.js';

/** The commands on the C model of the accelerator (`make host-model`). */
export const runGemminiModelC = runHostModelC;

/** The funct7 of every RoCC custom-3 instruction (opcode 0x7b, funct3 3, rd x0) in the rv64 board image, in order. */
export function rv64RoccFuncts(outDir: string): number[] {
  execFileSync('make', ['-s', '-C', join(outDir, 'c'), 'rv64'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const dump = execFileSync('riscv64-unknown-elf-objdump', ['-d', join(outDir, 'c', 'network_rv64.elf')], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const functs: number[] = [];
  for (const m of dump.matchAll(/^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s/gm)) {
    const word = parseInt(m[1], 16);
    if ((word & 0x7f) === 0x7b && ((word >>> 12) & 7) === 3 && ((word >>> 7) & 0x1f) === 0) functs.push(word >>> 25);
  }
  return functs;
}

/** The rv64 bare-metal image with the C model in place of the RoCC instructions, under qemu-system-riscv64 -M virt. */
export function runRv64Model(outDir: string, inputs: NDArray[]): NDArray[] {
  const manifest = readManifest(outDir);
  execFileSync('make', ['-s', '-C', join(outDir, 'c'), 'rv64-model'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const elf = join(outDir, 'c', 'network_rv64_model.elf');
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-rv64-'));
  try {
    writeFileSync(join(dir, 'fg_inputs.bin'), packInputs(manifest, inputs, outDir));
    const r = spawnSync('qemu-system-riscv64', qemuArgs(elf), { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`rv64 model image: exit ${r.status ?? r.signal} ${r.stderr ?? ''}`);
    return unpackOutputs(manifest, new Uint8Array(readFileSync(join(dir, 'fg_outputs.bin'))), elf);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
