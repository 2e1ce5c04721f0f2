/** A little-endian byte buffer written by offset (the image's words are all 32-bit). */
export class Words {
  readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  u32(at: number, v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) throw new Error(`u32 at ${at}: ${v} is not an unsigned 32-bit word`);
    this.view.setUint32(at, v, true);
    return this;
  }

  i32(at: number, v: number): this {
    if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Error(`i32 at ${at}: ${v} is not a signed 32-bit word`);
    this.view.setInt32(at, v, true);
    return this;
  }
}

/** int32 values as little-endian bytes. */
export function int32Bytes(values: Int32Array): Uint8Array {
  const w = new Words(values.length * 4);
  values.forEach((v, i) => w.i32(i * 4, v));
  return w.bytes;
}
