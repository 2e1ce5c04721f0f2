/**
 * Runs the bare-metal rv32 build under qemu-system-riscv32 -machine virt (TOOLCHAIN.md): qemu starts in a fresh
 * directory holding fg_inputs.bin, the firmware reads it and writes fg_outputs.bin through semihosting, and main's
 * return code becomes qemu's exit code (picolibc's semihost crt0 ends with the semihosting exit call).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GenError } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { buildC, RV32_PACKAGES } from './c-build.js';
import { readManifest } from './manifest.js';
import { packInputs, unpackOutputs } from './raw-io.js';

export const QEMU = 'qemu-system-riscv32';

/** A firmware that runs longer is stuck (the largest test model runs in well under a second). */
const TIMEOUT_MS = 120_000;

export function qemuArgs(elf: string): string[] {
  // No display, serial or monitor: the guest's semihosting console goes to qemu's stdout/stderr (chardev stdio).
  return ['-machine', 'virt', '-display', 'none', '-serial', 'none', '-monitor', 'none', '-bios', 'none',
    '-kernel', elf, '-chardev', 'stdio,id=shc', '-semihosting-config', 'enable=on,target=native,chardev=shc'];
}

export interface QemuRun {
  outputs: NDArray[];
  /** Wall time of the qemu process, ms. */
  ms: number;
}

export function runQemu(outDir: string, inputs: NDArray[]): QemuRun {
  const manifest = readManifest(outDir);
  const { path: elf } = buildC(outDir, 'rv32');
  const inBytes = packInputs(manifest, inputs, outDir);
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-qemu-'));
  try {
    writeFileSync(join(dir, 'fg_inputs.bin'), inBytes);
    const t0 = performance.now();
    // qemu runs in its own folder (the semihosting files), so the kernel's path must not be relative to ours.
    const r = spawnSync(QEMU, qemuArgs(resolve(elf)), { cwd: dir, encoding: 'utf8', timeout: TIMEOUT_MS });
    const ms = performance.now() - t0;
    if (r.error) {
      const e = r.error as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') throw new GenError('run', `${QEMU} is not installed (apt-get install ${RV32_PACKAGES})`);
      if (e.code === 'ETIMEDOUT') throw new GenError('run', `the rv32 firmware did not finish within ${TIMEOUT_MS / 1000} s`, { file: elf });
      throw new GenError('run', `${QEMU} failed: ${e.message}`, { file: elf });
    }
    if (r.status !== 0) {
      const said = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-3).join(' | ');
      throw new GenError('run', `the rv32 firmware exited with code ${r.status ?? r.signal}${said ? `: ${said}` : ''}`, { file: elf });
    }
    const out = join(dir, 'fg_outputs.bin');
    if (!existsSync(out)) throw new GenError('run', 'the rv32 firmware wrote no fg_outputs.bin', { file: elf });
    return { outputs: unpackOutputs(manifest, new Uint8Array(readFileSync(out)), elf), ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
