import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkClosures } from '../../generator/backend/closure-check.js';
import { renderClosure } from '../../generator/backend/closure.js';
import { GenError } from '../../generator/errors.js';

/** The closure lint: a body that uses anything but its locals, its struct's fields and the HAL fails generation. */
function closure(body: string, fields = ['x', 'y']): string {
  return renderClosure('generic', {
    fn: 'L_0_Test',
    comment: 'test',
    args: fields.map((f, i) => ({ field: f, tensor: f, dtype: 'int8', write: i === fields.length - 1, symbol: `t_${f}` })),
    bodyC: '',
    bodyAs: body,
  }).as;
}

function failure(f: () => void): GenError {
  try {
    f();
  } catch (e) {
    if (e instanceof GenError) return e;
    throw e;
  }
  throw new Error('expected a GenError');
}

test('a body using only locals, fields, builtins and the HAL passes', () => {
  const src = closure(`  const start = share_begin(16);\n  for (let i = start; i < share_end(16); i++) store<i8>(a.y + i, load<i8>(a.x + i));\n  compute(ELEMENT, 16);`);
  checkClosures([{ fn: 'L_0_Test', fields: ['x', 'y'], source: src }]);
});

test('a body that captures a network-level buffer fails with a clear message', () => {
  const src = `const t_z: usize = 64;\n${closure('  store<i8>(a.y, load<i8>(t_z));')}`;
  const e = failure(() => checkClosures([{ fn: 'L_0_Test', fields: ['x', 'y'], source: src }]));
  assert.is(e.kind, 'closure');
  assert.match(e.message, /closure L_0_Test: captures 't_z'/);
});

test('a body reading a field its struct does not declare fails', () => {
  const src = closure('  store<i8>(a.y, load<i8>(a.w));');
  const e = failure(() => checkClosures([{ fn: 'L_0_Test', fields: ['x', 'y'], source: src }]));
  assert.match(e.message, /uses a\.w, which its argument struct does not declare/);
});

test('a struct that differs from the declared free variables fails', () => {
  const src = closure('  store<i8>(a.y, 0);', ['x', 'y']);
  const e = failure(() => checkClosures([{ fn: 'L_0_Test', fields: ['x', 'w', 'y'], source: src }]));
  assert.match(e.message, /argument struct holds \[x, y\] but the generator declared \[x, w, y\]/);
});

test.run();
