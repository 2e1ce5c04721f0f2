import type { Folder } from './deeploy.js';

/**
 * The deeploy-tests folders the rv32 test runs under qemu (test/e2e/rv32.test.ts): every Models folder and every
 * other Kernels/Integer folder (24 of 48). The host-C test runs the rest, so each folder's C is built once per suite.
 */
export function inRv32Sample(f: Folder, all: Folder[]): boolean {
  if (f.name.startsWith('Models/')) return true;
  const kernels = all.filter((k) => k.name.startsWith('Kernels/Integer/'));
  const i = kernels.findIndex((k) => k.name === f.name);
  return i >= 0 && i % 2 === 0;
}

/** Folders also run on the generic platform: a few, to show the rv32 build of the single-core target. */
export const GENERIC_RV32 = ['Models/miniMobileNetv2', 'Models/EEGFormer', 'Kernels/Integer/Softmax/Large'];
