/**
 * The end of a wasm module's static data: the highest offset + length of its active data segments (the module
 * format's data section, id 11: per segment a flags word, for an active one an `i32.const` offset expression, then
 * the bytes). The firmware build checks it against the firmware's window (docs/firmware-abi.md).
 */

class Reader {
  constructor(readonly b: Uint8Array, public at = 0) {}

  u(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      const byte = this.byte();
      v += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) return v;
    }
  }

  /** A signed LEB128 of at most 32 bits (an i32.const operand). */
  s32(): number {
    let v = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = this.byte();
      v |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80 && shift < 35);
    if (shift < 32 && byte & 0x40) v |= -1 << shift;
    return v;
  }

  byte(): number {
    if (this.at >= this.b.length) throw new Error('the wasm module ends inside a section');
    return this.b[this.at++];
  }
}

/** Highest end (offset + bytes) of the active data segments, 0 when there are none. */
export function staticDataEnd(wasm: Uint8Array): number {
  const r = new Reader(wasm, 8); // magic and version
  let end = 0;
  while (r.at < wasm.length) {
    const id = r.byte();
    const size = r.u();
    const next = r.at + size;
    if (id === 11) {
      for (let n = r.u(); n > 0; n--) {
        const flags = r.u();
        let offset: number | undefined;
        if (flags === 2) r.u(); // the memory index
        if (flags !== 1) {
          // The offset: i32.const <v> end (what the compiler emits for a fixed --memoryBase); others are not placed statically.
          if (r.byte() === 0x41) offset = r.s32() >>> 0;
          while (r.byte() !== 0x0b) { /* skip to the expression's end */ }
        }
        const len = r.u();
        r.at += len;
        if (offset !== undefined) end = Math.max(end, offset + len);
      }
    }
    r.at = next;
  }
  return end;
}
