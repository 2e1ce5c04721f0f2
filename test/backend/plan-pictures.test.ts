/**
 * Every `gen firmware` output shows its plan: memory-<REGION>.svg for the home memory and for L1, and tiles.md.
 * The pictures must be well-formed XML (they are opened by browsers and image tools, not only embedded in HTML)
 * with one rect per buffer: per home buffer (aliases share one) and tile table, per L1 slot of each tiled layer.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Manifest } from '../../generator/backend/manifest.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { plannedBuffers } from '../../generator/report/memory-plan.js';
import { DEEPLOY } from '../helpers/deeploy.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-pictures-'));

/** A strict little well-formedness check: balanced tags, quoted attributes, known entities, one root. */
function checkXml(text: string): void {
  // Plain errors, not assertions: uvu's assert.throws passes an Assertion through instead of catching it.
  const fail = (what: string): never => {
    throw new Error(`not well-formed XML: ${what}`);
  };
  const stack: string[] = [];
  let roots = 0;
  const body = text.replace(/^<\?xml[^>]*\?>\s*/, '');
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<|&(?!(?:amp|lt|gt|quot|apos|#\d+);)/g;
  let m: RegExpExecArray | null;
  while ((m = tag.exec(body))) {
    if (m[0].startsWith('<!--')) continue;
    if (m[0] === '<' || m[0] === '&') fail(`stray '${m[0]}' at ${m.index}: ${body.slice(m.index, m.index + 60)}`);
    const [, close, name, , selfClose] = m;
    if (close) {
      if (stack.pop() !== name) fail(`</${name}> at ${m.index} closes another element`);
    } else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name);
    } else if (stack.length === 0) roots++;
  }
  if (stack.length > 0) fail(`<${stack.join('>, <')}> never closed`);
  if (roots !== 1) fail(`${roots} root elements`);
}

const rects = (svg: string): number => (svg.match(/<rect /g) ?? []).length;

// At the default L1 miniMobileNetv2's layers are one tile each (the tile loop's measured cost makes fewer tiles
// cheaper); the tight L1s split layers into double-buffered tiles.
for (const [model, l1] of [['miniMobileNetv2', undefined], ['miniMobileNetv2', 4000], ['CNN_Linear2', 15000]] as const) {
  test(`${model}${l1 ? ` at L1 ${l1}` : ''}: memory-L2.svg, memory-L1.svg and tiles.md`, () => {
    const out = join(work, `${model}${l1 ?? ''}`);
    const { manifest, plan } = generateFirmware({ model: join(DEEPLOY, 'Models', model, 'network.onnx'), platform: 'siracusa', out, l1 });
    const m = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')) as Manifest;
    assert.equal(m.tiling, manifest.tiling);
    for (const f of ['memory-L2.svg', 'memory-L1.svg', 'tiles.md']) assert.ok(existsSync(join(out, f)), f);

    const l2 = readFileSync(join(out, 'memory-L2.svg'), 'utf8');
    checkXml(l2);
    assert.is(rects(l2), plannedBuffers(m, 'L2').buffers.length + plan.blobs.size, 'one rect per L2 buffer and tile table');

    const l1svg = readFileSync(join(out, 'memory-L1.svg'), 'utf8');
    checkXml(l1svg);
    const tiled = m.layers.filter((l) => l.tiling);
    assert.ok(tiled.length > 0);
    const slots = tiled.reduce((n, l) => n + l.tiling!.operands.reduce((k, o) => k + o.offsets.length, 0), 0);
    assert.is(rects(l1svg), slots, 'one rect per L1 slot');
    // The double-buffered operands really have two boxes at their two offsets.
    const two = tiled.flatMap((l) => l.tiling!.operands).find((o) => o.offsets.length === 2);
    if (l1 !== undefined) assert.ok(two, 'some operand is double-buffered');

    const md = readFileSync(join(out, 'tiles.md'), 'utf8');
    const rows = md.split('\n').filter((r) => r.startsWith('| '));
    // Header + separator of each table, one row per tiled layer, one row per operand.
    const operands = tiled.reduce((n, l) => n + l.tiling!.operands.length, 0);
    assert.is(rows.length, 4 + tiled.length + operands);
    for (const l of tiled) {
      const t = l.tiling!;
      assert.ok(rows.some((r) => r.startsWith(`| ${l.id} `) && r.includes(` ${t.l1Bytes} |`) && r.includes(` ${t.estimate.cycles} |`)), `row of layer ${l.id}`);
    }
  });
}

test('an untiled plan still shows its home memory, and no L1 picture', () => {
  const out = join(work, 'untiled');
  generateFirmware({ model: join(DEEPLOY, 'Models', 'miniMobileNet', 'network.onnx'), platform: 'siracusa', out, untiled: true });
  checkXml(readFileSync(join(out, 'memory-L2.svg'), 'utf8'));
  assert.not.ok(existsSync(join(out, 'memory-L1.svg')));
  assert.not.ok(existsSync(join(out, 'tiles.md')));
});

test('the checker rejects what a browser would', () => {
  assert.throws(() => checkXml('<svg><g></svg>'));
  assert.throws(() => checkXml('<svg><text>a & b</text></svg>'));
  assert.throws(() => checkXml('<svg x=1></svg>'));
  checkXml('<svg xmlns="http://www.w3.org/2000/svg"><g><title>a &amp; b</title><rect x="1"/></g></svg>');
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
