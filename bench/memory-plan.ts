/**
 * `npm run bench:plan`: schedule and memory-plan quality on Siracusa (issue 3). For every Models folder of
 * ../shared/deeploy-tests and Kernels/Integer/Attention, at L1 = 64000 and 262144 bytes, double buffering:
 * emulated cycles against the roofline lower bound (bench/roofline.ts says exactly what it counts), the share of
 * time the cores wait for the DMA, L1 and L2 peaks against their live-set lower bounds, and the generator's time
 * (whole, and the planning alone: tile search + L2 plan). One JSON line per measurement: {name, figure, unit,
 * reference}. Every run is checked bit for bit against outputs.npz first: a fast wrong schedule measures nothing.
 *
 * Then, with L2 smaller than the model, the same figures for the tensors staged through L2 from L3.
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

/**
 * L2 smaller than the model (L1 262144): the tensors L2 cannot hold live in L3 and are staged through L2 by copy
 * layers on the blocking HyperRAM DMA. EEGFormer is left out: its largest layer's own activations need most of its
 * L2 plan, so no smaller L2 leaves room to move anything.
 */
const L2_SMALL: Record<string, number> = {
  'Models/CNN_Linear1': 90000, 'Models/CNN_Linear2': 100000, 'Models/miniMobileNet': 6000, 'Models/miniMobileNetv2': 10000,
  'Kernels/Integer/Attention': 30000,
};

async function measureL3(folder: { name: string; dir: string; model: string }, l2: number): Promise<void> {
  const tag = `${folder.name.replace(/^(Models|Kernels\/Integer)\//, '')}.l2_${l2}`;
  const run = async (l2Bytes?: number) => {
    const out = join(work, `${tag.replace(/\W/g, '_')}_${l2Bytes ?? 'full'}`);
    const t0 = performance.now();
    const g = generateFirmware({ model: folder.model, platform: 'siracusa', out, l2: l2Bytes });
    const ms = performance.now() - t0;
    const inputs = arrays(join(folder.dir, 'inputs.npz')).slice(0, g.manifest.inputs.length);
    const r = await runFirmware(out, inputs);
    const cmp = compareOutputs(g.manifest.outputs, r.outputs, arrays(join(folder.dir, 'outputs.npz')));
    if (cmp.errors !== 0) throw new Error(`${tag}: ${cmp.errors} of ${cmp.total} outputs differ from outputs.npz`);
    return { g, r, ms };
  };
  const full = await run();
  const small = await run(l2);
  const far = small.g.manifest.memory.far!;
  const copies = small.r.profile.layers.filter((l) => l.kernel === 'l3copy');
  const copyCycles = copies.reduce((n, l) => n + l.cycles, 0);
  emit(`${tag}.cycles`, small.r.cycles, 'cycles', `emulated, bit-exact; all in L2 (${full.g.plan.used} bytes): ${full.r.cycles}; ` +
    `ratio ${(small.r.cycles / full.r.cycles).toFixed(3)}`);
  emit(`${tag}.l3_copy_share`, copyCycles / small.r.cycles, 'share',
    `${copies.length} copy layers moving ${far.used} bytes of ${far.tensors} tensors in L3: ${copyCycles} cycles`);
  emit(`${tag}.l2_peak`, small.g.plan.used, 'bytes', `budget ${l2}; lower bound ${small.g.plan.lowerBound}; L3 ${far.used} (lower bound ${far.lowerBound})`);
  emit(`${tag}.generate_ms`, small.ms, 'ms', `with the L3 rounds; all in L2: ${full.ms.toFixed(0)} ms`);
}

try {
  const folders = integerFolders().filter((f) => f.name.startsWith('Models/') || f.name === 'Kernels/Integer/Attention');
  for (const f of folders) for (const l1 of L1_SIZES) await measure(f, l1);
  for (const f of folders) if (L2_SMALL[f.name]) await measureL3(f, L2_SMALL[f.name]);
} finally {
  rmSync(work, { recursive: true, force: true });
}
