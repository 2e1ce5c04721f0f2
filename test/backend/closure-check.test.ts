import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkClosures, closureFault, closureKey, type ClosureSource } from '../../generator/backend/closure-check.js';
import { lintClosure } from '../helpers/closure-lint.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { integerFolders } from '../helpers/deeploy.js';
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

test('labels, ternaries, typed locals and casts read as the syntax tree reads them', () => {
  const body = [
    '  const n: i32 = <i32>share_begin(8);',
    '  outer: for (let i = 0; i < n; i++) {',
    '    for (let j = 0; j < 2; j++) { if (j == i) continue outer; }',
    '    const v = i > 2 ? load<i8>(a.x + <usize>i) : <i8>0;',
    '    store<i8>(a.y + <usize>i, v);',
    '  }',
  ].join('\n');
  const c = { fn: 'L_0_Test', fields: ['x', 'y'], source: closure(body) };
  assert.is(closureFault(c), null);
  assert.is(lintClosure(c), null);
  const arrow = { fn: 'L_0_Test', fields: ['x', 'y'], source: closure('  const f = (q: i32): i32 => q;\n  store<i8>(a.y, <i8>f(1));') };
  assert.match(closureFault(arrow)!, /arrow function/, 'what the token reader does not follow is refused');
});

test('closures that differ only in name, numbers and comments share one verdict; any other difference is read again', () => {
  const at = (fn: string, n: number, note: string, extra = ''): ClosureSource => ({
    fn, fields: ['x', 'y'],
    source: closure(`  // ${note}\n  for (let i = 0; i < ${n}; i++) store<i8>(a.y + i, load<i8>(a.x + i${extra}));\n  compute(ELEMENT, ${n});`).replaceAll('L_0_Test', fn),
  });
  const first = at('L_0_Test', 16, 'layer 0');
  assert.is(closureKey(first), closureKey(at('L_7_Test_t1', 0x40, 'layer 7, tile 1')));
  checkClosures([first]);
  // The same template capturing a buffer: another key, so it is read, and refused, though its sibling passed.
  const capturing = at('L_8_Test', 16, 'layer 8', ' + t_z');
  assert.is.not(closureKey(capturing), closureKey(first));
  assert.match(failure(() => checkClosures([capturing])).message, /closure L_8_Test: captures 't_z'/);
  // Other declared fields: another key.
  assert.is.not(closureKey({ ...first, fields: ['x', 'w'] }), closureKey(first));
  // A quote in a comment is comment; a '//' inside a string is string, kept in the key.
  assert.is(closureKey(at('L_9_Test', 16, "the layer's")), closureKey(first));
  const str = (text: string): ClosureSource => ({ ...first, source: first.source.replace('compute(ELEMENT', `abort("${text}"); compute(ELEMENT`) });
  assert.is.not(closureKey(str('// t_z')), closureKey(str('// t_y')));
});

test('the key zeroes whole numbers only: digits inside a word, a hex literal or an exponent marker stay; the name only as a word', () => {
  const body = (text: string, fn = 'L_0_Test'): ClosureSource => ({ fn, fields: ['x', 'y'], source: closure(`  ${text}\n`).replaceAll('L_0_Test', fn) });
  const same = (a: string, b: string): void => assert.is(closureKey(body(a)), closureKey(body(b)), `${a} ~ ${b}`);
  const differ = (a: string, b: string): void => assert.is.not(closureKey(body(a)), closureKey(body(b)), `${a} !~ ${b}`);
  same('store<i8>(a.y, 1);', 'store<i8>(a.y, 250);');
  same('let f: f32 = 1.5;', 'let f: f32 = 22.25;');
  same('let f: f64 = 1e+5;', 'let f: f64 = 1e+7;');
  same('let f = .5;', 'let f = .75;');
  differ('store<i8>(a.y, 1);', 'store<i16>(a.y, 1);');
  differ('let v1 = 0; store<i8>(a.y, v1);', 'let v1 = 0; store<i8>(a.y, v2);');
  differ('let h = 0x1f;', 'let h = 0x2f;');
  differ('let e = 1e5;', 'let e = 2e5;');
  // The closure's own name is a placeholder; a longer word that starts with it is a word of its own.
  assert.is(closureKey(body('store<i8>(a.y, 1);', 'L_3_Test')), closureKey(body('store<i8>(a.y, 1);', 'L_12_Test')));
  differ('store<i8>(a.y, L_0_Test_x);', 'store<i8>(a.y, L_0_Test_y);');
  // What the tokenizer may read in pieces (a number of 64 characters or more) is never cached.
  assert.is(closureKey(body(`let n = ${'1'.repeat(70)};`)), undefined);
});

/** Every closure the test models produce: the fast check and the ts-morph lint agree, on it and on its mutants. */
test('the token-level check and the ts-morph lint agree on every generated closure and its mutants', () => {
  const work = mkdtempSync(join(tmpdir(), 'firmgen-closures-'));
  const closures: ClosureSource[] = [];
  try {
    let i = 0;
    for (const f of integerFolders()) {
      for (const o of [{ platform: 'siracusa' }, { platform: 'generic' }, { platform: 'siracusa', untiled: true }]) {
        try {
          closures.push(...(generateFirmware({ model: f.model, out: join(work, String(i++)), ...o }).closures ?? []));
        } catch (e) {
          if (!(e instanceof GenError) || e.kind === 'closure') throw e;
        }
      }
    }
    for (const m of ['CNN_Linear2', 'miniMobileNetv2']) {
      const model = integerFolders().find((f) => f.name === `Models/${m}`)!.model;
      closures.push(...(generateFirmware({ model, platform: 'siracusa', engines: 'cluster+npu', out: join(work, String(i++)) }).closures ?? []));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  assert.ok(closures.length > 200, `${closures.length} closures`);
  let mutants = 0;
  for (const c of closures) {
    assert.is(closureFault(c), null, c.fn);
    assert.is(lintClosure(c), null, c.fn);
    const end = c.source.lastIndexOf('}');
    const variants: ClosureSource[] = [
      { ...c, source: `${c.source.slice(0, end)}  store<i32>(fg_capture_probe, 0);\n${c.source.slice(end)}` },
      { ...c, fields: c.fields.slice(1) },
    ];
    const read = /\ba\.([A-Za-z_]\w*)/.exec(c.source.slice(c.source.indexOf(`function ${c.fn}(`)));
    if (read) variants.push({ ...c, source: c.source.replace(`a.${read[1]}`, 'a.no_such_field') });
    for (const v of variants) {
      const fast = closureFault(v);
      assert.ok(fast !== null, `${c.fn}: a mutant passed`);
      assert.is(fast, lintClosure(v), `${c.fn}: the two readings give the same verdict`);
      mutants++;
    }
  }
  assert.ok(mutants >= 2 * closures.length);
});

test.run();
