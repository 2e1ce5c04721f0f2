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

test('CNN_Linear2 on cluster + NPU: NPU jobs and cycles per layer in the table, the NPU row in the timeline', async () => {
  const dir = join(DEEPLOY, 'Models', 'CNN_Linear2');
  const out = join(work, 'npu');
  generateFirmware({ model: join(dir, 'network.onnx'), platform: 'siracusa', out, engines: 'cluster+npu' });
  const m = readManifest(out);
  const r = await runFirmware(out, arrays(join(dir, 'inputs.npz')).slice(0, m.inputs.length));
  const p = buildProfile(m, r);
  const html = reportHtml(m, p, buildTrace(m, r));
  assert.ok(r.npu.length > 0, 'the model runs jobs on the NPU');
  assert.match(html, /<th>NPU jobs<\/th><th>NPU cycles<\/th>/);
  const npuLayers = m.layers.filter((l) => l.engine === 'npu');
  assert.ok(npuLayers.length > 0);
  for (const l of npuLayers) {
    // The layer's row carries its own jobs and busy cycles, counted here from the run's job list.
    const jobs = r.npu.filter((j) => j.layer === l.id);
    const cycles = jobs.reduce((n, j) => n + j.end - j.start, 0);
    assert.ok(jobs.length > 0, `layer ${l.name} ran jobs`);
    const row = html.split('\n').find((line) => line.includes(`>${l.name}<`) && line.startsWith('<tr>'));
    assert.ok(row, `row of ${l.name}`);
    assert.ok(row!.includes(`<td>${jobs.length}</td><td>${cycles}</td>`), `NPU cells of ${l.name}: ${row}`);
  }
  assert.ok(html.includes(`<b>${r.npu.length} / ${r.npu.reduce((n, j) => n + j.end - j.start, 0)}</b>`), 'the NPU card');
  // The timeline has an NPU row with one box per job.
  assert.match(html, />NPU<\/text>/);
  assert.is((html.match(/<title>[^<]*\(npu\)<\/title>/g) ?? []).length, r.npu.length);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
for (const [folder, pes] of [['Kernels/Integer/GEMM/Regular', undefined], ['Models/CNN_Linear1', 5]] as const) {
  test(`spinnaker2 ${folder} (${pes ?? 'all'} PEs): rows only for the agents that worked, each PE DMA on its own track, never drawn over itself`, async () => {
    const dir = join(DEEPLOY, folder);
    const out = join(work, `s2-${pes}`);
    generateFirmware({ model: join(dir, 'network.onnx'), platform: 'spinnaker2', out, pes });
    const m = readManifest(out);
    const r = await runFirmware(out, arrays(join(dir, 'inputs.npz')).slice(0, m.inputs.length));
    const trace = buildTrace(m, r);
    const html = reportHtml(m, buildProfile(m, r), trace);
    assert.not.match(html, /cluster cores/);
    const slices = trace.traceEvents.filter((e) => e.ph === 'X');
    const busy = new Set(slices.map((e) => e.tid));
    const named = trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').length;
    const rows = (/<svg[^>]*class="timeline"[\s\S]*?<\/svg>/.exec(html)![0].match(/text-anchor="end">(?!µs)/g) ?? []).length;
    assert.is(rows, busy.size, 'one timeline row per busy agent');
    if (pes === undefined) assert.ok(rows < named / 4, `${rows} rows of ${named} agents: the idle PEs get none`);
    const dmaTids = new Set(slices.filter((e) => e.cat === 'dma').map((e) => e.tid));
    for (const tid of dmaTids) {
      const ds = slices.filter((e) => e.tid === tid).sort((a, b) => a.ts! - b.ts!);
      for (let i = 1; i < ds.length; i++) assert.ok(ds[i].ts! >= ds[i - 1].ts! + ds[i - 1].dur! - 1e-6, `track ${tid}: slice ${i} starts after the one before ends`);
    }
  });
}

test.run();
