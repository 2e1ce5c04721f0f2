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
  while (r.pos < r.end) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1: m.irVersion = int64(r, t & 7); break;
      case 7: m.graph = sub(r, t & 7, graph); break;
      default: r.skip(t & 7, t >>> 3);
    }
  }
  return m;
}

/*
 * Each message is read by one loop over its fields up to its end (a message's reader sets r.end to its own end and
 * gives the outer one back): plain loops and switches, no callback per message, as a cold process runs them
 * interpreted (node --cpu-prof: half the decoding time went to the callbacks' set-up).
 */

/** A length-delimited sub-message. */
function sub<T>(r: WireReader, wt: number, read: (r: WireReader) => T): T {
  expectWireType(wt, LEN, r.pos);
  const outer = r.end;
  r.end = r.length();
  const m = read(r);
  r.end = outer;
  return m;
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

function graph(r: WireReader): GraphMsg {
  const g: GraphMsg = { node: [], name: '', initializer: [], input: [], output: [], valueInfo: [] };
  while (r.pos < r.end) {
    const t = r.tag();
    const wt = t & 7;
    switch (t >>> 3) {
      case 1: g.node.push(sub(r, wt, node)); break;
      case 2: g.name = str(r, wt); break;
      case 5: g.initializer.push(sub(r, wt, tensor)); break;
      case 11: g.input.push(sub(r, wt, valueInfo)); break;
      case 12: g.output.push(sub(r, wt, valueInfo)); break;
      case 13: g.valueInfo.push(sub(r, wt, valueInfo)); break;
      default: r.skip(wt, t >>> 3);
    }
  }
  return g;
}

function node(r: WireReader): NodeMsg {
  const n: NodeMsg = { input: [], output: [], name: '', opType: '', domain: '', attribute: [] };
  while (r.pos < r.end) {
    const t = r.tag();
    const wt = t & 7;
    switch (t >>> 3) {
      case 1: n.input.push(str(r, wt)); break;
      case 2: n.output.push(str(r, wt)); break;
      case 3: n.name = str(r, wt); break;
      case 4: n.opType = str(r, wt); break;
      case 5: n.attribute.push(sub(r, wt, attribute)); break;
      case 7: n.domain = str(r, wt); break;
      default: r.skip(t & 7, t >>> 3);
    }
  }
  return n;
}

function attribute(r: WireReader): AttributeMsg {
  const a: AttributeMsg = { name: '', type: 0, f: 0, i: 0, s: new Uint8Array(0), t: undefined, floats: [], ints: [], strings: [] };
  while (r.pos < r.end) {
    const t = r.tag();
    const wt = t & 7;
    switch (t >>> 3) {
      case 1: a.name = str(r, wt); break;
      case 2: expectWireType(wt, I32, r.pos); a.f = r.float(); break;
      case 3: a.i = int64(r, wt); break;
      case 4: a.s = bytesOf(r, wt); break;
      case 5: a.t = sub(r, wt, tensor); break;
      case 7: r.repeated(wt, I32, r.float, a.floats); break;
      case 8: r.repeated(wt, VARINT, r.int64, a.ints); break;
      case 9: a.strings.push(bytesOf(r, wt)); break;
      case 20: a.type = int32(r, wt); break;
      default: r.skip(t & 7, t >>> 3);
    }
  }
  return a;
}

function tensor(r: WireReader): TensorMsg {
  const m: TensorMsg = {
    name: '', dims: [], dataType: 0, rawData: undefined, floatData: [], int32Data: [], int64Data: [], doubleData: [], uint64Data: [], dataLocation: 0,
  };
  while (r.pos < r.end) {
    const t = r.tag();
    const wt = t & 7;
    switch (t >>> 3) {
      case 1: r.repeated(wt, VARINT, r.int64, m.dims); break;
      case 2: m.dataType = int32(r, wt); break;
      case 4: r.repeated(wt, I32, r.float, m.floatData); break;
      case 5: r.repeated(wt, VARINT, r.int32, m.int32Data); break;
      case 7: r.repeated(wt, VARINT, r.int64, m.int64Data); break;
      case 8: m.name = str(r, wt); break;
      case 9: m.rawData = bytesOf(r, wt); break;
      case 10: r.repeated(wt, I64, r.double, m.doubleData); break;
      case 11: r.repeated(wt, VARINT, r.uint64, m.uint64Data); break;
      case 14: m.dataLocation = int32(r, wt); break;
      default: r.skip(wt, t >>> 3);
    }
  }
  return m;
}

function valueInfo(r: WireReader): ValueInfoMsg {
  const v: ValueInfoMsg = { name: '', type: undefined };
  while (r.pos < r.end) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1: v.name = str(r, t & 7); break;
      case 2: v.type = sub(r, t & 7, typeProto); break;
      default: r.skip(t & 7, t >>> 3);
    }
  }
  return v;
}

function typeProto(r: WireReader): { tensorType?: TensorTypeMsg } {
  const out: { tensorType?: TensorTypeMsg } = { tensorType: undefined };
  while (r.pos < r.end) {
    const t = r.tag();
    if (t >>> 3 === 1) out.tensorType = sub(r, t & 7, tensorType);
    else r.skip(t & 7, t >>> 3);
  }
  return out;
}

function tensorType(r: WireReader): TensorTypeMsg {
  const m: TensorTypeMsg = { elemType: 0, shape: undefined };
  while (r.pos < r.end) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1: m.elemType = int32(r, t & 7); break;
      case 2: m.shape = sub(r, t & 7, shape); break;
      default: r.skip(t & 7, t >>> 3);
    }
  }
  return m;
}

function shape(r: WireReader): { dim: DimensionMsg[] } {
  const s: { dim: DimensionMsg[] } = { dim: [] };
  while (r.pos < r.end) {
    const t = r.tag();
    if (t >>> 3 === 1) s.dim.push(sub(r, t & 7, dimension));
    else r.skip(t & 7, t >>> 3);
  }
  return s;
}

function dimension(r: WireReader): DimensionMsg {
  const d: DimensionMsg = {};
  while (r.pos < r.end) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1: d.dimValue = int64(r, t & 7); break;
      case 2: d.dimParam = str(r, t & 7); break;
      default: r.skip(t & 7, t >>> 3);
    }
  }
  return d;
}
