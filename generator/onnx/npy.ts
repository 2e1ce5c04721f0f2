import { createRequire } from 'node:module';
import { GenError } from '../errors.js';
import { readUserFile } from './read-file.js';
import { bytesOf, type DType } from '../ir/dtype.js';
import { readElements, writeElements } from '../ir/elements.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';
import { zipEntries, zipEntryData } from './unzip.js';

/* .npy format version 1/2/3 (numpy's NEP 1): magic, header length, a Python dict literal, then the data. */

const DESCR: Record<string, DType> = {
  '|i1': 'int8', '|u1': 'uint8', '|b1': 'bool', '<i2': 'int16', '<u2': 'uint16', '<i4': 'int32', '<u4': 'uint32',
  '<i8': 'int64', '<f4': 'float32', '<f8': 'float64', 'i1': 'int8', 'u1': 'uint8',
};
const DESCR_OF: Partial<Record<DType, string>> = {
  int8: '|i1', uint8: '|u1', bool: '|b1', int16: '<i2', uint16: '<u2', int32: '<i4', uint32: '<u4', int64: '<i8',
  float32: '<f4', float64: '<f8',
};

export function parseNpy(bytes: Uint8Array): NDArray {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || !magic.every((b, i) => bytes[i] === b)) throw new Error('not a .npy array (bad magic)');
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || shapeText === undefined) throw new Error(`malformed .npy header: ${header.trim()}`);
  const dtype = DESCR[descr];
  if (!dtype) throw new Error(`unsupported .npy dtype '${descr}'`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) throw new Error(`bad .npy shape (${shapeText.trim()})`);
  const width = DESCR_OF[dtype] ? bytesOf(dtype) : 1;
  const off = start + headerLen;
  // The header's shape is checked against the bytes that are there before anything of that size is allocated: a
  // small file declaring 2^31 elements is refused at once.
  const count = shape.reduce((p, d) => p * d, 1);
  if (bytes.length - off < count * width) {
    throw new Error(`truncated .npy data: the header declares shape (${shape.join(', ')}) of ${count * width} bytes, ` +
      `the file holds ${Math.max(0, bytes.length - off)}`);
  }
  const a = ndarray(dtype, shape);
  readElements(bytes, off, dtype, a.data);
  return fortran ? fromFortranOrder(a) : a;
}

/** Column-major data (numpy's fortran_order) re-laid out row-major. */
function fromFortranOrder(a: NDArray): NDArray {
  const out = ndarray(a.dtype, a.shape);
  const rank = a.shape.length;
  const idx = new Array<number>(rank).fill(0);
  for (let f = 0; f < a.data.length; f++) {
    let c = 0;
    for (let d = 0; d < rank; d++) c = c * a.shape[d] + idx[d];
    out.data[c] = a.data[f];
    for (let d = 0; d < rank; d++) {
      if (++idx[d] < a.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

export function writeNpy(a: NDArray): Uint8Array {
  const descr = DESCR_OF[a.dtype];
  if (!descr) throw new Error(`cannot write dtype ${a.dtype} to .npy`);
  const shapeText = a.shape.length === 1 ? `(${a.shape[0]},)` : `(${a.shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // numpy pads the header with spaces so the data starts on a 64-byte boundary, ending in '\n'.
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const width = bytesOf(a.dtype);
  const out = new Uint8Array(10 + header.length + a.data.length * width);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  writeElements(out, 10 + header.length, a.dtype, a.data);
  return out;
}

/** Reads a .npz archive: arrays in archive order, keyed by name without '.npy'. */
/** What readNpz inflates at most unless told otherwise: far above any input or output firmgen runs. */
export const NPZ_DEFAULT_MAX_BYTES = 1 << 30;

/**
 * `maxBytes` bounds the arrays' inflated size, checked from the archive's directory before anything is inflated (a
 * 2 MB archive can hold gigabytes of zeros); each array's header is checked against its data before it is allocated.
 */
export function readNpz(path: string, maxBytes = NPZ_DEFAULT_MAX_BYTES): Map<string, NDArray> {
  const bytes = readUserFile(path, 'arrays');
  try {
    return parseNpz(bytes, maxBytes);
  } catch (e) {
    if (e instanceof GenError) throw e.withSite({ file: path });
    throw new GenError('input', `not a valid .npz archive: ${(e as Error).message}`, { file: path });
  }
}

export function parseNpz(bytes: Uint8Array, maxBytes = NPZ_DEFAULT_MAX_BYTES): Map<string, NDArray> {
  const entries = zipEntries(bytes).filter((e) => e.name.endsWith('.npy'));
  let total = 0;
  for (const e of entries) {
    total += e.originalSize;
    if (total > maxBytes) {
      throw new GenError('input', `the arrays inflate to more than ${maxBytes} bytes (${e.name}: ${e.originalSize} ` +
        'bytes): larger than anything this command reads; refused before inflating');
    }
  }
  const out = new Map<string, NDArray>();
  for (const e of entries) out.set(e.name.slice(0, -4), parseNpy(zipEntryData(bytes, e)));
  return out;
}

/**
 * fflate (zipSync) is required on first use: reading arrays, as `gen firmware` does, never sets up its tables.
 * Required rather than imported, as a CommonJS package (see proto.ts).
 */
let fflate: typeof import('fflate') | undefined;

export function encodeNpz(arrays: Map<string, NDArray>): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const [name, a] of arrays) files[`${name}.npy`] = writeNpy(a);
  // A fixed timestamp keeps archives byte-identical across runs.
  fflate ??= createRequire(import.meta.url)('fflate') as typeof import('fflate');
  return fflate.zipSync(files, { level: 0, mtime: new Date('2000-01-01T00:00:00Z') });
}

