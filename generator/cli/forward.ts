import { writeFileSync } from 'node:fs';
import type { Command } from './commander.js';
import { GenError } from '../errors.js';
import type { NDArray } from '../ir/ndarray.js';
import { readNpz, encodeNpz } from '../onnx/npy.js';
import { loadOnnxFile } from '../onnx/load.js';
import { configurePlatform } from '../platforms/options.js';
import { CATALOG, describePlatform } from '../platforms/catalog.js';
import { addPlatformOptions, platformValues } from './platform-options.js';

interface ForwardFlags {
  platform: string;
  inputs: string;
  out: string;
  layers?: boolean;
  [platformOption: string]: unknown;
}

/**
 * `gen forward`: the values a chip with layers of its own gives for a batch of samples (Platform.forward), for
 * scripts such as emulator-in-the-loop training: .npz in (per graph input, samples along axis 0), .npz out (per graph
 * output, likewise). What the generated firmware gives for each sample (docs/brainscales2.md "A batch forward pass").
 */
export function forwardCommand(program: Command): void {
  const takers = CATALOG.filter((p) => p.forward).map((p) => p.name);
  const c = program
    .command('forward')
    .description(`a batch through the chip's own model, for scripts: the outputs the firmware would give for each sample (${takers.join(', ')})`)
    .argument('<model>', 'integer ONNX model')
    .requiredOption('-p, --platform <name>', `platform with a forward pass of its own: ${takers.join(', ')}`)
    .requiredOption('--inputs <npz>', 'one array per graph input, the samples along the first axis')
    .requiredOption('-o, --out <npz>', 'the outputs: one array per graph output, the samples along the first axis')
    .option('--layers', 'also each layer of the chip\'s own: its inputs, raw outputs and outputs (brainscales2: analog<i>_input, analog<i>_analog, analog<i>_output)');
  addPlatformOptions(c).action(async (model: string, o: ForwardFlags) => {
    const described = describePlatform(o.platform);
    if (!described.forward) throw new GenError('input', `${described.name} has no forward pass of its own (gen forward takes ${takers.join(', ')}); gen run runs its firmware`);
    const given = platformValues(o);
    // the options are checked as `gen firmware` checks them (one line for a bad value or another platform's flag)
    const platform = await described.load();
    configurePlatform(platform, given, { untiled: false }, CATALOG);
    if (!platform.forward) throw new GenError('internal', `${platform.name}: its description says it has a forward pass, the platform has none`);
    const batches = [...readNpz(o.inputs).values()];
    const t0 = performance.now();
    const r = await platform.forward(model, batches, given, o.layers === true);
    const names = loadOnnxFile(model).outputs;
    writeFileSync(o.out, encodeNpz(new Map([...r.outputs.map((a, i): [string, NDArray] => [names[i] ?? `output_${i}`, a]), ...r.layers])));
    console.log(`${platform.name}: ${batches[0]?.shape[0] ?? 0} samples in ${(performance.now() - t0).toFixed(0)} ms -> ${o.out}`);
  });
}
