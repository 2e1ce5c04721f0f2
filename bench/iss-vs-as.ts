/**
 * `npm run bench:iss-vs-as`: the two cycle counts firmgen can give for one model, side by side, per layer.
 * - AS: what `gen run` prints today, the cycles the AssemblyScript firmware declares against the cost table
 *   (8 cluster cores on Siracusa, one core on generic; `siracusa+npu`: Siracusa with `--engines cluster+npu`, the
 *   N-EUREKA jobs timed by the same engine model on both sides, their driving by the table and by the ISS);
 * - ISS: the cycles the emulator's RV32 cores (CV32E40P timing) measure on the rv32 ELF of the C a user flashes:
 *   on Siracusa the fabric controller and the 8 cluster cores as harts (event unit, cluster DMA, L1 banks), on
 *   generic one hart.
 * Per model: MACs, both totals, ISS cycles per MAC, and the ratio ISS / AS (how far the cost table is from the
 * measured C; 1.0 is agreement). A one-hart run (generic) is compared with AS x cores. Both runs are checked against the expected outputs before a figure counts.
 * The Models folders of the test vectors and the MLPerf-Tiny-class models firmgen builds itself (test/helpers/
 * tiny-models.ts: quantized by firmgen, sample inputs; there both runs must give the same bytes), and the small
 * language model's prompt pass (examples/tiny-llama: prompt.onnx quantized by firmgen on its calibration windows, run
 * on the held-out prompt of reference.json) and one of its decoder steps (step.onnx, context 256, at position 128 over
 * seeded caches: test/helpers/tiny-llama-prompt.ts quantizedStep); `--no-llm` leaves both out, `--config NAME` runs one
 * configuration. One JSON line per layer (with its instruction-cache misses on a cluster: the cores' private levels
 * summed, lines from L2) and per model, then a
 * table, and per platform how many layers lie within 10 % (the issue's bound), the Models and MLPerf-class CNNs and
 * the decoder apart.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { encodeNpz, readNpz } from '../generator/onnx/npy.js';
import { compareOutputs } from '../runtime/node/compare.js';
import { runIss } from '../runtime/node/iss-run.js';
import { runFirmware } from '../runtime/node/run.js';
import { DEEPLOY } from '../test/helpers/deeploy.js';
import { layerRatios, WITHIN } from '../test/helpers/layer-ratios.js';
import { quantizedPromptPass, quantizedStep } from '../test/helpers/tiny-llama-prompt.js';
import { TINY_MODELS, writeTinyModel } from '../test/helpers/tiny-models.js';

const FOLDERS = ['CNN_Linear1', 'CNN_Linear2', 'miniMobileNet', 'miniMobileNetv2', 'EEGFormer'];
const TINY = process.argv.includes('--no-mlperf') ? [] : Object.keys(TINY_MODELS);
const ALL_CONFIGS: { name: string; platform: string; cores: number; opts: Record<string, unknown> }[] = [
  { name: 'siracusa', platform: 'siracusa', cores: 8, opts: {} },
  { name: 'generic', platform: 'generic', cores: 1, opts: {} },
  // The NPU where it can run (convs and GEMMs; the layout transposes around them on the cores).
  { name: 'siracusa+npu', platform: 'siracusa', cores: 8, opts: { engines: 'cluster+npu' } },
];
// `--config NAME` (repeatable) runs only those configurations.
const picked = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--config' ? [a] : []));
const CONFIGS = picked.length > 0 ? ALL_CONFIGS.filter((c) => picked.includes(c.name)) : ALL_CONFIGS;
if (CONFIGS.length < picked.length) throw new Error(`--config: one of ${picked.join(', ')} is not ${ALL_CONFIGS.map((c) => c.name).join(', ')}`);

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-iss-'));

/** The tiny-llama's prompt pass as a model folder: quantized by firmgen, the held-out prompt as its input. */
function promptPass(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const { inputs } = quantizedPromptPass(dir);
  writeFileSync(join(dir, 'inputs.npz'), encodeNpz(new Map([['input_ids', inputs[0]]])));
  return dir;
}

/** One decoder step at `position` as a model folder: step.onnx quantized by firmgen, caches filled up to it. */
function stepPass(dir: string, position: number): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'inputs.npz'), encodeNpz(quantizedStep(dir, position).inputs));
  return dir;
}

const models = [
  ...FOLDERS.map((m) => ({ model: m, src: join(DEEPLOY, 'Models', m), group: '' })),
  ...TINY.map((m) => ({ model: `MLPerf/${m}`, src: dirname(writeTinyModel(m, join(work, 'mlperf'))), group: '' })),
  ...(process.argv.includes('--no-llm') ? [] : [
    { model: 'LLM/tiny-llama-prompt', src: promptPass(join(work, 'llm')), group: ' (decoder)' },
    { model: 'LLM/tiny-llama-step@128', src: stepPass(join(work, 'llm-step'), 128), group: ' (decoder step)' },
  ]),
];
const rows: string[][] = [];
const within = new Map<string, { n: number; in: number; built: number }>();
for (const { model, src, group: tally } of models) {
  for (const c of CONFIGS) {
    const out = join(work, `${model.replace('/', '-')}-${c.name}`);
    generateFirmware({ model: join(src, 'network.onnx'), platform: c.platform, out, ...c.opts });
    const inputs = [...readNpz(join(src, 'inputs.npz')).values()];
    // The AS as `gen run` prices it (the cold code at the generator's estimate of its compiled size), and with the
    // code as built (the ISS builds the C; RunOptions.builtCode: its layer functions' sizes, as the cost fit prices it).
    const as = await runFirmware(out, inputs);
    const iss = await runIss(out, inputs);
    const built = await runFirmware(out, inputs, { builtCode: true });
    if (existsSync(join(src, 'outputs.npz'))) {
      const expected = [...readNpz(join(src, 'outputs.npz')).values()];
      for (const [what, o] of [['AS', as.outputs], ['ISS', iss.outputs]] as const) {
        const cmp = compareOutputs(as.outputNames, o, expected);
        if (cmp.errors > 0) throw new Error(`${model} ${c.name} ${what}: ${cmp.errors} of ${cmp.total} outputs differ`);
      }
    } else if (compareOutputs(as.outputNames, iss.outputs, as.outputs).errors > 0) {
      throw new Error(`${model} ${c.name}: the ISS outputs differ from the AS firmware's`);
    }
    const macs = as.profile.layers.reduce((n, l) => n + (l.macs ?? 0), 0);
    // Both runs use the platform's cores when the ISS runs the cluster; a one-hart ISS run does all the work alone.
    const scale = iss.harts > 1 ? 1 : c.cores;
    const group = `${c.name}${tally}`;
    const w = within.get(group) ?? { n: 0, in: 0, built: 0 };
    within.set(group, w);
    const per = layerRatios(as.layers, iss.layers, scale);
    w.n += per.layers.length;
    w.in += per.within;
    w.built += layerRatios(built.layers, iss.layers, scale).within;
    const builtOf = new Map(built.layers.map((l) => [l.layer, l.cycles]));
    const icache = new Map(iss.layers.map((l) => [l.layer, l.icacheMisses]));
    for (const l of per.layers) {
      console.log(JSON.stringify({ model, platform: c.name, layer: l.layer, name: l.name, asCycles: l.asCycles, asBuiltCodeCycles: builtOf.get(l.layer), issCycles: l.issCycles,
        ratio: l.asCycles > 0 ? Number(l.ratio.toFixed(2)) : null, icacheMisses: icache.get(l.layer) }));
    }
    const ratio = iss.networkCycles / (as.cycles * scale);
    console.log(JSON.stringify({ model, platform: c.name, macs, asCycles: as.cycles, cores: c.cores, harts: iss.harts, issCycles: iss.networkCycles,
      bankConflicts: iss.bankConflicts, stalls: iss.stalls,
      issCyclesPerMac: Number((iss.networkCycles / Math.max(1, macs)).toFixed(2)), ratio: Number(ratio.toFixed(2)) }));
    rows.push([model, c.name, String(macs), String(as.cycles), String(iss.harts), String(iss.networkCycles),
      (iss.networkCycles / Math.max(1, macs)).toFixed(2), ratio.toFixed(2)]);
  }
}
rmSync(work, { recursive: true, force: true });
const head = ['model', 'platform', 'MACs', 'AS cycles', 'ISS harts', 'ISS cycles', 'ISS cyc/MAC', 'ISS/AS'];
const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
console.log([head, ...rows].map((r) => r.map((x, i) => (i < 2 ? x.padEnd(width[i]) : x.padStart(width[i]))).join('  ')).join('\n'));
for (const [platform, w] of within) {
  console.log(`${platform}: ${w.in} of ${w.n} layers with ISS/AS within 1/${WITHIN} .. ${WITHIN} (${w.built} with the code priced as built)`);
}
