import { inflateRawSync } from 'node:zlib';

/*
 * A .zip reader for .npz archives (PKWARE APPNOTE.TXT 6.3: end of central directory, central directory, local
 * headers; Zip64 sizes and offsets), stored and deflated entries, inflated by node:zlib. Written here rather than
 * through fflate's unzipSync: fflate builds its Huffman tables when its module loads (~5 ms of every `gen firmware`
 * start, node --cpu-prof), for an archive numpy writes uncompressed unless asked.
 */

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  size: number;
  originalSize: number;
  /** Where the entry's local header starts. */
  offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ALL_ONES_32 = 0xffffffff;
const UTF8_NAME_FLAG = 0x800;

/** Reads a little-endian u64 as a double; entries beyond 2^53 bytes are refused by the bounds checks anyway. */
function u64(v: DataView, at: number): number {
  return v.getUint32(at + 4, true) * 2 ** 32 + v.getUint32(at, true);
}

/** The archive's entries, in central-directory order; throws Error with the reason on a malformed archive. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (at: number, n: number, what: string): void => {
    if (at < 0 || at + n > bytes.length) throw new Error(`${what} lies beyond the end of the file (byte ${at})`);
  };
  // The end record: 22 bytes and a comment of up to 65535, searched from the end.
  let eocd = bytes.length - 22;
  while (eocd >= 0 && v.getUint32(eocd, true) !== EOCD) {
    if (bytes.length - eocd > 22 + 0xffff) eocd = -1;
    else eocd--;
  }
  if (eocd < 0) throw new Error('no end of central directory record (not a zip archive)');
  let count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  if (eocd >= 20 && v.getUint32(eocd - 20, true) === ZIP64_LOCATOR) {
    const z = u64(v, eocd - 12);
    need(z, 56, 'the Zip64 end record');
    if (v.getUint32(z, true) !== ZIP64_EOCD) throw new Error(`no Zip64 end record at byte ${z}`);
    count = u64(v, z + 32);
    at = u64(v, z + 48);
  }
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    need(at, 46, `central directory entry ${i}`);
    if (v.getUint32(at, true) !== CENTRAL) throw new Error(`central directory entry ${i} has a bad signature (byte ${at})`);
    const nameLen = v.getUint16(at + 28, true);
    const extraLen = v.getUint16(at + 30, true);
    const commentLen = v.getUint16(at + 32, true);
    need(at + 46, nameLen + extraLen, `central directory entry ${i}'s name`);
    const raw = bytes.subarray(at + 46, at + 46 + nameLen);
    const utf8 = (v.getUint16(at + 8, true) & UTF8_NAME_FLAG) !== 0;
    const name = utf8 ? new TextDecoder().decode(raw) : String.fromCharCode(...raw);
    let size = v.getUint32(at + 20, true);
    let originalSize = v.getUint32(at + 24, true);
    let offset = v.getUint32(at + 42, true);
    // Zip64 extended information (header id 1): the 8-byte values, in this order, of the fields that read all ones.
    for (let e = at + 46 + nameLen; e + 4 <= at + 46 + nameLen + extraLen; e += 4 + v.getUint16(e + 2, true)) {
      if (v.getUint16(e, true) !== 1) continue;
      let p = e + 4;
      const next = (): number => {
        need(p, 8, `entry ${name}'s Zip64 sizes`);
        const x = u64(v, p);
        p += 8;
        return x;
      };
      if (originalSize === ALL_ONES_32) originalSize = next();
      if (size === ALL_ONES_32) size = next();
      if (offset === ALL_ONES_32) offset = next();
      break;
    }
    entries.push({ name, method: v.getUint16(at + 10, true), size, originalSize, offset });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** One entry's bytes, inflated when deflated; its size must be what the directory says. */
export function zipEntryData(bytes: Uint8Array, e: ZipEntry): Uint8Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (e.offset + 30 > bytes.length || v.getUint32(e.offset, true) !== LOCAL) throw new Error(`${e.name}: no local header at byte ${e.offset}`);
  const start = e.offset + 30 + v.getUint16(e.offset + 26, true) + v.getUint16(e.offset + 28, true);
  if (start + e.size > bytes.length) throw new Error(`${e.name}: its ${e.size} bytes run past the end of the file`);
  const data = bytes.subarray(start, start + e.size);
  if (e.method === 0) return data;
  if (e.method !== 8) throw new Error(`${e.name}: unsupported compression method ${e.method}`);
  let out: Buffer;
  try {
    // Bounded by the declared size (zlib refuses to give more), so readNpz's size check before inflating holds.
    out = inflateRawSync(data, { maxOutputLength: Math.max(1, e.originalSize) });
  } catch (err) {
    throw new Error(`${e.name}: ${(err as Error).message}`);
  }
  if (out.length !== e.originalSize) throw new Error(`${e.name}: inflates to ${out.length} bytes, the directory says ${e.originalSize}`);
  return out;
}
