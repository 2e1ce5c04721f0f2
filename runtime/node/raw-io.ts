/**
 * Inputs and outputs of the C builds (host, rv32 under qemu, the board): raw little-endian bytes of each tensor as
 * its manifest dtype, in graph order, concatenated. The runtime converts .npz to and from these files, so the
 * firmware never prints values.
 */
import { GenError } from '../../generator/errors.js';
import { bytesOf } from '../../generator/ir/dtype.js';
import { sizeOf, type NDArray } from '../../generator/ir/ndarray.js';
import type { Manifest, ManifestTensor } from './manifest.js';
import { readTensor, writeTensor } from './tensor-io.js';

function tensors(manifest: Manifest, names: string[], where: string): ManifestTensor[] {
  const byName = new Map(manifest.tensors.map((t) => [t.name, t]));
  return names.map((name) => {
    const t = byName.get(name);
    if (!t) throw new GenError('run', `manifest has no tensor '${name}'`, { file: where });
    return t;
  });
}

export function packInputs(manifest: Manifest, inputs: NDArray[], where: string): Uint8Array {
  const ins = tensors(manifest, manifest.inputs, where);
  const bytes = new Uint8Array(ins.reduce((s, t) => s + t.bytes, 0));
  let at = 0;
  ins.forEach((t, i) => {
    if (sizeOf(inputs[i].shape) !== sizeOf(t.shape)) {
      throw new GenError('run', `input holds ${sizeOf(inputs[i].shape)} values, the model expects ${sizeOf(t.shape)}`, { tensor: t.name });
    }
    writeTensor(bytes, at, t.dtype, inputs[i].data, t.name);
    at += t.bytes;
  });
  return bytes;
}

export function unpackOutputs(manifest: Manifest, raw: Uint8Array, where: string): NDArray[] {
  const outs = tensors(manifest, manifest.outputs, where);
  const want = outs.reduce((s, t) => s + sizeOf(t.shape) * bytesOf(t.dtype), 0);
  if (raw.byteLength < want) throw new GenError('run', `the firmware wrote ${raw.byteLength} output bytes, ${want} expected`, { file: where });
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  let off = 0;
  return outs.map((t) => {
    const a = readTensor({ buffer: buf }, off, t.dtype, t.shape);
    off += sizeOf(t.shape) * bytesOf(t.dtype);
    return a;
  });
}
