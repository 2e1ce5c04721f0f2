import type { Command } from 'commander';
import { generateFirmware } from '../pipeline.js';
import { PLATFORMS } from '../platforms/index.js';
import { spinner } from './progress.js';

export function firmwareCommand(program: Command): void {
  program
    .command('firmware')
    .description('generate firmware for a platform: out/c (C for the board + host build), out/as (AssemblyScript for the emulator), firmware.json, memory images')
    .argument('<model>', 'quantized ONNX model (integer dialect or standard QDQ)')
    .requiredOption('-p, --platform <name>', `target platform: ${Object.keys(PLATFORMS).join(', ')}`)
    .option('-o, --out <dir>', 'output directory (replaced atomically)', 'out')
    .option('--inputs <npz>', 'sample inputs whose value ranges set the input types (default: inputs.npz beside the model)')
    .addHelpText('after', '\nExample:\n  gen firmware --platform siracusa model.onnx -o out/')
    .action((model: string, o: { platform: string; out: string; inputs?: string }) => {
      const t0 = performance.now();
      const progress = spinner();
      let r;
      try {
        r = generateFirmware({ model, platform: o.platform, out: o.out, sampleInputs: o.inputs, onStage: progress.stage });
      } finally {
        progress.done();
      }
      const kernels = r.layers.filter((l) => l.kernel !== 'alias').length;
      for (const n of r.notes) console.log(`note: ${n}`);
      console.log(
        `${r.platform.name}: ${r.graph.nodes.length} nodes -> ${kernels} kernels; ${r.plan.region} ${r.plan.used} bytes ` +
          `(lower bound ${r.plan.lowerBound}, available ${r.plan.arenaSize}); ${(performance.now() - t0).toFixed(0)} ms -> ${o.out}`,
      );
    });
}
