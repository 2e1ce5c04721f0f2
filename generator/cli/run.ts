import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { EXIT_MISMATCH, GenError } from '../errors.js';
import type { NDArray } from '../ir/ndarray.js';
import { encodeNpz, readNpz } from '../onnx/npy.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runQemu } from '../../runtime/node/qemu.js';
import { buildProfile } from '../../runtime/node/profile.js';
import { formatProfile } from '../../runtime/node/profile-table.js';
import { formatS2Table, s2Table } from '../../runtime/node/spinnaker2-times.js';
import { buildTrace } from '../../runtime/node/trace.js';
import { reportHtml } from '../../runtime/node/report/html.js';
import { spinner } from './progress.js';
import { join } from 'node:path';

interface RunFlags {
  inputs: string;
  expect?: string;
  outputs?: string;
  on: 'emulator' | 'host' | 'qemu';
  trace?: string;
  report?: string;
}

/** The first arrays of an .npz that match the graph inputs, in order (extra arrays are ignored, as in the peer's files). */
function inputArrays(path: string, count: number): NDArray[] {
  const arrays = [...readNpz(path).values()];
  if (arrays.length < count) throw new GenError('input', `holds ${arrays.length} arrays, the model has ${count} inputs`, { file: path });
  return arrays.slice(0, count);
}

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('run generated firmware: in the emulator (cycles, per-layer profile), as host-built C or as a bare-metal rv32 ELF under qemu; compare with expected outputs')
    .argument('<dir>', 'output directory of `gen firmware`')
    .requiredOption('-i, --inputs <npz>', 'input arrays (.npz), in graph-input order')
    .option('-e, --expect <npz>', 'expected outputs (.npz): prints "Errors: X out of Y", exit 1 if any differs')
    .option('--outputs <npz>', 'write the outputs to this .npz')
    .option('--trace <json>', 'write a Chrome/Perfetto trace (open in ui.perfetto.dev): one track per core, layers and kernels as slices')
    .option('--report <html>', 'write a self-contained HTML page: per-layer table, timeline, memory plan')
    .option('--on <where>', 'emulator (AssemblyScript firmware in the chip emulator), host (the C built with the host compiler) or qemu (the C built for bare-metal rv32, run by qemu-system-riscv32)', 'emulator')
    .addHelpText('after', '\nExamples:\n  gen run out/ --inputs inputs.npz --expect outputs.npz\n  gen run out/ --inputs inputs.npz --trace trace.json --report report.html')
    .action(async (dir: string, o: RunFlags) => {
      const manifest = readManifest(dir);
      const inputs = inputArrays(o.inputs, manifest.inputs.length);
      let outputs: NDArray[];
      if (o.on !== 'emulator' && (o.trace || o.report)) {
        throw new GenError('input', `${o.trace ? '--trace' : '--report'} needs --on emulator (the C builds have no cycles)`);
      }
      if (o.on === 'host') {
        outputs = runHostC(dir, inputs);
      } else if (o.on === 'qemu') {
        outputs = runQemu(dir, inputs).outputs;
      } else if (o.on === 'emulator') {
        const progress = spinner();
        let r;
        try {
          r = await runFirmware(dir, inputs, { onStage: progress.stage });
        } finally {
          progress.done();
        }
        outputs = r.outputs;
        const profile = buildProfile(manifest, r);
        // The profile lands beside the firmware it measures; `Cycles:` stays the line scripts grep for.
        writeFileSync(join(dir, 'profile.json'), `${JSON.stringify(profile, null, 2)}\n`);
        console.log(formatProfile(profile));
        if (r.spinnaker2) {
          const table = s2Table(r.spinnaker2);
          writeFileSync(join(dir, 'spinnaker2-times.json'), `${JSON.stringify({ stamps: r.spinnaker2, table }, null, 2)}\n`);
          console.log(`\n${formatS2Table(table, `SpiNNaker2 run of ${manifest.model ?? 'the model'}`)}`);
        }
        const trace = buildTrace(manifest, r);
        if (o.trace) writeFileSync(o.trace, JSON.stringify(trace));
        if (o.report) writeFileSync(o.report, reportHtml(manifest, profile, trace));
        console.log(`Cycles: ${r.cycles}`);
      } else {
        throw new GenError('input', `--on ${o.on}: expected emulator, host or qemu`);
      }
      if (o.outputs) writeFileSync(o.outputs, encodeNpz(new Map(manifest.outputs.map((n, i) => [`output_${i}`, outputs[i]]))));
      if (o.expect) {
        const expected = [...readNpz(o.expect).values()];
        const c = compareOutputs(manifest.outputs, outputs, expected);
        for (const d of c.details) console.log(`  ${d}`);
        console.log(`Errors: ${c.errors} out of ${c.total}`);
        if (c.errors > 0) process.exitCode = EXIT_MISMATCH;
      }
    });
}
