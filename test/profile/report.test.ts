/**
 * The HTML report: self-contained (no script, no external asset), with the table, the timeline and the memory plan;
 * the memory plan's lifetimes, rebuilt from firmware.json alone, are the planner's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bufferUses } from '../../generator/midend/lifetimes.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { buildProfile } from '../../runtime/node/profile.js';
import { reportHtml } from '../../runtime/node/report/html.js';
import { plannedBuffers } from '../../generator/report/memory-plan.js';
import { runFirmware } from '../../runtime/node/run.js';
import { buildTrace } from '../../runtime/node/trace.js';
import { arrays, DEEPLOY } from '../helpers/deeploy.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-report-'));

for (const model of ['miniMobileNetv2', 'EEGFormer']) {
  test(`${model}: the page is self-contained and shows table, timeline and memory plan`, async () => {
    const dir = join(DEEPLOY, 'Models', model);
    const out = join(work, model);
    const g = generateFirmware({ model: join(dir, 'network.onnx'), platform: 'siracusa', out });
    const m = readManifest(out);
    const r = await runFirmware(out, arrays(join(dir, 'inputs.npz')).slice(0, m.inputs.length));
    const html = reportHtml(m, buildProfile(m, r), buildTrace(m, r));
    assert.match(html, /^<!DOCTYPE html>/);
    assert.not.match(html, /<script|<link|<img|<iframe|url\((?!#)|@import/i, 'no script, no external asset');
    assert.not.match(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, ''), /https?:/, 'no URL');
    assert.is((html.match(/<table>/g) ?? []).length, 1);
    assert.match(html, /<svg[^>]*class="timeline"/);
    assert.match(html, /<svg[^>]*class="memplan"/);
    for (const l of m.layers) assert.ok(html.includes(`>${l.name}<`), `layer ${l.name} in the table`);
    for (let c = 0; c < 8; c++) assert.ok(html.includes(`>cluster core ${c}<`), `core ${c} row`);

    // Lifetimes from the manifest equal the planner's (graph steps: 0 inputs, layer i at i + 1, outputs last).
    const uses = bufferUses(g.lowered, (i) => g.layers[i].kernel === 'alias');
    const { buffers } = plannedBuffers(m, m.tensors[0].region);
    for (const u of uses.values()) {
      const b = buffers.find((x) => x.names.includes(u.root));
      assert.ok(b, `buffer of ${u.root}`);
      assert.equal([b!.first, b!.last], [u.first, u.last], `lifetime of ${u.root}`);
      assert.equal([...b!.names].sort(), [...u.members].sort(), `members of ${u.root}`);
    }
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
