import { sanitizeComment } from '../../backend/sanitize.js';
import { renderFile } from '../../backend/render.js';
import { GENERATOR_VERSION } from '../../backend/emit.js';
import { TEMPLATES } from '../../backend/paths.js';
import { join } from 'node:path';
import type { PeImageFile, PeRoleBudget } from './pe-image.js';

const hex = (v: number): string => `0x${v.toString(16)}`;
const template = (name: string): string => join(TEMPLATES, 'spinnaker2', 'c', name);

/**
 * The ARM build's generated files in out/c beside the fixed firmware: a link script per role (the window and stack
 * the generator checked), the README (what each build is, what is assumed, how the images and dram.bin are loaded)
 * and image.json (the budgets, read back by `gen build --target arm`).
 */
export function addArmBuild(files: Map<string, string | Uint8Array>, budgets: PeRoleBudget[], model: string): void {
  for (const b of budgets) {
    const [window, buffers] = b.regions;
    files.set(`c/hal/spinnaker2/arm/${b.role}.ld`, renderFile(template('link_pe.ld.mustache'), {
      version: GENERATOR_VERSION, role: b.role, window: window.length, windowHex: hex(window.length),
      buffersHex: hex(buffers.length), stack: b.stack,
    }));
  }
  files.set('c/README.md', renderFile(template('README.md.mustache'), {
    version: GENERATOR_VERSION, model: sanitizeComment(model), window: budgets[0]?.available ?? 0, roles: budgets.map((b) => ({ ...b, window: b.available })),
  }));
  const image: PeImageFile = { arm: { roles: budgets } };
  files.set('c/image.json', `${JSON.stringify(image, null, 2)}\n`);
}
