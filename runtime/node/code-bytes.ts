/**
 * The layers' code as the C build compiled it, for the AS path's cold-code charge (runtime/as/cluster.ts layer_code,
 * CODE_BYTE): where the output directory's rv32 image (the one `gen run --on iss` runs and `gen build --target rv32`
 * or `rv32-xpulp` makes) is built and up to date, each layer's functions in its symbol table (the skeleton names them
 * L_<id>_...: the tile loop and the first tile shape's kernel; a further shape's, L_<id>_..._t<k> with k > 0, is
 * CODE_SHAPE's) replace the generator's estimate from the C's bytes (docs/timing-journal.md "The code footprint"). Nothing is
 * built here: without a build the estimate stands.
 */
import { readImageFile, upToDateBuild } from './c-build.js';
import { readElfSymbols } from './elf.js';

const STT_FUNC = 2;
/** A layer function's id, and whether it is a further tile shape's kernel (L_<id>_<kernel>_t<k>, k > 0). */
const LAYER_FN = /^L_(\d+)_[A-Za-z0-9]+(?:_t(\d+))?(?:\.|$)/;

/** Compiled bytes per layer id of the up-to-date rv32 build of `outDir`; undefined where there is none. */
export function builtCodeBytes(outDir: string): { elf: string; bytes: Map<number, number> } | undefined {
  const image = readImageFile(outDir);
  if (!image.rv32) return undefined;
  const elf = upToDateBuild(outDir, image.rv32.xpulp ? 'rv32-xpulp' : 'rv32');
  return elf ? { elf, bytes: layerFunctionBytes(elf, 'first') } : undefined;
}

/**
 * Compiled bytes per layer id of the layer functions in `elf`'s symbol table: the tile loop and the first tile
 * shape's kernel (`first`, what a layer's cores fetch cold at its start), or every tile shape's too (`all`).
 */
export function layerFunctionBytes(elf: string, shapes: 'first' | 'all'): Map<number, number> {
  const bytes = new Map<number, number>();
  for (const s of readElfSymbols(elf)) {
    const m = LAYER_FN.exec(s.name);
    if (!m || s.type !== STT_FUNC || (shapes === 'first' && m[2] !== undefined && m[2] !== '0')) continue;
    const id = Number(m[1]);
    bytes.set(id, (bytes.get(id) ?? 0) + s.size);
  }
  return bytes;
}
