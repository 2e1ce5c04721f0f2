import { bytesOf, type DType } from '../ir/dtype.js';
import { writeElement } from '../ir/elements.js';
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
    if (!copyElements(image, t.dtype, p.offset, width, t.data.data)) {
      t.data.data.forEach((v, i) => writeElement(view, t.dtype, p.offset + i * width, v));
    }
  }
  if (home) for (const [name, bytes] of blobs) image.set(bytes, plan.blobs.get(name)!.offset);
  return image;
}

/**
 * Integer typed arrays by element type: their element conversion is DataView's (ToInt8, ToUint16, ...). Floats stay
 * element by element (a NaN's bits may be copied otherwise), as int64 (BigInt).
 */
const TYPED: Partial<Record<DType, new (b: ArrayBufferLike, at: number, n: number) => { set(a: ArrayLike<number>): void }>> = {
  int8: Int8Array, uint8: Uint8Array, bool: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  uint32: Uint32Array,
};
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Writes a constant's elements with one typed-array copy where that stores what writeElement would, element by
 * element (dense, aligned, a little-endian machine); false where it does not apply. Element by element, through a
 * closure and a DataView call each, was ~25 ms of a CNN_Linear2 generation (node --cpu-prof).
 */
function copyElements(image: Uint8Array, dtype: DType, offset: number, width: number, data: ArrayLike<number>): boolean {
  const Typed = TYPED[dtype];
  if (!Typed || !LITTLE_ENDIAN) return false;
  const size = bytesOf(dtype);
  if (width !== size || (image.byteOffset + offset) % size !== 0) return false;
  new Typed(image.buffer, image.byteOffset + offset, data.length).set(data);
  return true;
}

/** The neural memory's initial contents: N-EUREKA weights (uint8, already in the engine's format) at their offsets. */
export function nmsImage(g: Graph, offsets: Map<string, number>): Uint8Array {
  let end = 0;
  for (const [name, at] of offsets) end = Math.max(end, at + g.tensors.get(name)!.data!.data.length);
  const image = new Uint8Array(end);
  for (const [name, at] of offsets) image.set(g.tensors.get(name)!.data!.data, at);
  return image;
}
