/**
 * The accesses an elementwise loop declares to the emulator's L1 bank replay (kernels/parts.ts renderPart `streams`):
 * one per leaf the inner loop moves along, then the output, at most period - 1 leaves. A leaf the inner loop does not
 * move along (a requantization's scalar, a value per outer index) is loaded once per run, so it is no stream: declared
 * at step 0 it had every core read one word every element, which priced a norm's pre-shift 13 % over the ISS and left
 * the rotary joins' streamed tables undeclared (13 % under; docs/timing-journal.md "The streams of an elementwise loop").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPart, type PartSpec } from '../../generator/kernels/parts.js';

const site = { node: 'n', op: 'Add' };
const range = { min: -128, max: 127 };
/** Leaves: in0 a scalar, in1 a full tensor, in2 a row broadcast down the outer loop, in3 a value per outer index. */
const spec: PartSpec = {
  dims: [8, 16],
  leaves: [
    { field: 'in0', dtype: 'int8', strides: [0, 0], offset: 0, range },
    { field: 'in1', dtype: 'int8', strides: [16, 1], offset: 0, range },
    { field: 'in2', dtype: 'int16', strides: [0, 1], offset: 0, range },
    { field: 'in3', dtype: 'int32', strides: [1, 0], offset: 0, range },
  ],
  out: { field: 'y', dtype: 'int32', strides: [16, 1], offset: 0 },
  expr: { k: 'add', a: { k: 'add', a: { k: 'in', i: 0 }, b: { k: 'in', i: 1 } }, b: { k: 'add', a: { k: 'in', i: 2 }, b: { k: 'in', i: 3 } } },
};

type Stream = { k: number; field: string; index: number; s3: number; shift: number };
const streamsAt = (period: number): Stream[] => renderPart(spec, site, { period }).streams as Stream[];

test('the streamed leaves and the output, in order, each with its step and index', () => {
  assert.equal(streamsAt(20).map((s) => [s.field, s.index, s.s3, s.shift]), [['in1', 0, 1, 0], ['in2', 1, 1, 1], ['y', 2, 1, 2]]);
});

test('no leaf the inner loop does not move along, at any period', () => {
  for (const period of [2, 3, 4, 8, 20]) {
    const fields = streamsAt(period).map((s) => s.field);
    assert.not.ok(fields.includes('in0') || fields.includes('in3'), `period ${period}: ${fields.join(', ')}`);
    assert.is(fields[fields.length - 1], 'y', 'the output last');
  }
});

test('at most period - 1 leaves: a loop makes one access a cycle', () => {
  assert.equal(streamsAt(2).map((s) => s.field), ['in1', 'y']);
  assert.equal(streamsAt(3).map((s) => s.field), ['in1', 'in2', 'y']);
});

test.run();
