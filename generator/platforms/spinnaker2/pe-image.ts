import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_PER_SOURCE_BYTE } from '../../backend/c-image.js';
import { TEMPLATES } from '../../backend/paths.js';
import { GenError } from '../../errors.js';
import type { Platform } from '../types.js';
import { SRAM } from './layout.js';

/** A region of a PE image's address map (the link script's MEMORY), as `gen build --target arm` reports it. */
export interface PeRegion {
  name: string;
  origin: number;
  length: number;
}

/** One role's image as the generator checked it (out/c/image.json `arm.roles`, read back by `gen build`). */
export interface PeRoleBudget {
  role: string;
  elf: string;
  /** Estimated code and static data: the runtime allowance plus the role's share of the firmware's sources. */
  codeAndData: number;
  stack: number;
  /** codeAndData + stack: what the image needs of its window. */
  needed: number;
  /** The window at the start of the PE's SRAM for the image. */
  available: number;
  /** End of the run-time buffers behind the window (the largest layer's, or the scheduler's blocks), and the SRAM's size. */
  buffersEnd: number;
  sramBytes: number;
  regions: PeRegion[];
}

/** out/c/image.json of a SpiNNaker2 output directory. */
export interface PeImageFile {
  arm: { roles: PeRoleBudget[] };
}

/** What a role keeps in its SRAM behind the window at run time: a worker its layers' buffers, the scheduler its blocks. */
export interface PeBuffers {
  /** The largest end offset, and who needs it (for the error). */
  end: number;
  what: string;
}

/** The PE's SRAM map of the link scripts: the image's window, then the buffers (docs/spinnaker2.md "PE SRAM map"). */
export function peRegions(window: number): PeRegion[] {
  return [
    { name: 'SRAM_FIRMWARE', origin: 0, length: window },
    { name: 'SRAM_BUFFERS', origin: window, length: SRAM.bytes - window },
  ];
}

function sourceBytes(files: string[]): number {
  return files.reduce((n, f) => n + readFileSync(join(TEMPLATES, 'spinnaker2', 'c', f)).length, 0);
}

/**
 * The budget check of the PE images, at generation (as checkCImage for the core platforms): per role, the estimated
 * code and static data plus the stack must fit the window the image format leaves at the start of a PE's SRAM, and
 * the buffers the role uses behind it must end inside the SRAM. A model that fails names the role, the bytes needed
 * and the bytes available; the ARM build's link scripts enforce the same window, so nothing fails later at link time.
 * Undefined for a platform without PE images.
 */
export function checkPeImages(platform: Platform, buffers: Record<string, PeBuffers>): PeRoleBudget[] | undefined {
  const image = platform.image;
  if (!image?.pe) return undefined;
  const window = image.pe.window;
  return image.pe.roles.map((r) => {
    const codeAndData = image.runtimeBytes + Math.ceil(CODE_PER_SOURCE_BYTE * sourceBytes(r.sources));
    const needed = codeAndData + image.stackBytes;
    if (needed > window) {
      throw new GenError('capacity', `the ${r.name} PE image needs ${needed} bytes of a PE's SRAM (code and data ~${codeAndData} ` +
        `estimated, stack ${image.stackBytes}), ${window} bytes are available (the first ${window} of ${SRAM.bytes}; the rest holds the run-time buffers)`);
    }
    const b = buffers[r.name] ?? { end: window, what: 'nothing' };
    if (b.end > SRAM.bytes) {
      throw new GenError('capacity', `the ${r.name} PE needs ${b.end} bytes of its SRAM (its image's ${window}, then ${b.what}), ` +
        `${SRAM.bytes} bytes are available`);
    }
    return {
      role: r.name, elf: r.elf, codeAndData, stack: image.stackBytes, needed, available: window,
      buffersEnd: Math.max(window, b.end), sramBytes: SRAM.bytes, regions: peRegions(window),
    };
  });
}
