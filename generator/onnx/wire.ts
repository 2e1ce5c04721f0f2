/*
 * Protocol Buffers wire format, read side (protobuf.dev/programming-guides/encoding): what the ONNX reader (decode.ts)
 * needs and nothing more. Written here rather than through protobufjs: its module set-up and generic reader were
 * ~15 ms of every `gen firmware` start and most of the model's decoding (node --cpu-prof).
 */

/** A malformed byte stream; the message says where (byte offset) and why. */
export class WireError extends Error {}

/** Wire types (protobuf encoding guide). */
export const VARINT = 0;
export const I64 = 1;
export const LEN = 2;
const SGROUP = 3;
const EGROUP = 4;
export const I32 = 5;

const TWO_32 = 4294967296;

/** A cursor over one message's bytes: `end` is where the message being read stops. */
export class WireReader {
  pos = 0;
  /** The last varint's low and high 32 bits (as read by varint()). */
  private lo = 0;
  private hi = 0;
  readonly view: DataView;
  /** The same bytes as a Buffer, for its native UTF-8 decoding. */
  private readonly buf: Buffer;

  constructor(readonly bytes: Uint8Array, public end = bytes.length) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private truncated(need: number): WireError {
    return new WireError(`truncated at byte ${this.pos}: ${need} more byte(s) needed, the message ends at byte ${this.end}`);
  }

  /** Reads a varint of up to 10 bytes into lo/hi. */
  private varint(): void {
    const b = this.bytes;
    let lo = 0;
    let hi = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.pos >= this.end) throw this.truncated(1);
      const x = b[this.pos++];
      lo |= (x & 0x7f) << shift;
      if (x < 0x80) {
        this.lo = lo;
        this.hi = 0;
        return;
      }
    }
    if (this.pos >= this.end) throw this.truncated(1);
    let x = b[this.pos++];
    lo |= (x & 0x0f) << 28;
    hi = (x & 0x7f) >> 4;
    if (x >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (shift > 31) throw new WireError(`varint longer than 10 bytes at byte ${this.pos}`);
        if (this.pos >= this.end) throw this.truncated(1);
        x = b[this.pos++];
        hi |= (x & 0x7f) << shift;
        if (x < 0x80) break;
      }
    }
    this.lo = lo;
    this.hi = hi;
  }

  /** A field's tag: field number * 8 + wire type; read at pos < end. Field number 0 does not exist. */
  tag(): number {
    this.varint();
    const t = this.lo >>> 0;
    if (t >>> 3 === 0) throw new WireError(`field number 0 at byte ${this.pos}`);
    return t;
  }

  /** int32 and enum fields: the varint's low 32 bits, signed (negative int32 values are sign-extended varints). */
  int32(): number {
    this.varint();
    return this.lo | 0;
  }

  /** int64 fields, as a double (exact up to 2^53; beyond, the nearest double, as Long.toNumber gives it). */
  int64(): number {
    this.varint();
    return (this.hi | 0) * TWO_32 + (this.lo >>> 0);
  }

  /** uint64 fields, as a double (exact up to 2^53). */
  uint64(): number {
    this.varint();
    return (this.hi >>> 0) * TWO_32 + (this.lo >>> 0);
  }

  float(): number {
    if (this.pos + 4 > this.end) throw this.truncated(this.pos + 4 - this.end);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw this.truncated(this.pos + 8 - this.end);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A length-delimited field's extent: returns its end and leaves pos at its first byte. */
  length(): number {
    this.varint();
    const n = this.lo >>> 0;
    if (this.hi !== 0 || this.pos + n > this.end) throw this.truncated(this.hi !== 0 ? TWO_32 : this.pos + n - this.end);
    return this.pos + n;
  }

  /** bytes fields: a view into the input, not a copy. */
  bytesField(): Uint8Array {
    const end = this.length();
    const out = this.bytes.subarray(this.pos, end);
    this.pos = end;
    return out;
  }

  /**
   * string fields: UTF-8 as Buffer decodes it (a malformed sequence as U+FFFD), which is what protobufjs gives when
   * it reads a Buffer, as it did here.
   */
  string(): string {
    const end = this.length();
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  /** Repeated numeric fields, packed (one LEN record) or not (one record per value), appended to `out`. */
  repeated(wireType: number, scalarType: number, read: () => number, out: number[]): void {
    if (wireType === LEN) {
      const end = this.length();
      while (this.pos < end) out.push(read.call(this));
      if (this.pos !== end) throw new WireError(`packed field overruns its length at byte ${this.pos}`);
    } else {
      expectWireType(wireType, scalarType, this.pos);
      out.push(read.call(this));
    }
  }

  /** Skips a field this reader does not use. */
  skip(wireType: number, field: number): void {
    switch (wireType) {
      case VARINT: this.varint(); return;
      case I64: this.advance(8); return;
      case LEN: this.pos = this.length(); return;
      case I32: this.advance(4); return;
      case SGROUP: {
        for (;;) {
          if (this.pos >= this.end) throw this.truncated(1);
          const t = this.tag();
          if ((t & 7) === EGROUP) {
            if (t >>> 3 !== field) throw new WireError(`group ${field} closed by field ${t >>> 3} at byte ${this.pos}`);
            return;
          }
          this.skip(t & 7, t >>> 3);
        }
      }
      default: throw new WireError(`invalid wire type ${wireType} at byte ${this.pos}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw this.truncated(this.pos + n - this.end);
    this.pos += n;
  }
}

/** A known field read with the wrong wire type is a malformed file, not a value to guess at. */
export function expectWireType(got: number, want: number, pos: number): void {
  if (got !== want) throw new WireError(`wire type ${got} where ${want} was expected, at byte ${pos}`);
}
