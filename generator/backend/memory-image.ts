import type { DType } from '../ir/dtype.js';
import type { Graph } from '../ir/graph.js';
import type { MemoryPlan } from '../midend/plan.js';

/** Bytes of one value in the device's little-endian layout. */
export function writeValue(view: DataView, offset: number, dtype: DType, v: number): void {
  switch (dtype) {
    case 'int8': view.setInt8(offset, v); break;
    case 'uint8': case 'bool': view.setUint8(offset, v); break;
    case 'int16': view.setInt16(offset, v, true); break;
    case 'uint16': view.setUint16(offset, v, true); break;
    case 'int32': view.setInt32(offset, v, true); break;
    case 'uint32': view.setUint32(offset, v, true); break;
    case 'int64': view.setBigInt64(offset, BigInt(v), true); break;
    case 'float32': view.setFloat32(offset, v, true); break;
    case 'float64': view.setFloat64(offset, v, true); break;
  }
}

/**
 * The home region's initial contents from offset 0 up to the last constant byte: what a loader (or the
 * runtime) copies into the chip before the firmware starts.
 */
export function constantImage(g: Graph, plan: MemoryPlan): Uint8Array {
  let end = 0;
  for (const p of plan.placements.values()) if (p.kind === 'const') end = Math.max(end, p.offset + p.bytes);
  const image = new Uint8Array(end);
  const view = new DataView(image.buffer);
  for (const [name, p] of plan.placements) {
    if (p.kind !== 'const' || p.root !== name) continue;
    const t = g.tensors.get(name);
    if (!t?.data) continue;
    const width = p.bytes / Math.max(1, t.data.data.length);
    t.data.data.forEach((v, i) => writeValue(view, p.offset + i * width, t.dtype, v));
  }
  return image;
}
