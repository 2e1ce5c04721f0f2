/**
 * `npm run bench:iss-vs-as`: the two cycle counts firmgen can give for one model, side by side, per layer.
 * - AS: what `gen run` prints today, the cycles the AssemblyScript firmware declares against the cost table
 *   (8 cluster cores on Siracusa, one core on generic);
 * - ISS: the cycles the emulator's RV32 cores (CV32E40P timing) measure on the rv32 ELF of the C a user flashes:
 *   on Siracusa the fabric controller and the 8 cluster cores as harts (event unit, cluster DMA, L1 banks), on
 *   generic one hart.
 * Per model: MACs, both totals, ISS cycles per MAC, and the ratio ISS / AS (how far the cost table is from the
 * measured C; 1.0 is agreement). A one-hart run (generic) is compared with AS x cores. Both runs are checked against the expected outputs before a figure counts.
 * One JSON line per layer and per model, then a table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { readNpz } from '../generator/onnx/npy.js';
import { compareOutputs } from '../runtime/node/compare.js';
import { runIss } from '../runtime/node/iss-run.js';
import { runFirmware } from '../runtime/node/run.js';
import { DEEPLOY } from '../test/helpers/deeploy.js';

const MODELS = ['CNN_Linear1', 'CNN_Linear2', 'miniMobileNet', 'miniMobileNetv2', 'EEGFormer'];
const CONFIGS: { platform: string; cores: number; opts: Record<string, unknown> }[] = [
  { platform: 'siracusa', cores: 8, opts: {} },
  { platform: 'generic', cores: 1, opts: {} },
];

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-iss-'));
const rows: string[][] = [];
for (const model of MODELS) {
  for (const c of CONFIGS) {
    const src = join(DEEPLOY, 'Models', model);
    const out = join(work, `${model}-${c.platform}`);
    generateFirmware({ model: join(src, 'network.onnx'), platform: c.platform, out, ...c.opts });
    const inputs = [...readNpz(join(src, 'inputs.npz')).values()];
    const expected = [...readNpz(join(src, 'outputs.npz')).values()];
    const as = await runFirmware(out, inputs);
    const iss = await runIss(out, inputs);
    for (const [what, o] of [['AS', as.outputs], ['ISS', iss.outputs]] as const) {
      const cmp = compareOutputs(as.outputNames, o, expected);
      if (cmp.errors > 0) throw new Error(`${model} ${c.platform} ${what}: ${cmp.errors} of ${cmp.total} outputs differ`);
    }
    const macs = as.profile.layers.reduce((n, l) => n + (l.macs ?? 0), 0);
    const asByLayer = new Map(as.layers.map((l) => [l.layer, l.cycles]));
    // Both runs use the platform's cores when the ISS runs the cluster; a one-hart ISS run does all the work alone.
    const scale = iss.harts > 1 ? 1 : c.cores;
    for (const l of iss.layers) {
      const asCycles = asByLayer.get(l.layer) ?? 0;
      console.log(JSON.stringify({ model, platform: c.platform, layer: l.layer, name: l.name, asCycles, issCycles: l.cycles,
        ratio: asCycles > 0 ? Number((l.cycles / (asCycles * scale)).toFixed(2)) : null }));
    }
    const ratio = iss.networkCycles / (as.cycles * scale);
    console.log(JSON.stringify({ model, platform: c.platform, macs, asCycles: as.cycles, cores: c.cores, harts: iss.harts, issCycles: iss.networkCycles,
      bankConflicts: iss.bankConflicts, stalls: iss.stalls,
      issCyclesPerMac: Number((iss.networkCycles / Math.max(1, macs)).toFixed(2)), ratio: Number(ratio.toFixed(2)) }));
    rows.push([model, c.platform, String(macs), String(as.cycles), String(iss.harts), String(iss.networkCycles),
      (iss.networkCycles / Math.max(1, macs)).toFixed(2), ratio.toFixed(2)]);
  }
}
rmSync(work, { recursive: true, force: true });
const head = ['model', 'platform', 'MACs', 'AS cycles', 'ISS harts', 'ISS cycles', 'ISS cyc/MAC', 'ISS/AS'];
const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
console.log([head, ...rows].map((r) => r.map((x, i) => (i < 2 ? x.padEnd(width[i]) : x.padStart(width[i]))).join('  ')).join('\n'));
