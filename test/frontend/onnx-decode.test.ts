import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeModel, WireError } from '../../generator/onnx/decode.js';
import { onnx } from '../../generator/onnx/proto.js';
import { toNumber, type Int64Like } from '../../generator/onnx/tensor-proto.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';
import { filesUnder } from '../helpers/files-under.js';

/*
 * The ONNX reader (onnx/decode.ts, its own wire-format decoder) against protobufjs's decoding of the same bytes
 * (onnx-proto), on every .onnx file of the test vectors and the examples: every field the reader keeps, value for
 * value. Both sides go through one normalisation (absent = the proto3 default, int64 as toNumber reads it), so what
 * is compared is what each decoder found in the bytes.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- one normalisation for two decoders' objects */
const num = (v: Int64Like | null | undefined): number => toNumber(v);
const nums = (xs: ArrayLike<Int64Like> | null | undefined): number[] => Array.from(xs ?? [], num);
const bytes = (b: Uint8Array | null | undefined): string => Buffer.from(b ?? []).toString('base64');
const str = (s: string | null | undefined): string => s ?? '';

function tensor(t: any): unknown {
  if (!t) return null;
  return {
    name: str(t.name), dims: nums(t.dims), dataType: t.dataType ?? 0, rawData: bytes(t.rawData), floatData: nums(t.floatData),
    int32Data: nums(t.int32Data), int64Data: nums(t.int64Data), doubleData: nums(t.doubleData), uint64Data: nums(t.uint64Data),
    dataLocation: t.dataLocation ?? 0,
  };
}

function valueInfo(v: any): unknown {
  const tt = v.type?.tensorType;
  return {
    name: str(v.name),
    tensorType: tt ? {
      elemType: tt.elemType ?? 0,
      dims: tt.shape ? (tt.shape.dim ?? []).map((d: any) => ({ value: d.dimValue == null ? null : num(d.dimValue), param: d.dimParam ?? null })) : null,
    } : null,
  };
}

function model(m: any): unknown {
  const g = m.graph;
  return {
    irVersion: num(m.irVersion),
    graph: g ? {
      name: str(g.name),
      node: (g.node ?? []).map((n: any) => ({
        name: str(n.name), opType: str(n.opType), domain: str(n.domain), input: [...(n.input ?? [])], output: [...(n.output ?? [])],
        attribute: (n.attribute ?? []).map((a: any) => ({
          name: str(a.name), type: a.type ?? 0, f: a.f ?? 0, i: num(a.i), s: bytes(a.s), t: tensor(a.t), floats: nums(a.floats),
          ints: nums(a.ints), strings: (a.strings ?? []).map(bytes),
        })),
      })),
      initializer: (g.initializer ?? []).map(tensor),
      input: (g.input ?? []).map(valueInfo),
      output: (g.output ?? []).map(valueInfo),
      valueInfo: (g.valueInfo ?? []).map(valueInfo),
    } : null,
  };
}

const files = [...filesUnder(DEEPLOY, '.onnx'), ...filesUnder(join(REPO, 'examples'), '.onnx')];

test('there are models to compare', () => {
  assert.ok(files.length >= 50, `${files.length} .onnx files found`);
});

for (const file of files) {
  test(`${relative(join(REPO, '..'), file)}: decoded as protobufjs decodes it`, () => {
    const bytes = readFileSync(file);
    const ours = model(decodeModel(bytes)) as any;
    const theirs = model(onnx().ModelProto.decode(bytes)) as any;
    assert.ok(theirs.graph.node.length > 0, 'the file holds a graph');
    assert.equal(ours, theirs);
  });
}

// Hand-made streams (field numbers and wire types of onnx.proto's ModelProto): tag byte = field * 8 + wire type.
test('an int64 beyond 2^53 and a negative one read as Long.toNumber reads them', () => {
  const big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]; // 2^63 - 1
  const neg = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]; // -2
  for (const [v, want] of [[big, 9223372036854775807], [neg, -2]] as const) {
    const bytes = Uint8Array.from([0x08, ...v]);
    assert.is(decodeModel(bytes).irVersion, want);
    assert.is(num(onnx().ModelProto.decode(bytes).irVersion as Int64Like), want);
  }
});

test('names in UTF-8, malformed sequences included, read as protobufjs reads them from a Buffer', () => {
  const name = [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xff, 0xc3, 0x62]; // a, é, €, a stray byte, a cut sequence, b
  const bytes = Buffer.from([0x3a, name.length + 2, 0x12, name.length, ...name]); // graph { name }
  const theirs = onnx().ModelProto.decode(bytes).graph?.name;
  assert.is(theirs, 'a\u00e9\u20ac\ufffd\ufffdb');
  assert.is(decodeModel(bytes).graph?.name, theirs);
  assert.is(decodeModel(Uint8Array.from(bytes)).graph?.name, theirs, 'from a Uint8Array as from a Buffer');
});

test('unknown fields of every wire type are skipped', () => {
  // field 3 (producer_version) string, field 9 varint, field 10 fixed64, field 11 fixed32, field 12 as a group; then ir_version 7.
  const bytes = Uint8Array.from([0x1a, 0x01, 0x41, 0x48, 0x05, 0x51, 1, 2, 3, 4, 5, 6, 7, 8, 0x5d, 1, 2, 3, 4, 0x63, 0x08, 0x01, 0x64, 0x08, 0x07]);
  assert.is(decodeModel(bytes).irVersion, 7);
});

for (const [what, bytes, reason] of [
  ['a varint cut short', [0x08, 0x80], /truncated at byte 2/],
  ['a length beyond the end', [0x3a, 0x05, 0x0a], /truncated at byte 2/],
  ['a sub-message overrunning its parent', [0x3a, 0x03, 0x12, 0x05, 0x61], /truncated at byte 4/],
  ['wire type 7 on a field the reader skips', [0x1f], /invalid wire type 7/],
  ['a known field with the wrong wire type', [0x09, 1, 2, 3, 4, 5, 6, 7, 8], /wire type 1 where 0 was expected/],
  ['a varint of 11 bytes', [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], /varint longer than 10 bytes/],
  ['field number 0', [0x00, 0x01], /field number 0/],
] as const) {
  test(`a malformed stream: ${what}`, () => {
    assert.throws(() => decodeModel(Uint8Array.from(bytes)), (e: unknown) => e instanceof WireError && reason.test(e.message));
  });
}

test.run();
