import { bytesOf } from '../ir/dtype.js';
import { writeElement, writeElements } from '../ir/elements.js';
import type { Graph } from '../ir/graph.js';
import type { MemoryPlan } from '../midend/plan.js';

/**
 * A region's initial contents from offset 0 up to its last constant byte: what a loader (or the runtime) copies
 * into the chip before the firmware starts. The home region (default) also holds the blobs (tile tables).
 */
export function constantImage(g: Graph, plan: MemoryPlan, blobs: Map<string, Uint8Array> = new Map(), region = plan.region): Uint8Array {
  const home = region === plan.region;
  const placed = [...plan.placements].filter(([, p]) => p.region === region);
  let end = 0;
  for (const [, p] of placed) if (p.kind === 'const') end = Math.max(end, p.offset + p.bytes);
  if (home) for (const b of plan.blobs.values()) end = Math.max(end, b.offset + b.bytes);
  const image = new Uint8Array(end);
  const view = new DataView(image.buffer);
  for (const [name, p] of placed) {
    if (p.kind !== 'const' || p.root !== name) continue;
    const t = g.tensors.get(name);
    if (!t?.data) continue;
    const width = p.bytes / Math.max(1, t.data.data.length);
    // Dense (the usual case): one typed-array copy (writeElements); else each element at its slot.
    if (width === bytesOf(t.dtype)) writeElements(image, p.offset, t.dtype, t.data.data);
    else t.data.data.forEach((v, i) => writeElement(view, t.dtype, p.offset + i * width, v));
  }
  if (home) for (const [name, bytes] of blobs) image.set(bytes, plan.blobs.get(name)!.offset);
  return image;
}

/** The neural memory's initial contents: N-EUREKA weights (uint8, already in the engine's format) at their offsets. */
export function nmsImage(g: Graph, offsets: Map<string, number>): Uint8Array {
  let end = 0;
  for (const [name, at] of offsets) end = Math.max(end, at + g.tensors.get(name)!.data!.data.length);
  const image = new Uint8Array(end);
  for (const [name, at] of offsets) image.set(g.tensors.get(name)!.data!.data, at);
  return image;
}
