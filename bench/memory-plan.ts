/**
 * `npm run bench:plan`: schedule and memory-plan quality on Siracusa (issue 3). For every Models folder of
 * ../shared/deeploy-tests and Kernels/Integer/Attention, at L1 = 64000 and 262144 bytes, double buffering:
 * emulated cycles against the roofline lower bound (bench/roofline.ts says exactly what it counts), the share of
 * time the cores wait for the DMA, L1 and L2 peaks against their live-set lower bounds, and the generator's time
 * (whole, and the planning alone: tile search + L2 plan). One JSON line per measurement: {name, figure, unit,
 * reference}. Every run is checked bit for bit against outputs.npz first: a fast wrong schedule measures nothing.
 *
 * Options: --layers also prints, per tiled layer, the tiler's estimate against the emulated cycles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { compareOutputs } from '../runtime/node/compare.js';
import { runFirmware } from '../runtime/node/run.js';
import { arrays, integerFolders } from '../test/helpers/deeploy.js';
import { bounds, estimates, waits } from './roofline.js';

const L1_SIZES = [64000, 262144];
const perLayer = process.argv.includes('--layers');
const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-plan-'));

function emit(name: string, figure: number, unit: string, reference: string): void {
  // Counts (cycles, bytes) exactly: a rounded peak could read as below its bound.
  console.log(JSON.stringify({ name, figure: Number.isInteger(figure) ? figure : Number(figure.toPrecision(4)), unit, reference }));
}

async function measure(folder: { name: string; dir: string; model: string }, l1: number): Promise<void> {
  const tag = `${folder.name.replace(/^(Models|Kernels\/Integer)\//, '')}.l1_${l1}`;
  const out = join(work, `${tag.replace(/\W/g, '_')}`);
  const t0 = performance.now();
  const g = generateFirmware({ model: folder.model, platform: 'siracusa', out, l1, buffering: 'double' });
  const genMs = performance.now() - t0;
  const m = g.manifest;
  const inputs = arrays(join(folder.dir, 'inputs.npz')).slice(0, m.inputs.length);
  const r = await runFirmware(out, inputs);
  const cmp = compareOutputs(m.outputs, r.outputs, arrays(join(folder.dir, 'outputs.npz')));
  if (cmp.errors !== 0) throw new Error(`${tag}: ${cmp.errors} of ${cmp.total} outputs differ from outputs.npz`);

  const b = bounds(g, m);
  emit(`${tag}.cycles`, r.cycles, 'cycles', `emulated, ${cmp.total} outputs bit-exact; roofline ${Math.round(b.roofline)}`);
  emit(`${tag}.roofline`, b.roofline, 'cycles',
    `max(compute ${Math.round(b.compute)}, DMA ${Math.round(b.dma)} = max(in ${Math.round(b.dmaIn)}, out ${Math.round(b.dmaOut)})); ` +
    `layer by layer ${Math.round(b.layerBound)}`);
  emit(`${tag}.cycles_vs_roofline`, r.cycles / b.roofline, 'ratio', `1 = at the roofline; vs the layer-by-layer bound ${(r.cycles / b.layerBound).toFixed(3)}`);

  const w = waits(m, r);
  emit(`${tag}.dma_wait_share`, w.dmaPhase / r.cycles, 'share',
    `DMA phases of the tiled layers' loops (cores idle while core 0 waits): ${w.dmaPhase} of ${r.cycles} cycles, ` +
    `${w.registerCycles} of them core 0's DMA register writes; cores idle for any reason ${(100 * w.idleShare).toFixed(1)} %`);

  const t = m.tiling!;
  // The L1 live set of a layer is all its slots (they live for the whole layer); layers never overlap in time.
  const l1Bound = Math.max(0, ...m.layers.map((l) => (l.tiling?.operands ?? []).reduce((n, o) => n + o.bytes * o.offsets.length, 0)));
  const l1Peak = Math.max(0, ...m.layers.flatMap((l) => (l.tiling?.operands ?? []).flatMap((o) => o.offsets.map((x) => x + o.bytes))));
  emit(`${tag}.l1_peak`, l1Peak, 'bytes', `largest live set ${l1Bound} (budget ${t.l1Budget}); ratio ${(l1Peak / Math.max(1, l1Bound)).toFixed(3)}`);
  const a = m.memory.activations;
  emit(`${tag}.l2_peak`, m.memory.used, 'bytes',
    `lower bound ${m.memory.lowerBound} (constants ${m.memory.constants} + largest live set ${a.lowerBound}); ` +
    `ratio ${(m.memory.used / m.memory.lowerBound).toFixed(3)}; greedy ${a.greedy}, final ${a.final}, solver ${a.solver.status}`);
  emit(`${tag}.generate_ms`, genMs, 'ms', 'load to written directory (tile search, L2 plan, emit, pictures)');
  emit(`${tag}.plan_ms`, g.tiling!.ms + g.plan.ms, 'ms', `tile search ${g.tiling!.ms.toFixed(0)} ms + L2 plan ${g.plan.ms.toFixed(0)} ms`);

  const est = estimates(m, r);
  const worst = est.reduce((w0, e) => (Math.abs(Math.log(e.emulated / e.estimate)) > Math.abs(Math.log(w0.emulated / w0.estimate)) ? e : w0), est[0]);
  if (worst) {
    emit(`${tag}.worst_estimate`, worst.emulated / worst.estimate, 'ratio',
      `emulated / estimated cycles of the tiled layer furthest off: ${worst.id} ${worst.op} (${worst.emulated} vs ${worst.estimate})`);
  }
  if (perLayer) for (const e of est) emit(`${tag}.layer_${e.id}_${e.op}.emulated_vs_estimate`, e.emulated / e.estimate, 'ratio', `${e.emulated} vs ${e.estimate}`);
}

try {
  const folders = integerFolders().filter((f) => f.name.startsWith('Models/') || f.name === 'Kernels/Integer/Attention');
  for (const f of folders) for (const l1 of L1_SIZES) await measure(f, l1);
} finally {
  rmSync(work, { recursive: true, force: true });
}
