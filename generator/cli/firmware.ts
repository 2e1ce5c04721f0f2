import { InvalidArgumentError, type Command } from './commander.js';
import { copyFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SIDECAR_IN_FIRMWARE, sidecarPath } from '../quantize/sidecar-path.js';
import { printable } from '../errors.js';
import { checkOutputFolder } from '../backend/output-folder.js';
import { safeFileName } from '../backend/sanitize.js';
import type { MemoryPlan } from '../midend/plan.js';
import { generateFor } from '../compile.js';
import { CATALOG, loadPlatform } from '../platforms/catalog.js';
import { addPlatformOptions, platformValues } from './platform-options.js';
import { spinner } from './progress.js';
import { addQuantizeOptions, type QuantizeFlags } from './quantize-options.js';

interface FirmwareFlags {
  platform: string;
  out?: string;
  inputs?: string;
  l1?: number;
  l2?: number;
  l3?: number;
  singleBuffer?: boolean;
  doubleBuffer?: boolean;
  untiled?: boolean;
  sampling?: boolean;
  /** The platforms' own options (text, parsed by the platform), by their keys. */
  [platformOption: string]: unknown;
}

/** out/<model file stem>-<platform>, so that generating another model never replaces an earlier output. */
export function defaultOutFolder(model: string, platform: string): string {
  const stem = basename(model).replace(/\.onnx$/i, '');
  return join('out', `${safeFileName(stem)}-${safeFileName(platform)}`);
}

/** "64000", "64k", "64KiB", "2MiB": a byte count, or a clear error. */
export function parseBytes(text: string): number {
  const m = /^(\d+)\s*(k|kib|m|mib)?$/i.exec(text.trim());
  if (!m) throw new InvalidArgumentError(`'${text}' is not a byte count (e.g. 64000, 64k, 2MiB)`);
  const unit = (m[2] ?? '').toLowerCase();
  return Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
}

/** The home plan against its lower bound, and how the activations were placed (greedy, other placements, maybe HiGHS). */
export function planLine(p: MemoryPlan): string {
  const a = p.activations;
  const gap = p.used - p.lowerBound;
  const pct = p.lowerBound > 0 ? ` = ${((100 * gap) / p.lowerBound).toFixed(1)}%` : '';
  const solver = a.solver.status === 'not-needed' ? 'solver not needed' : `solver ${a.solver.status} in ${a.solver.ms} ms`;
  const placed = a.placement ? `placement '${a.placement.rule}' ${a.placement.peak}, ` : '';
  return `${p.region} ${p.used} bytes (lower bound ${p.lowerBound}, +${gap}${pct}; activations greedy ${a.greedy}, ${placed}` +
    `final ${a.final}, ${solver}; available ${p.arenaSize})${p.far ? `; ${farLine(p.far)}` : ''}`;
}

function farLine(f: NonNullable<MemoryPlan['far']>): string {
  return `${f.region} ${f.used} bytes for ${f.tensors} tensor(s) (lower bound ${f.lowerBound}; available ${f.size})`;
}

export function firmwareCommand(program: Command): void {
  const c = program
    .command('firmware')
    .description('generate firmware for a platform: out/c (C for the board + host build), out/as (AssemblyScript for the emulator), firmware.json, memory images')
    .argument('<model>', 'quantized ONNX model (integer dialect, or standard QDQ / QOperator: docs/quantized-onnx.md)')
    .requiredOption('-p, --platform <name>', `target platform: ${CATALOG.map((p) => p.name).join(', ')}`)
    .option('-o, --out <dir>', 'output folder: new, empty, or an earlier firmgen output, replaced atomically (default: out/<model>-<platform>)')
    .option('--inputs <npz>', 'sample inputs whose value ranges set the input types (default: inputs.npz beside the model)')
    .option('--l1 <bytes>', 'bytes of the tile memory (L1) for tile buffers, on platforms that tile (default: what the board SDK leaves; suffix k or KiB allowed)', parseBytes)
    .option('--l2 <bytes>', 'bytes of the home memory for whole tensors and constants (default: the platform\'s arena)', parseBytes)
    .option('--l3 <bytes>', 'on platforms with a far memory (L3): bytes for the tensors the home memory cannot hold, staged through it (default: all of it; 0: none)', parseBytes)
    .option('--single-buffer', 'wait for every DMA transfer before computing (default: double buffering)')
    .option('--double-buffer', 'prefetch tile i+1 and write back tile i-1 while tile i computes (the default)')
    .option('--untiled', 'no tiles and no DMA: kernels work on the home memory directly (for comparison)')
    .option('--sampling', 'decoder step graphs: the generation loop can sample with a temperature on the cores (gen run --temperature --seed); default: argmax only');
  // Each platform's own options, from its declaration (generator/platforms/options.ts): one flag, the platforms that take it.
  addPlatformOptions(c);
  addQuantizeOptions(c, false)
    .addHelpText('after', '\nExamples:\n  gen firmware --platform siracusa model.onnx -o out/\n  gen firmware --platform siracusa float.onnx --calibration calibration.npz -o out/')
    .action(async (given: string, o: Partial<QuantizeFlags> & FirmwareFlags) => {
      o.out ??= defaultOutFolder(given, o.platform);
      // Refused before any work (and checked again at the swap): never a folder holding a user's files.
      checkOutputFolder(o.out, { model: given });
      // A float model with --calibration is quantized first (gen quantize); its integer model lands in out/.
      const quantized = o.calibration ? (await import('./quantize.js')).quantizeForFirmware(given, o as QuantizeFlags, o.out) : undefined;
      const model = quantized?.model ?? given;
      const t0 = performance.now();
      const progress = spinner();
      let r;
      try {
        const { platform, inputs, l1, l2, l3, untiled, singleBuffer, out, sampling, ...rest } = o;
        // Only this platform's modules are loaded (platforms/catalog.ts).
        r = generateFor(await loadPlatform(platform), {
          ...platformValues(rest), model, modelLabel: quantized?.label, calibrationSamples: quantized?.samples, platform, out: out!, sampleInputs: inputs, onStage: progress.stage,
          l1, l2, l3, buffering: singleBuffer ? 'single' : 'double', untiled, sampling,
        });
      } finally {
        progress.done();
        quantized?.keep(r !== undefined);
      }
      // An integer model quantized by `gen quantize` carries its input scales beside it: the firmware folder gets a
      // copy, so `gen run` can quantize float inputs without being told where the model came from.
      const side = sidecarPath(given);
      if (!quantized && existsSync(side) && !existsSync(join(o.out!, SIDECAR_IN_FIRMWARE))) copyFileSync(side, join(o.out!, SIDECAR_IN_FIRMWARE));
      const kernels = r.layers.filter((l) => l.kernel !== 'alias').length;
      const engines = new Map<string, number>();
      for (const l of r.layers) if (l.kernel !== 'alias') engines.set(l.kernel.engine, (engines.get(l.kernel.engine) ?? 0) + 1);
      if (engines.size > 1 || r.lowered.nodes.some((n) => n.engineNote !== undefined)) {
        console.log(`engines: ${[...engines].map(([e, n]) => `${n} of ${kernels} kernels on ${e}`).join(', ')} (why, per layer: firmware.json "engineNote")`);
      }
      for (const n of r.notes) console.log(`note: ${printable(n, 400)}`);
      if (r.tiling) {
        console.log(`tiling: ${r.tiling.layers.size} layers tiled into L1 (${o.singleBuffer ? 'single' : 'double'} buffering), L1 peak ${r.tiling.l1Peak} of ${r.tiling.l1Budget} bytes, planned in ${r.tiling.ms.toFixed(0)} ms`);
      }
      console.log(
        `${r.platform.name}: ${r.graph.nodes.length} nodes -> ${kernels} kernels; ${planLine(r.plan)}; ` +
          `${(performance.now() - t0).toFixed(0)} ms -> ${o.out}`,
      );
    });
}
