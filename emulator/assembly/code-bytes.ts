// The compiled bytes of each layer's code as the C build made them (its rv32 ELF's layer functions: the tile loop and
// the first tile shape's kernel), handed over by the runner when the output directory's C is built and up to date
// (runtime/node/code-bytes.ts). The firmware's layer_code charges them in place of the generator's estimate from the
// C's bytes (docs/timing-journal.md "The code footprint"); a layer without one keeps the estimate.

import { currentLayer } from "./events";

/** Layer ids with a measured size: the generator numbers a network's layers from 0, a few hundred for a decoder. */
const MAX_LAYERS: i32 = 8192;
const built = new StaticArray<i32>(MAX_LAYERS);

/** Layer `layer`'s code compiled to `bytes` (> 0); a layer id past the table is ignored (it keeps the estimate). */
export function set_layer_code_bytes(layer: i32, bytes: i32): void {
  if (layer >= 0 && layer < MAX_LAYERS && bytes > 0) unchecked(built[layer] = bytes);
}

/** The open layer's compiled code bytes where the build gave them, else `estimate` (the generator's). */
export function layer_code_bytes(estimate: i32): i32 {
  const layer = currentLayer();
  if (layer < 0 || layer >= MAX_LAYERS) return estimate;
  const b = unchecked(built[layer]);
  return b > 0 ? b : estimate;
}
