/**
 * `npm run bench:bss2`: BrainScaleS-2's analog layers on the emulated chip (docs/brainscales2.md "Timing"), each run
 * checked bit for bit against the reference of the analog model. Per analog layer: its cycles, the arrays' MAC/s
 * over the layer, the rate the analog runs alone would allow and the rate the host-FPGA link alone would allow (the
 * link-limited rate: MACs over the link's share of the time); per model, where the time went. One JSON line each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { referenceGraph } from '../generator/platforms/brainscales2/platform.js';
import { runReference } from '../generator/reference/interpreter.js';
import { runFirmware } from '../runtime/node/run.js';
import { bss2ConvNet, bss2Mlp, type Bss2Mlp } from '../test/helpers/bss2-model.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-bss2-'));
const HZ = 250e6;

function emit(name: string, figure: number, unit: string, reference: string): void {
  console.log(JSON.stringify({ name, figure: Number.isInteger(figure) ? figure : Number(figure.toPrecision(4)), unit, reference }));
}

async function bench(name: string, m: Bss2Mlp, dir: string): Promise<void> {
  const out = join(dir, 'out');
  const c = generateFirmware({ model: m.model, platform: 'brainscales2', out, noiseStd: 0 });
  const ref = runReference(referenceGraph(c.platform, c.graph), m.inputs);
  const r = await runFirmware(out, m.inputs);
  const same = c.graph.outputs.every((o, i) => JSON.stringify(Array.from(ref.get(o)!.data)) === JSON.stringify(Array.from(r.outputs[i].data)));
  if (!same) throw new Error(`${name}: the emulated outputs differ from the reference`);
  let digital = 0;
  for (const l of r.profile.layers) {
    if (l.kernel !== 'bss2-matmul') {
      digital += l.cycles;
      continue;
    }
    const a = l.analog;
    const what = `${name} ${l.name}`;
    emit(`${what}: cycles`, l.cycles, 'cycles', `${a.runs} runs, ${a.writes} block writes; 250 MHz`);
    emit(`${what}: MAC/s`, (a.macs * HZ) / l.cycles, 'MAC/s', 'analog MACs / layer time');
    emit(`${what}: analog-limited MAC/s`, (a.macs * HZ) / a.cycles, 'MAC/s', 'MACs / time of the analog runs alone');
    emit(`${what}: link-limited MAC/s`, (a.macs * HZ) / a.linkCycles, 'MAC/s', `MACs / time of the link transfers alone (${a.linkBytes} bytes, Gigabit Ethernet)`);
  }
  const t = r.profile.total;
  emit(`${name}: total`, t.cycles, 'cycles', `analog runs ${t.analog.cycles}, link ${t.analog.linkCycles}, digital layers ${digital}`);
  emit(`${name}: link share`, (100 * t.analog.linkCycles) / t.cycles, '%', 'link transfer cycles / total');
}

try {
  await bench('mlp 784-256-10 x 1', bss2Mlp(join(work, 'a'), [784, 256, 10], 1, 1), join(work, 'a'));
  await bench('mlp 784-256-10 x 32', bss2Mlp(join(work, 'b'), [784, 256, 10], 32, 1), join(work, 'b'));
  await bench('mlp 300-600-10 x 8 (larger than the chip)', bss2Mlp(join(work, 'c'), [300, 600, 10], 8, 2), join(work, 'c'));
  await bench('har conv1d net', bss2ConvNet(join(work, 'd'), 21), join(work, 'd'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
