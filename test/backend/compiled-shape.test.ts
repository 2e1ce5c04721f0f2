import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { codeBytes } from '../../generator/backend/c-image.js';
import { compiledShapeBytes } from '../../generator/backend/compiled-shape.js';

/** The code estimate's count for a template of live code only (backend/compiled-shape.ts): unrolled loops by copy. */
const body = '{ y[j] = (int8_t)(a[j] * b[j] + c); }';

test('without an unroll pragma the count is the C without comments', () => {
  const src = `int f(void) { /* a comment */ return 1; }\n`;
  assert.is(compiledShapeBytes(src), codeBytes(src));
});

test('a loop under `#pragma GCC unroll 4` of a run-time trip count: its body counted four times', () => {
  const src = `#pragma GCC unroll 4\nfor (int32_t j = 0; j < n; j++) ${body}\n`;
  assert.is(compiledShapeBytes(src), codeBytes(src) + 3 * codeBytes(body));
});

test('a loop of literal bounds runs no more copies than its trips; a comment in the body is not counted', () => {
  const src = `#pragma GCC unroll 16\nfor (int32_t kx = 0; kx < 3; kx++) ${body}\n`;
  assert.is(compiledShapeBytes(src), codeBytes(src) + 2 * codeBytes(body));
  const commented = `#pragma GCC unroll 4\nfor (int32_t j = 0; j < n; j++) { /* ${'x'.repeat(100)} */ y[j] = 0; }\n`;
  assert.is(compiledShapeBytes(commented), codeBytes(commented) + 3 * codeBytes('{   y[j] = 0; }'));
});

test('a loop stepping by a literal K runs ceil((B - A) / K) copies: the max pool\'s flat row of 16 columns, 8', () => {
  const src = `#pragma GCC unroll 16\nfor (int32_t ox = 0; ox < 16; ox += 2) ${body}\n`;
  assert.is(compiledShapeBytes(src), codeBytes(src) + 7 * codeBytes(body));
  const odd = `#pragma GCC unroll 16\nfor (int32_t ox = 0; ox < 5; ox += 2) ${body}\n`;
  assert.is(compiledShapeBytes(odd), codeBytes(odd) + 2 * codeBytes(body));
});

test('nested unrolled loops multiply; a body without braces is its one statement', () => {
  const inner = 'for (int32_t c = 0; c < 2; c++) acc[c] += x[c];';
  const src = `#pragma GCC unroll 4\nfor (int32_t j = 0; j < n; j++) {\n#pragma GCC unroll 4\n${inner}\n}\n`;
  const innerBody = 'acc[c] += x[c];';
  const outerBody = `{\n#pragma GCC unroll 4\n${inner}\n}`;
  // The outer body holds the inner loop with its own extra copy; the outer loop adds three copies of all that.
  const outerWeighed = codeBytes(outerBody) + codeBytes(innerBody);
  assert.is(compiledShapeBytes(src), codeBytes(src) + codeBytes(innerBody) + 3 * outerWeighed);
});

test.run();
