/**
 * `npm run bench:code-footprint`: how far the AS's per-layer cycles on Siracusa's cores would come with the code
 * footprint the ISS measures, to judge a footprint model before building one (docs/timing-journal.md "The code footprint").
 *
 * The AS charges a layer's cold code as CODE_BYTE x the bytes it estimates gcc makes of the layer's C (the C's bytes
 * x the code key's ratio, backend/c-image.ts) and the fit's LAYER, which the one-layer calibration runs make carry the
 * runtime's code cold as well. The ISS counts, per layer, the lines its cores brought from L2 (the layer's code and
 * the runtime's that was not cached yet) and the refills of their private 512-byte levels (a loop larger than one).
 * Per layer of the Models folders and the MLPerf-class CNNs: the AS's cycles, the same run with the CODE_* classes at
 * 0 (its charge for everything but code), the ISS's cycles, lines from L2 and refills; then how many layers lie within
 * 10 % today and with the measured footprint in place of the estimate: the AS's cycles without code, less LAYER,
 * plus CODE_BYTE x 16 a line from L2 (the table's own price of a compiled line) plus the private level's refill
 * (2 cycles, emulator/assembly/iss/icache.ts L0_REFILL) a refill, per core (the refills are the 8 cores' summed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { readNpz } from '../generator/onnx/npy.js';
import { platformByName } from '../generator/platforms/index.js';
import { COST_CLASSES } from '../generator/platforms/types.js';
import { runIss } from '../runtime/node/iss-run.js';
import { runFirmware } from '../runtime/node/run.js';
import { DEEPLOY } from '../test/helpers/deeploy.js';
import { WITHIN } from '../test/helpers/layer-ratios.js';
import { TINY_MODELS, writeTinyModel } from '../test/helpers/tiny-models.js';

const PLATFORM = 'siracusa';
const CORES = 8;
const LINE_BYTES = 16;
/** emulator/assembly/iss/icache.ts L0_REFILL: a private-level miss served by the shared level. */
const REFILL_CYCLES = 2;
const costs = platformByName(PLATFORM).costs;
const table = COST_CLASSES.map((c) => costs[c]);
const noCode = COST_CLASSES.map((c) => (c.startsWith('CODE_') ? 0 : costs[c]));

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-footprint-'));
const models = [
  ...['CNN_Linear1', 'CNN_Linear2', 'miniMobileNet', 'miniMobileNetv2', 'EEGFormer'].map((m) => ({ model: m, src: join(DEEPLOY, 'Models', m) })),
  ...Object.keys(TINY_MODELS).map((m) => ({ model: `MLPerf/${m}`, src: dirname(writeTinyModel(m, join(work, 'mlperf'))) })),
];
const inside = (r: number): boolean => r >= 1 / WITHIN && r <= WITHIN;
let n = 0;
let now = 0;
let measured = 0;
for (const { model, src } of models) {
  const out = join(work, model.replace('/', '-'));
  const { manifest } = generateFirmware({ model: join(src, 'network.onnx'), platform: PLATFORM, out });
  const inputs = [...readNpz(join(src, 'inputs.npz')).values()];
  const as = await runFirmware(out, inputs, { costs: table });
  const rest = await runFirmware(out, inputs, { costs: noCode });
  const iss = await runIss(out, inputs);
  for (const l of iss.layers) {
    const a = as.layers.find((x) => x.layer === l.layer)?.cycles ?? 0;
    const r = rest.layers.find((x) => x.layer === l.layer)?.cycles ?? 0;
    const [refills, cold] = l.icacheMisses ?? [0, 0];
    const withFootprint = r - costs.LAYER + costs.CODE_BYTE * LINE_BYTES * cold + REFILL_CYCLES * refills / CORES;
    n++;
    if (a > 0 && inside(l.cycles / a)) now++;
    if (withFootprint > 0 && inside(l.cycles / withFootprint)) measured++;
    const code = manifest.layers.find((x) => x.id === l.layer)?.code;
    console.log(JSON.stringify({ model, layer: l.layer, name: l.name, asCycles: a, asWithoutCode: r, issCycles: l.cycles,
      linesFromL2: cold, refills, estimatedLines: code ? Math.round(code.bytes / LINE_BYTES) : null,
      ratio: a > 0 ? Number((l.cycles / a).toFixed(2)) : null, ratioWithFootprint: Number((l.cycles / withFootprint).toFixed(2)) }));
  }
}
rmSync(work, { recursive: true, force: true });
console.log(`${PLATFORM}: ${now} of ${n} layers within 1/${WITHIN} .. ${WITHIN} today; ${measured} of ${n} with the ISS's code footprint`);
