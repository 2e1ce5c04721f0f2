import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { GenError } from '../errors.js';
import { cType } from '../ir/dtype.js';
import type { Graph } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import type { Layer } from '../frontend/select.js';
import type { MemoryPlan } from '../midend/plan.js';
import type { Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';
import { checkClosures } from './closure-check.js';
import { renderClosure } from './closure.js';
import { buildManifest, type Manifest } from './manifest.js';
import { constantImage } from './memory-image.js';
import { RUNTIME, templatePath } from './paths.js';
import { renderFile } from './render.js';
import { sanitizeComment, SymbolTable } from './sanitize.js';

export const GENERATOR_VERSION = '0.1.0';

export interface EmitInput {
  graph: Graph;
  layers: Layer[];
  plan: MemoryPlan;
  platform: Platform;
}

export interface Emitted {
  files: Map<string, string | Uint8Array>;
  manifest: Manifest;
}

/** Renders C and AS sources, the constant image and the manifest of one model (DESIGN.md, emit). */
export function emitFirmware({ graph, layers, plan, platform }: EmitInput): Emitted {
  const symbols = new SymbolTable(['network', 'network_run', 'a', 'raw', 'args']);
  const symbolOf = (tensor: string): string => symbols.symbol(plan.placements.get(tensor)?.root ?? tensor, 't_');
  const regionIndex = platform.memories.findIndex((m) => m.name === plan.region);
  const home = memoryOf(platform, plan.region);

  const kernels = layers.filter((l) => l.kernel !== 'alias').map((l) => {
    const kernel = l.kernel as Exclude<Layer['kernel'], 'alias'>;
    const site = { node: l.node.name, op: l.node.op };
    let view;
    try {
      view = kernel.view({ node: l.node, graph, platform });
    } catch (e) {
      throw e instanceof GenError ? e.withSite(site) : new GenError('internal', (e as Error).message, site);
    }
    const fn = symbols.symbol(`${l.id}_${l.node.op}`, 'L');
    const params = { ...view.params };
    const bodyC = renderFile(templatePath(platform.name, 'c', `${kernel.template}.c.mustache`), params);
    const bodyAs = renderFile(templatePath(platform.name, 'as', `${kernel.template}.ts.mustache`), params);
    const args = view.args.map((a) => ({ ...a, symbol: symbolOf(a.tensor) }));
    const closure = renderClosure(platform.name, {
      fn,
      args,
      comment: `layer ${l.id}: ${l.node.op} (${kernel.name}) ${(l.node.fusedFrom ?? [l.node.name]).join(' + ')}`,
      bodyC,
      bodyAs,
    });
    return {
      id: l.id,
      fn,
      kernel: kernel.name,
      macs: view.macs,
      reads: [...new Set(view.args.filter((a) => !a.write).map((a) => a.tensor))],
      writes: [...new Set(view.args.filter((a) => a.write).map((a) => a.tensor))],
      closure,
      args: args.map((a) => {
        const p = plan.placements.get(a.tensor);
        if (!p) throw new GenError('internal', `tensor '${a.tensor}' has no memory`, site);
        return {
          field: a.field,
          symbol: a.symbol,
          bytes: p.bytes,
          writeFlag: a.write ? 1 : 0,
          cptr: `${a.write ? '' : 'const '}${cType(a.dtype)} *`,
          arenaOffset: p.offset - plan.arenaOffset,
        };
      }),
    };
  });
  checkClosures(kernels.map((k) => ({ fn: k.fn, fields: k.args.map((a) => a.field), source: k.closure.as })));

  const buffers = [...new Set([...plan.placements.values()].map((p) => p.root))].map((root) => {
    const p = plan.placements.get(root)!;
    return { symbol: symbolOf(root), region: regionIndex, offset: p.offset, comment: sanitizeComment(root) };
  });
  const header = {
    version: GENERATOR_VERSION,
    model: sanitizeComment(graph.name),
    platform: platform.name,
  };
  const view = {
    ...header,
    launchFork: platform.launch === 'cluster-fork',
    kernels: kernels.map((k) => ({ closureAs: k.closure.as, closureC: k.closure.c })),
    layers: kernels.map((k) => ({ id: k.id, fn: k.fn, args: k.args })),
    buffers,
    hostCores: platform.cores,
    arenaSize: plan.arenaSize,
    arenaOffset: plan.arenaOffset,
    region: plan.region,
    regionChipBase: `0x${(home.chipBase + plan.arenaOffset).toString(16)}`,
  };

  const image = constantImage(graph, plan);
  const manifest = buildManifest({ graph, layers, plan, platform, kernels, symbolOf, version: GENERATOR_VERSION });
  const files = new Map<string, string | Uint8Array>();
  files.set('as/network.ts', renderFile(templatePath(platform.name, 'as', 'network.ts.mustache'), view));
  files.set('c/network.c', renderFile(templatePath(platform.name, 'c', 'network.c.mustache'), view));
  files.set('c/network.h', renderFile(templatePath(platform.name, 'c', 'network.h.mustache'), { ...view, io: ioView(graph, plan, symbolOf) }));
  files.set('c/network_data.c', renderFile(templatePath(platform.name, 'c', 'network_data.c.mustache'), { ...view, imageBytes: cBytes(image.subarray(plan.arenaOffset)) }));
  files.set(`memory/${plan.region.toLowerCase()}.bin`, image);
  files.set('firmware.json', `${JSON.stringify(manifest, null, 2)}\n`);
  copyTree(join(RUNTIME, 'as'), 'as/hal', files);
  copyTree(join(RUNTIME, 'c', 'include'), 'c/hal', files);
  copyTree(join(RUNTIME, 'c', 'host'), 'c/hal/host', files);
  if (existsSync(join(RUNTIME, 'c', platform.name))) copyTree(join(RUNTIME, 'c', platform.name), `c/hal/${platform.name}`, files);
  files.set('c/Makefile', renderFile(templatePath(platform.name, 'c', 'Makefile.mustache'), view));
  return { files, manifest };
}

function ioView(g: Graph, plan: MemoryPlan, symbolOf: (t: string) => string): Record<string, unknown> {
  const entry = (name: string, i: number) => {
    const p = plan.placements.get(name)!;
    const t = tensorOf(g, name);
    return { index: i, symbol: symbolOf(name), offset: p.offset - plan.arenaOffset, bytes: p.bytes, dtype: t.dtype, comment: sanitizeComment(name) };
  };
  return {
    inputs: g.inputs.map(entry),
    outputs: g.outputs.map(entry),
    inputCount: g.inputs.length,
    outputCount: g.outputs.length,
  };
}

function cBytes(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 24) lines.push(`  ${Array.from(bytes.subarray(i, i + 24)).join(', ')},`);
  return lines.join('\n');
}

function copyTree(src: string, dest: string, files: Map<string, string | Uint8Array>): void {
  if (!existsSync(src)) return;
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    if (entry.isDirectory()) copyTree(join(src, entry.name), `${dest}/${entry.name}`, files);
    else files.set(`${dest}/${entry.name}`, readFileSync(join(src, entry.name)));
  }
}
