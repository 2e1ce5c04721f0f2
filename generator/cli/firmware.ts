import { InvalidArgumentError, type Command } from 'commander';
import { basename, join } from 'node:path';
import { printable } from '../errors.js';
import { checkOutputFolder } from '../backend/output-folder.js';
import { safeFileName } from '../backend/sanitize.js';
import type { MemoryPlan } from '../midend/plan.js';
import { generateFirmware } from '../pipeline.js';
import { PLATFORMS } from '../platforms/index.js';
import { ENGINE_CHOICES, type EngineOptions } from '../platforms/siracusa/engines.js';
import { spinner } from './progress.js';
import { addQuantizeOptions, quantizeForFirmware, type QuantizeFlags } from './quantize.js';

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
  pes?: number;
  engines?: EngineOptions['engines'];
  weightsIn?: EngineOptions['weightsIn'];
  cores?: number;
}

function choice<T extends string>(flag: string, allowed: readonly T[]): (v: string) => T {
  return (v) => {
    if (!(allowed as readonly string[]).includes(v)) throw new InvalidArgumentError(`${flag} takes ${allowed.join(', ')}, not '${v}'`);
    return v as T;
  };
}

/** out/<model file stem>-<platform>, so that generating another model never replaces an earlier output. */
export function defaultOutFolder(model: string, platform: string): string {
  const stem = basename(model).replace(/\.onnx$/i, '');
  return join('out', `${safeFileName(stem)}-${safeFileName(platform)}`);
}

function count(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`'${v}' is not a count`);
  return Number(v);
}

/** "64000", "64k", "64KiB", "2MiB": a byte count, or a clear error. */
export function parseBytes(text: string): number {
  const m = /^(\d+)\s*(k|kib|m|mib)?$/i.exec(text.trim());
  if (!m) throw new InvalidArgumentError(`'${text}' is not a byte count (e.g. 64000, 64k, 2MiB)`);
  const unit = (m[2] ?? '').toLowerCase();
  return Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
}

/** The home plan against its lower bound, and how the activations were placed (greedy, then maybe HiGHS). */
export function planLine(p: MemoryPlan): string {
  const a = p.activations;
  const gap = p.used - p.lowerBound;
  const pct = p.lowerBound > 0 ? ` = ${((100 * gap) / p.lowerBound).toFixed(1)}%` : '';
  const solver = a.solver.status === 'not-needed' ? 'solver not needed' : `solver ${a.solver.status} in ${a.solver.ms} ms`;
  return `${p.region} ${p.used} bytes (lower bound ${p.lowerBound}, +${gap}${pct}; activations greedy ${a.greedy}, ` +
    `final ${a.final}, ${solver}; available ${p.arenaSize})${p.far ? `; ${farLine(p.far)}` : ''}`;
}

function farLine(f: NonNullable<MemoryPlan['far']>): string {
  return `${f.region} ${f.used} bytes for ${f.tensors} tensor(s) (lower bound ${f.lowerBound}; available ${f.size})`;
}

export function firmwareCommand(program: Command): void {
  const c = program
    .command('firmware')
    .description('generate firmware for a platform: out/c (C for the board + host build), out/as (AssemblyScript for the emulator), firmware.json, memory images')
    .argument('<model>', 'quantized ONNX model (integer dialect or standard QDQ)')
    .requiredOption('-p, --platform <name>', `target platform: ${Object.keys(PLATFORMS).join(', ')}`)
    .option('-o, --out <dir>', 'output folder: new, empty, or an earlier firmgen output, replaced atomically (default: out/<model>-<platform>)')
    .option('--inputs <npz>', 'sample inputs whose value ranges set the input types (default: inputs.npz beside the model)')
    .option('--l1 <bytes>', 'L1 bytes for tile buffers (siracusa; default: 244 KiB, what the SDK leaves of 256 KiB; suffix k or KiB allowed)', parseBytes)
    .option('--l2 <bytes>', 'L2 bytes for whole tensors and constants (siracusa; default: the 1984 KiB shared L2)', parseBytes)
    .option('--l3 <bytes>', 'siracusa: L3 (HyperRAM) bytes for the tensors L2 cannot hold, staged through L2 (default: all 16 MiB; 0: none)', parseBytes)
    .option('--single-buffer', 'wait for every DMA transfer before computing (default: double buffering)')
    .option('--double-buffer', 'prefetch tile i+1 and write back tile i-1 while tile i computes (the default)')
    .option('--untiled', 'no tiles and no DMA: kernels work on L2 directly (the first version; for comparison)')
    .option('--pes <n>', 'spinnaker2: processing elements of the chip to use, the scheduler included (2..152; default 152)', (v: string) => Number(v))
    .option('--engines <list>', 'siracusa: cluster (default), cluster+npu (N-EUREKA where estimated faster) or npu (N-EUREKA wherever it can run)', choice('--engines', ENGINE_CHOICES))
    .option('--weights-in <memory>', 'siracusa with the NPU: nms (neural memory, read in place; default) or l2 (moved to L1 with the tiles)', choice('--weights-in', ['nms', 'l2'] as const))
    .option('--cores <n>', 'siracusa: cluster cores to use (1..8; default 8)', count);
  addQuantizeOptions(c, false)
    .addHelpText('after', '\nExamples:\n  gen firmware --platform siracusa model.onnx -o out/\n  gen firmware --platform siracusa float.onnx --calibration calibration.npz -o out/')
    .action((given: string, o: Partial<QuantizeFlags> & FirmwareFlags) => {
      o.out ??= defaultOutFolder(given, o.platform);
      // Refused before any work (and checked again at the swap): never a folder holding a user's files.
      checkOutputFolder(o.out, { model: given });
      // A float model with --calibration is quantized first (gen quantize); its integer model lands in out/.
      const quantized = o.calibration ? quantizeForFirmware(given, o as QuantizeFlags, o.out) : undefined;
      const model = quantized?.model ?? given;
      const t0 = performance.now();
      const progress = spinner();
      let r;
      try {
        r = generateFirmware({
          model, platform: o.platform, out: o.out, sampleInputs: o.inputs, onStage: progress.stage,
          l1: o.l1, l2: o.l2, l3: o.l3, buffering: o.singleBuffer ? 'single' : 'double', untiled: o.untiled, pes: o.pes,
          engines: o.engines, weightsIn: o.weightsIn, cores: o.cores,
        });
      } finally {
        progress.done();
        quantized?.keep(r !== undefined);
      }
      const kernels = r.layers.filter((l) => l.kernel !== 'alias').length;
      const npu = r.layers.filter((l) => l.kernel !== 'alias' && l.kernel.engine === 'npu').length;
      if (o.engines && o.engines !== 'cluster') console.log(`engines: ${npu} of ${kernels} kernels on N-EUREKA (why, per layer: firmware.json "engineNote")`);
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
