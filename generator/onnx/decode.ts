import type { TensorProtoLike } from './tensor-proto.js';
import { expectWireType, I32, I64, LEN, VARINT, WireError, WireReader } from './wire.js';

/*
 * ONNX's messages (onnx.proto, onnx/onnx on GitHub) decoded from the wire format, only the fields load.ts reads; every
 * other field is skipped. Field numbers are onnx.proto's. Absent scalars read as proto3 defaults (0, ''), absent
 * messages as undefined, absent repeated fields as []; int64 values as doubles (toNumber's reading of them).
 * test/frontend/onnx-decode.test.ts holds this against protobufjs's decoding of the same files (onnx-proto).
 */

export interface DimensionMsg { dimValue?: number; dimParam?: string }
export interface TensorTypeMsg { elemType: number; shape?: { dim: DimensionMsg[] } }
export interface ValueInfoMsg { name: string; type?: { tensorType?: TensorTypeMsg } }
export interface TensorMsg extends TensorProtoLike {
  name: string; dims: number[]; dataType: number; rawData?: Uint8Array; floatData: number[]; int32Data: number[];
  int64Data: number[]; doubleData: number[]; uint64Data: number[]; dataLocation: number;
}
export interface AttributeMsg {
  name: string; type: number; f: number; i: number; s: Uint8Array; t?: TensorMsg; floats: number[]; ints: number[]; strings: Uint8Array[];
}
export interface NodeMsg { input: string[]; output: string[]; name: string; opType: string; domain: string; attribute: AttributeMsg[] }
export interface GraphMsg {
  node: NodeMsg[]; name: string; initializer: TensorMsg[]; input: ValueInfoMsg[]; output: ValueInfoMsg[]; valueInfo: ValueInfoMsg[];
}
export interface ModelMsg { irVersion: number; graph?: GraphMsg }

export { WireError };

/** Decodes a ModelProto; a malformed stream throws WireError (byte offset and reason). */
export function decodeModel(bytes: Uint8Array): ModelMsg {
  const r = new WireReader(bytes);
  const m: ModelMsg = { irVersion: 0, graph: undefined };
  fields(r, bytes.length, (f, wt) => {
    if (f === 1) m.irVersion = int64(r, wt);
    else if (f === 7) m.graph = sub(r, wt, graph);
    else return false;
    return true;
  });
  return m;
}

/** Reads fields up to `end`, handing each to `field`; the ones it does not take (false) are skipped. */
function fields(r: WireReader, end: number, field: (f: number, wt: number) => boolean): void {
  const outer = r.end;
  r.end = end;
  while (r.pos < end) {
    const t = r.tag();
    const f = t >>> 3;
    if (f === 0) throw new WireError(`field number 0 at byte ${r.pos}`);
    if (!field(f, t & 7)) r.skip(t & 7, f);
  }
  r.end = outer;
}

/** A length-delimited sub-message. */
function sub<T>(r: WireReader, wt: number, read: (r: WireReader, end: number) => T): T {
  expectWireType(wt, LEN, r.pos);
  return read(r, r.length());
}

function int64(r: WireReader, wt: number): number {
  expectWireType(wt, VARINT, r.pos);
  return r.int64();
}

function int32(r: WireReader, wt: number): number {
  expectWireType(wt, VARINT, r.pos);
  return r.int32();
}

function str(r: WireReader, wt: number): string {
  expectWireType(wt, LEN, r.pos);
  return r.string();
}

function bytesOf(r: WireReader, wt: number): Uint8Array {
  expectWireType(wt, LEN, r.pos);
  return r.bytesField();
}

function graph(r: WireReader, end: number): GraphMsg {
  const g: GraphMsg = { node: [], name: '', initializer: [], input: [], output: [], valueInfo: [] };
  fields(r, end, (f, wt) => {
    switch (f) {
      case 1: g.node.push(sub(r, wt, node)); return true;
      case 2: g.name = str(r, wt); return true;
      case 5: g.initializer.push(sub(r, wt, tensor)); return true;
      case 11: g.input.push(sub(r, wt, valueInfo)); return true;
      case 12: g.output.push(sub(r, wt, valueInfo)); return true;
      case 13: g.valueInfo.push(sub(r, wt, valueInfo)); return true;
      default: return false;
    }
  });
  return g;
}

function node(r: WireReader, end: number): NodeMsg {
  const n: NodeMsg = { input: [], output: [], name: '', opType: '', domain: '', attribute: [] };
  fields(r, end, (f, wt) => {
    switch (f) {
      case 1: n.input.push(str(r, wt)); return true;
      case 2: n.output.push(str(r, wt)); return true;
      case 3: n.name = str(r, wt); return true;
      case 4: n.opType = str(r, wt); return true;
      case 5: n.attribute.push(sub(r, wt, attribute)); return true;
      case 7: n.domain = str(r, wt); return true;
      default: return false;
    }
  });
  return n;
}

function attribute(r: WireReader, end: number): AttributeMsg {
  const a: AttributeMsg = { name: '', type: 0, f: 0, i: 0, s: new Uint8Array(0), t: undefined, floats: [], ints: [], strings: [] };
  fields(r, end, (f, wt) => {
    switch (f) {
      case 1: a.name = str(r, wt); return true;
      case 2: expectWireType(wt, I32, r.pos); a.f = r.float(); return true;
      case 3: a.i = int64(r, wt); return true;
      case 4: a.s = bytesOf(r, wt); return true;
      case 5: a.t = sub(r, wt, tensor); return true;
      case 7: r.repeated(wt, I32, r.float, a.floats); return true;
      case 8: r.repeated(wt, VARINT, r.int64, a.ints); return true;
      case 9: a.strings.push(bytesOf(r, wt)); return true;
      case 20: a.type = int32(r, wt); return true;
      default: return false;
    }
  });
  return a;
}

function tensor(r: WireReader, end: number): TensorMsg {
  const t: TensorMsg = {
    name: '', dims: [], dataType: 0, rawData: undefined, floatData: [], int32Data: [], int64Data: [], doubleData: [], uint64Data: [], dataLocation: 0,
  };
  fields(r, end, (f, wt) => {
    switch (f) {
      case 1: r.repeated(wt, VARINT, r.int64, t.dims); return true;
      case 2: t.dataType = int32(r, wt); return true;
      case 4: r.repeated(wt, I32, r.float, t.floatData); return true;
      case 5: r.repeated(wt, VARINT, r.int32, t.int32Data); return true;
      case 7: r.repeated(wt, VARINT, r.int64, t.int64Data); return true;
      case 8: t.name = str(r, wt); return true;
      case 9: t.rawData = bytesOf(r, wt); return true;
      case 10: r.repeated(wt, I64, r.double, t.doubleData); return true;
      case 11: r.repeated(wt, VARINT, r.uint64, t.uint64Data); return true;
      case 14: t.dataLocation = int32(r, wt); return true;
      default: return false;
    }
  });
  return t;
}

function valueInfo(r: WireReader, end: number): ValueInfoMsg {
  const v: ValueInfoMsg = { name: '', type: undefined };
  fields(r, end, (f, wt) => {
    if (f === 1) v.name = str(r, wt);
    else if (f === 2) v.type = sub(r, wt, typeProto);
    else return false;
    return true;
  });
  return v;
}

function typeProto(r: WireReader, end: number): { tensorType?: TensorTypeMsg } {
  const out: { tensorType?: TensorTypeMsg } = { tensorType: undefined };
  fields(r, end, (f, wt) => {
    if (f !== 1) return false;
    out.tensorType = sub(r, wt, tensorType);
    return true;
  });
  return out;
}

function tensorType(r: WireReader, end: number): TensorTypeMsg {
  const t: TensorTypeMsg = { elemType: 0, shape: undefined };
  fields(r, end, (f, wt) => {
    if (f === 1) t.elemType = int32(r, wt);
    else if (f === 2) t.shape = sub(r, wt, shape);
    else return false;
    return true;
  });
  return t;
}

function shape(r: WireReader, end: number): { dim: DimensionMsg[] } {
  const s: { dim: DimensionMsg[] } = { dim: [] };
  fields(r, end, (f, wt) => {
    if (f !== 1) return false;
    s.dim.push(sub(r, wt, dimension));
    return true;
  });
  return s;
}

function dimension(r: WireReader, end: number): DimensionMsg {
  const d: DimensionMsg = {};
  fields(r, end, (f, wt) => {
    if (f === 1) d.dimValue = int64(r, wt);
    else if (f === 2) d.dimParam = str(r, wt);
    else return false;
    return true;
  });
  return d;
}
