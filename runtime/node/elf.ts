/**
 * Section headers of an ELF file (32- or 64-bit, little-endian): enough to report a firmware's section sizes
 * without binutils (the host's `size` does not read RISC-V ELFs, and the cross `size` may be missing).
 */
import { readFileSync } from 'node:fs';
import { GenError } from '../../generator/errors.js';

export interface ElfSection {
  name: string;
  /** SHT_*: 1 PROGBITS, 8 NOBITS, ... */
  type: number;
  /** SHF_*: 1 write, 2 alloc, 4 exec. */
  flags: number;
  address: number;
  size: number;
}

export const SHT_NOBITS = 8;
export const SHF_WRITE = 1;
export const SHF_ALLOC = 2;
export const SHF_EXEC = 4;

export function readElfSections(path: string): ElfSection[] {
  const b = readFileSync(path);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46) throw new GenError('run', 'not an ELF file', { file: path });
  const is64 = b[4] === 2;
  if (b[5] !== 1) throw new GenError('run', 'big-endian ELF files are not supported', { file: path });
  const num = (off: number): number => (is64 ? Number(b.readBigUInt64LE(off)) : b.readUInt32LE(off));
  const shoff = num(is64 ? 0x28 : 0x20);
  const shentsize = b.readUInt16LE(is64 ? 0x3a : 0x2e);
  const shnum = b.readUInt16LE(is64 ? 0x3c : 0x30);
  const shstrndx = b.readUInt16LE(is64 ? 0x3e : 0x32);
  const header = (i: number) => {
    const at = shoff + i * shentsize;
    return {
      nameOffset: b.readUInt32LE(at),
      type: b.readUInt32LE(at + 4),
      flags: num(at + 8),
      address: num(at + (is64 ? 16 : 12)),
      offset: num(at + (is64 ? 24 : 16)),
      size: num(at + (is64 ? 32 : 20)),
    };
  };
  const strtab = header(shstrndx);
  const nameAt = (o: number): string => {
    const start = strtab.offset + o;
    const end = b.indexOf(0, start);
    return b.toString('latin1', start, end < 0 ? start : end);
  };
  const out: ElfSection[] = [];
  for (let i = 1; i < shnum; i++) {
    const h = header(i);
    out.push({ name: nameAt(h.nameOffset), type: h.type, flags: h.flags, address: h.address, size: h.size });
  }
  return out;
}

export interface ElfSymbol {
  name: string;
  address: number;
  size: number;
  /** STT_*: 0 none, 1 object, 2 function, 3 section, 4 file. */
  type: number;
}

/** Every named symbol of the ELF's symbol table (32-bit little-endian). */
export function readElfSymbols(path: string): ElfSymbol[] {
  const b = readFileSync(path);
  if (b.length < 52 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 1 || b[5] !== 1) {
    throw new GenError('run', 'not a 32-bit little-endian ELF file', { file: path });
  }
  const shoff = b.readUInt32LE(0x20);
  const shentsize = b.readUInt16LE(0x2e);
  const shnum = b.readUInt16LE(0x30);
  const section = (i: number) => {
    const at = shoff + i * shentsize;
    return { type: b.readUInt32LE(at + 4), offset: b.readUInt32LE(at + 16), size: b.readUInt32LE(at + 20), link: b.readUInt32LE(at + 24) };
  };
  const out: ElfSymbol[] = [];
  for (let i = 1; i < shnum; i++) {
    const s = section(i);
    if (s.type !== 2) continue; // SHT_SYMTAB
    const strtab = section(s.link);
    for (let at = s.offset; at + 16 <= s.offset + s.size; at += 16) {
      const start = strtab.offset + b.readUInt32LE(at);
      const end = b.indexOf(0, start);
      const name = b.toString('latin1', start, end);
      if (name) out.push({ name, address: b.readUInt32LE(at + 4), size: b.readUInt32LE(at + 8), type: b[at + 12] & 0xf });
    }
  }
  return out;
}
