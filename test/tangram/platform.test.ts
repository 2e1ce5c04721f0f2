import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { gen } from '../helpers/cli.js';
import { genError } from '../helpers/gen-error.js';
import { writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';
import { DEEPLOY } from '../helpers/deeploy.js';

/**
 * The tangram platform's generation: the searched dataflow in firmware.json and dataflow.txt, its options (the
 * configuration file, the objective, the batch) and their errors. The exact runs are test/e2e/tangram.test.ts.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-tangram-'));
const model = join(DEEPLOY, 'Models', 'CNN_Linear2', 'network.onnx');

interface Segment { firmware?: string; layers: Array<{ layer: number; engines: number; firstEngine: number[]; cycles: number; energyPJ: Record<string, number> }> }
interface Data { tangram: { hardware: { grid: { rows: number; cols: number }; bufferBytes: number }; strategy: { objective: string }; batch: number; segments: Segment[] } }

function generate(name: string, extra: Record<string, unknown> = {}): { manifest: { layers: Array<{ id: number; kernel: string }>; platformData: Data }; dir: string } {
  const out = join(work, name);
  generateFirmware({ model, platform: 'tangram', out, ...extra });
  return { manifest: JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')), dir: out };
}


test('every computing layer is placed exactly once, in order, on engines of the grid', () => {
  const { manifest } = generate('default');
  const d = manifest.platformData.tangram;
  assert.equal(d.hardware.grid, { rows: 16, cols: 16 });
  assert.is(d.strategy.objective, 'energy');
  const placed = d.segments.flatMap((s) => s.layers.map((l) => l.layer));
  const computing = manifest.layers.filter((l) => l.kernel !== 'alias').map((l) => l.id);
  assert.equal(placed, computing);
  for (const s of d.segments) assert.ok(s.layers.reduce((n, l) => n + l.engines, 0) <= 256);
  // Per layer: its time and its energy split by component, the parts adding to the total.
  const all = d.segments.flatMap((s) => s.layers);
  for (const l of all) {
    assert.ok(l.cycles > 0);
    const { total, ...parts } = l.energyPJ;
    assert.ok(Math.abs(Object.values(parts).reduce((a, b) => a + b, 0) - total) <= total * 1e-5);
    assert.ok(parts.mac > 0);
  }
  // Layers whose maps stay on chip may touch no DRAM; the network's input and output do.
  assert.ok(all[0].energyPJ.dram > 0 && all[all.length - 1].energyPJ.dram > 0);
});

test('the generation is deterministic, the picture names the segments', () => {
  const a = generate('again-1');
  const b = generate('again-2');
  assert.equal(a.manifest.platformData, b.manifest.platformData);
  const picture = readFileSync(join(a.dir, 'dataflow.txt'), 'utf8');
  assert.match(picture, /^Tangram dataflow: 16x16 engines, \d+ segment\(s\)/);
  assert.is((picture.match(/^segment \d+:/gm) ?? []).length, a.manifest.platformData.tangram.segments.length);
});

test('a configuration file changes the grid and the buffer; objective and batch options', () => {
  const cfg = join(work, 'chip.json');
  writeFileSync(cfg, JSON.stringify({ grid: { rows: 4, cols: 2 }, bufferBytes: 65536 }));
  const { manifest, dir } = generate('config', { tangramConfig: cfg, dataflowObjective: 'time', dataflowBatch: '8' });
  const d = manifest.platformData.tangram;
  assert.equal(d.hardware.grid, { rows: 4, cols: 2 });
  assert.is(d.hardware.bufferBytes, 65536);
  assert.is(d.strategy.objective, 'time');
  assert.is(d.batch, 8);
  // The picture of a segment has 4 rows of 2 engines.
  const first = readFileSync(join(dir, 'dataflow.txt'), 'utf8').split('\n').slice(3, 7);
  for (const row of first) assert.match(row, /^ {2}[a-zA-Z#.]{2}$/);
  // A dataflow searched for a batch of 8 is not the firmware's (the model's own batch): its pipelined segments run
  // layer by layer, and firmware.json says so.
  const pipelined = d.segments.filter((s) => s.layers.length > 1);
  assert.ok(pipelined.length > 0);
  for (const s of pipelined) assert.match(s.firmware ?? '', /^layer by layer: the dataflow is searched for a batch of 8/);
});

test('bad configuration: one named error each', () => {
  const bad = (name: string, text: string): string => {
    const f = join(work, name);
    writeFileSync(f, text);
    return genError(() => compileModel({ model, platform: 'tangram', tangramConfig: f }));
  };
  assert.match(bad('typo.json', '{"grids": {}}'), /typo\.json: unknown key 'grids' in the Tangram configuration/);
  assert.match(bad('broken.json', '{'), /broken\.json: the Tangram configuration is not valid JSON/);
  assert.match(bad('zero.json', '{"grid": {"rows": 0, "cols": 4}}'), /grid\.rows must be a whole number in \[1, 64\]/);
  assert.match(bad('small.json', '{"bufferBytes": 10}'), /bufferBytes must be a whole number of bytes/);
  assert.match(bad('list.json', '[]'), /must be a JSON object/);
  assert.match(genError(() => compileModel({ model, platform: 'tangram', tangramConfig: join(work, 'missing.json') })), /missing\.json: cannot read the Tangram configuration file/);
  assert.match(genError(() => compileModel({ model, platform: 'tangram', dataflowObjective: 'speed' })), /--dataflow-objective takes time, energy, edp, not 'speed'/);
  assert.match(genError(() => compileModel({ model, platform: 'tangram', dataflowBatch: '0' })), /--dataflow-batch 0/);
  assert.match(genError(() => compileModel({ model, platform: 'generic', tangramConfig: 'x.json' })), /^--tangram-config applies to tangram, not to generic$/);
});

test('the CLI: a bad configuration is one line and exit 2', () => {
  const f = join(work, 'cli-bad.json');
  writeFileSync(f, '{"grid": 3}');
  const r = gen('firmware', '--platform', 'tangram', '--tangram-config', f, model, '-o', join(work, 'cli-out'));
  assert.is(r.code, 2);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /grid/);
});

test('engine programs beyond the firmware\'s budget are a named capacity error', () => {
  // Four parallel convolutions over a 32x32 grid: each program spreads over up to 1024 engines.
  const rng = new Rng(4);
  const b = new OnnxBuilder('wide').input('x', 'int8', [8, 64, 16, 16]);
  for (let i = 0; i < 4; i++) {
    b.initializer(`w${i}`, 'int8', [64, 64, 3, 3], randomValues(rng, 'int8', [64, 64, 3, 3], 3).data);
    b.node('Conv', ['x', `w${i}`], [`y${i}`], { pads: [1, 1, 1, 1], kernel_shape: [3, 3] }).output(`y${i}`, 'int32');
  }
  const w = writeCase(join(work, 'wide'), { builder: b, inputs: [randomValues(rng, 'int8', [8, 64, 16, 16], 3)] });
  const cfg = join(work, 'big.json');
  writeFileSync(cfg, JSON.stringify({ grid: { rows: 32, cols: 32 } }));
  const message = genError(() => generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'tangram', tangramConfig: cfg, out: join(work, 'wide-out') }));
  assert.match(message, /node 'Conv_\d': the engine programs take \d+ KiB, more than the firmware's 3072 KiB for them/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
