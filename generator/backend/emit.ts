import { stepRoles, type StepRoles } from '../ir/state.js';
import { splitPhases } from './phases.js';
import { typeNames } from '../kernels/common.js';
import { join } from 'node:path';
import { GenError, quoted } from '../errors.js';
import { cType } from '../ir/dtype.js';
import type { Graph } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import type { Layer } from '../frontend/select.js';
import type { KernelView } from '../kernels/types.js';
import type { MemoryPlan } from '../midend/plan.js';
import type { Elsewhere, Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';
import { checkClosures, type ClosureSource } from './closure-check.js';
import { kernelView, renderKernel } from './kernel-closure.js';
import { renderTiledLayer } from './tiled.js';
import type { TilingPlan } from '../midend/tiling/plan-tiles.js';
import { encodeTable } from '../midend/tiling/table.js';
import { buildManifest, type Manifest } from './manifest.js';
import { nmsImage } from './memory-image.js';
import { cArenaBytes, cL1ArrayBytes, cL1RecordWords, checkCImage, codeBytes, codeKey } from './c-image.js';
import { compiledShapeBytes } from './compiled-shape.js';
import { addCProject, copyTree } from './c-project.js';
import { planPictures } from './plan-pictures.js';
import { constantImage } from './memory-image.js';
import { RUNTIME, templatePath } from './paths.js';
import { renderFile } from './render.js';
import { sanitizeComment, SymbolTable } from './sanitize.js';

export { GENERATOR_VERSION } from '../version.js';
import { GENERATOR_VERSION } from '../version.js';

export interface EmitInput {
  graph: Graph;
  layers: Layer[];
  plan: MemoryPlan;
  platform: Platform;
  tiling?: TilingPlan;
  /** Constants the platform placed outside the plan (Platform.placeElsewhere; Siracusa's N-EUREKA weights). */
  elsewhere?: Elsewhere;
  /** Stage marks (CompileOptions.onStage): 'closure check' while the closures are checked, then 'emit' again. */
  onStage?: (stage: string) => void;
}

/** Name of a tiled layer's table among the plan's constant blobs. */
export function tableName(layerId: number): string {
  return `tile_table_${layerId}`;
}

export interface Emitted {
  files: Map<string, string | Uint8Array>;
  manifest: Manifest;
  /** The kernel closures, as checked (closure-check.ts); firmware without per-layer closures has none. */
  closures?: ClosureSource[];
}

/**
 * The platform's compiled bytes per byte of C for code key `key` (Platform.codeRatios): the key's own, else the same
 * kernel and path's with or without its tile loop (a decoder's untiled Slices take the tiled copies'), else `*`.
 */
function codeRatio(platform: Platform, key: string): number {
  const ratios = platform.codeRatios;
  if (!ratios) return 1;
  const other = key.endsWith(' untiled') ? key.slice(0, -' untiled'.length) : `${key} untiled`;
  return ratios[key] ?? ratios[other] ?? ratios['*'] ?? 1;
}

/** Renders C and AS sources, the constant image and the manifest of one model (DESIGN.md, emit). */
export function emitFirmware({ graph, layers, plan, platform, tiling, elsewhere, onStage }: EmitInput): Emitted {
  const nms = elsewhere?.offsets ?? new Map<string, number>();
  const farImage = plan.far ? constantImage(graph, plan, undefined, plan.far.region) : undefined;
  const symbols = new SymbolTable(['network', 'network_run', 'a', 'raw', 'args']);
  const symbolOf = (tensor: string): string => symbols.symbol(plan.placements.get(tensor)?.root ?? tensor, 't_');
  const home = memoryOf(platform, plan.region);

  const closures: { fn: string; fields: string[]; source: string }[] = [];
  const kernels = layers.filter((l) => l.kernel !== 'alias').map((l) => {
    const kernel = l.kernel as Exclude<Layer['kernel'], 'alias'>;
    const site = { node: l.node.name, op: l.node.op };
    const fn = symbols.symbol(`${l.id}_${l.node.op}`, 'L');
    const comment = `layer ${l.id}: ${l.node.op} (${kernel.name}) ${(l.node.fusedFrom ?? [l.node.name]).join(' + ')}`;
    const tl = tiling?.layers.get(l.id);
    const accelerator = kernel.renderLayer !== undefined;
    const copy = kernel.engine === 'l3dma';
    if (accelerator && !tl) throw new GenError('internal', `a ${kernel.name} layer without tiles (its engine reads the tile memory only)`, site);
    // A tiled layer's code is its tile instances' closures (renderTiledLayer): the whole layer's view gives only
    // its arguments and MACs, so its own closure is not rendered.
    const r = accelerator || copy
      ? { view: kernel.view({ node: l.node, graph, platform }), as: '', c: '' }
      : tl
        ? { view: kernelView(kernel, l.node, graph, platform), as: '', c: '' }
        : renderKernel(kernel, l.node, graph, platform, fn, comment, symbolOf);
    // `cold`: the C each core fetches at its first share (runtime/as/cost.ts CODE_BYTE), where not all of `c`.
    let code: { as: string; c: string; cold?: string; loop?: { before: string; after: string }; codePath?: string } = { as: r.as, c: r.c };
    if (copy) {
      // No code of its own: the skeleton calls the L3 HAL (copyView).
    } else if (accelerator) {
      code = kernel.renderLayer!({ id: l.id, fn, tiles: tl!, graph, plan, platform, tableName: tableName(l.id), elsewhere: nms });
    } else if (tl) {
      const t = renderTiledLayer(l.id, fn, tl, graph, plan, platform, tableName(l.id), comment, symbolOf);
      closures.push(...t.closures);
      code = { as: t.as, c: t.c, cold: t.coldC, loop: t.loopParts, codePath: t.codePath };
    } else {
      closures.push({ fn, fields: r.view.args.map((a) => a.field), source: r.as });
    }
    const args = r.view.args.filter((a) => !nms.has(a.tensor) && !copy).map((a) => {
      const p = plan.placements.get(a.tensor);
      if (!p) throw new GenError('internal', `tensor '${a.tensor}' has no memory`, site);
      return {
        field: a.field,
        symbol: symbolOf(a.tensor),
        bytes: p.bytes,
        writeFlag: a.write ? 1 : 0,
        cptr: `${a.write ? '' : 'const '}${cType(a.dtype)} *`,
        arenaOffset: p.offset - plan.arenaOffset,
      };
    });
    // The C every core fetches cold (runtime/as/cost.ts CODE_BYTE), and the bytes gcc makes of it, estimated by the
    // platform's measured ratio for the layer's kernel and the C path of that code (Platform.codeRatios).
    const key = codeKey(kernel.name, code.codePath ?? r.view.codePath, tl !== undefined);
    const sourceBytes = (kernel.liveCode ? compiledShapeBytes : codeBytes)(code.cold ?? code.c);
    // Of it, the tile loop's parts before and after the kernel in 256ths: their C's share of the cold C's bytes
    // (ASSUMPTION: gcc makes as many bytes of a byte of either as of the whole; a conv's loop 20 % of the C, 28 % of
    // the compiled bytes, CNN_Linear1). Fetched where the C runs them (runtime/as/cluster.ts layer_code).
    const share = (part: string): number => (sourceBytes > 0 ? Math.min(128, Math.round((256 * codeBytes(part)) / sourceBytes)) : 0);
    return {
      id: l.id,
      fn,
      kernel: kernel.name,
      macs: r.view.macs,
      coldCode: {
        key, sourceBytes, bytes: Math.round(sourceBytes * codeRatio(platform, key)),
        ...(code.loop ? { loop: { before: share(code.loop.before), after: share(code.loop.after) } } : {}),
      },
      reads: [...new Set(r.view.args.filter((a) => !a.write).map((a) => a.tensor))],
      writes: [...new Set(r.view.args.filter((a) => a.write).map((a) => a.tensor))],
      code,
      tiled: tl !== undefined,
      copy: copy ? copyView(r.view, plan, symbolOf, site) : false as const,
      args,
    };
  });
  onStage?.('closure check');
  checkClosures(closures);
  onStage?.('emit');

  const buffers = [...new Set([...plan.placements.values()].map((p) => p.root))].map((root) => {
    const p = plan.placements.get(root)!;
    const region = platform.memories.findIndex((m) => m.name === p.region);
    return { symbol: symbolOf(root), region, offset: p.offset, comment: sanitizeComment(root) };
  });
  const phases = splitPhases(graph, kernels);
  const header = {
    version: GENERATOR_VERSION,
    model: sanitizeComment(graph.name),
    platform: platform.name,
  };
  const view = {
    ...header,
    launchFork: platform.launch === 'cluster-fork',
    // The HAL modules the layers' kernels call beyond the common ones (KernelDef.hal), once each.
    halC: [...new Set(layers.flatMap((l) => (l.kernel !== 'alias' && l.kernel.hal ? [l.kernel.hal.c] : [])))],
    halAs: [...new Set(layers.flatMap((l) => (l.kernel !== 'alias' && l.kernel.hal ? [l.kernel.hal.as] : [])))],
    kernels: kernels.map((k) => ({ closureAs: k.code.as, closureC: k.code.c })),
    // A prompt pass (backend/phases.ts): its layers first, in a function of their own; `split` starts the step's.
    promptPass: phases.promptCount > 0,
    layers: phases.ordered.map((k, i) => ({
      id: k.id, fn: k.fn, args: k.args, tiled: k.tiled, copy: k.copy, forked: !k.tiled && !k.copy, split: phases.promptCount > 0 && i === phases.promptCount,
      // A layer after another: the skeleton's work between them (runtime/as/cost.ts SKELETON).
      after: i > 0,
      // The layer's own C, which its cores fetch cold into the instruction cache (runtime/as/cost.ts CODE_BYTE).
      codeBytes: k.coldCode.bytes,
      loopBefore: k.coldCode.loop?.before ?? 0,
      loopAfter: k.coldCode.loop?.after ?? 0,
    })),
    l1Size: cL1ArrayBytes(tiling) || false,
    l1RecordWords: cL1RecordWords(platform, tiling),
    l1Region: platform.tiling?.memory ?? '',
    buffers,
    hostCores: platform.cores,
    arenaSize: cArenaBytes(plan),
    // The arena's C alignment: at least the planner's tensor alignment, so the offsets it planned stay aligned. The
    // declaration in network.h says it too: without it gcc, seeing an int32_t read at a constant offset of a byte
    // array, assumes the array's alignment of 1 and reads the word a byte at a time (4 loads of L2 on a cluster core).
    arenaAlign: Math.max(8, platform.tensorAlign ?? 8),
    arenaOffset: plan.arenaOffset,
    region: plan.region,
    regionChipBase: `0x${(home.chipBase + plan.arenaOffset).toString(16)}`,
    l3Size: plan.far ? Math.max(8, Math.ceil(plan.far.used / 8) * 8) : 0,
    l3Image: farImage?.length ?? 0,
    generation: generationView(graph, plan, symbolOf),
  };

  const image = constantImage(graph, plan, tableImages(tiling, plan, graph));
  const manifest = buildManifest({ graph, layers, plan, platform, kernels, symbolOf, version: GENERATOR_VERSION, tiling, elsewhere });
  const files = new Map<string, string | Uint8Array>();
  files.set('as/network.ts', renderFile(templatePath(platform.name, 'as', 'network.ts.mustache'), view));
  const networkC = renderFile(templatePath(platform.name, 'c', 'network.c.mustache'), view);
  // Before the constant image is rendered: a model too big for the board fails fast, with nothing written.
  const budget = checkCImage(platform, plan, tiling, networkC);
  files.set('c/network.c', networkC);
  files.set('c/network.h', renderFile(templatePath(platform.name, 'c', 'network.h.mustache'), { ...view, io: ioView(graph, plan, symbolOf) }));
  files.set('c/network_data.c', renderFile(templatePath(platform.name, 'c', 'network_data.c.mustache'), {
    ...view, imageBytes: cBytes(image.subarray(plan.arenaOffset)),
    elsewhereData: nms.size ? renderFile(templatePath(platform.name, 'c', 'elsewhere-data.c.mustache'), { bytes: cBytes(nmsImage(graph, nms)) }).replace(/\n$/, '') : false,
    l3Bytes: farImage ? cBytes(farImage) : '',
  }));
  if (plan.far) files.set(`memory/${plan.far.region.toLowerCase()}.bin`, farImage!);
  files.set(`memory/${plan.region.toLowerCase()}.bin`, image);
  if (elsewhere && nms.size) files.set(`memory/${elsewhere.region.toLowerCase()}.bin`, nmsImage(graph, nms));
  // A platform's own outputs (its dataflow, its pictures): data in the manifest under platformData, files beside.
  const extra = platform.annotate?.({ graph, layers, platform });
  if (extra) {
    manifest.platformData = extra.data;
    for (const [name, text] of extra.files) files.set(name, text);
  }
  files.set('firmware.json', `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [name, text] of planPictures(manifest, plan, platform)) files.set(name, text);
  copyTree(join(RUNTIME, 'as'), 'as/hal', files);
  addCProject(files, platform, budget, header);
  return { files, manifest, closures };
}

/** The encoded tile tables, by blob name, once the plan has given every tensor its offset. */
function tableImages(tiling: TilingPlan | undefined, plan: MemoryPlan, graph: Graph): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [id, tl] of tiling?.layers ?? []) {
    out.set(tableName(id), encodeTable(tl, (t) => {
      const p = plan.placements.get(t);
      if (!p) throw new GenError('internal', `tensor '${t}' has no memory`, { file: graph.source });
      return p.offset - plan.arenaOffset;
    }));
  }
  return out;
}

/**
 * An L3 copy layer as the skeletons call it: the L2 buffer (arena offset), the L3 offset, the bytes; for a cache in
 * L3 (kernels/l3copy.ts l3CacheWriteKernel) the row runs and the position they go to.
 */
function copyView(view: KernelView, plan: MemoryPlan, symbolOf: (t: string) => string, site: { node: string; op: string }) {
  const rows = view.params.rows as Record<string, number> | undefined;
  const argOf = (field: string) => view.args.find((a) => a.field === field);
  const arg = (field: string): string | undefined => argOf(field)?.tensor;
  const load = view.params.load === true;
  // A cache write's rows go from its value (v) to the cache (y); a copy goes from src to dst.
  const [l3, l2] = arg('v') ? [arg('y')!, arg('v')!] : load ? [arg('src')!, arg('dst')!] : [arg('dst')!, arg('src')!];
  const p3 = plan.placements.get(l3);
  const p2 = plan.placements.get(l2);
  if (!p3 || !p2 || p3.region !== plan.far?.region || p2.region !== plan.region) {
    throw new GenError('internal', `an L3 copy between '${l3}' and '${l2}' whose buffers are not in L3 and L2`, site);
  }
  const at = { load, bytes: view.params.bytes, l3Offset: p3.offset, l2Offset: p2.offset - plan.arenaOffset, l3Symbol: symbolOf(l3), l2Symbol: symbolOf(l2) };
  if (!rows) return { ...at, rows: false as const };
  const pos = argOf('p')!;
  const pp = plan.placements.get(pos.tensor);
  if (!pp || pp.region !== plan.region) throw new GenError('internal', `the position '${pos.tensor}' of an L3 cache copy is not in ${plan.region}`, site);
  return { ...at, rows: { ...rows, posOffset: pp.offset - plan.arenaOffset, posSymbol: symbolOf(pos.tensor), pos: typeNames(pos.dtype) } };
}

/** The on-chip generation loop's buffers (a decoder step with a control block, ir/state.ts), or false. */
function generationView(g: Graph, plan: MemoryPlan, symbolOf: (t: string) => string): Record<string, unknown> | false {
  const roles = stepRoles(g);
  if (!roles?.control || !roles.next) return false;
  const at = (name: string): { symbol: string; offset: number } => {
    const p = plan.placements.get(name);
    if (!p) throw new GenError('internal', `tensor '${name}' has no memory`);
    return { symbol: symbolOf(name), offset: p.offset - plan.arenaOffset };
  };
  for (const name of [roles.ids, roles.position]) {
    if (tensorOf(g, name).dtype !== 'int32') throw new GenError('internal', `the generation loop writes '${name}' as int32`);
  }
  return {
    ctl: at(roles.control), ids: at(roles.ids), pos: at(roles.position), next: at(roles.next),
    nextType: typeNames(tensorOf(g, roles.next).dtype), context: roles.context,
    sampling: roles.sampling ? samplingView(g, roles.sampling, roles.logits, at) : false,
    prompt: roles.prompt ? promptView(g, roles, at) : false,
  };
}

/** The prompt pass's buffers (ir/state.ts PromptRoles): its ids [P], its logits [P, V] and next tokens [P]. */
function promptView(g: Graph, roles: StepRoles, at: (name: string) => { symbol: string; offset: number }): Record<string, unknown> {
  const pass = roles.prompt!;
  if (!pass.next) throw new GenError('internal', 'a prompt pass without its ArgMax');
  if (tensorOf(g, pass.ids).dtype !== 'int32') throw new GenError('internal', `the generation loop writes ${quoted(pass.ids)} as int32`);
  const logits = tensorOf(g, pass.logits);
  const vocab = logits.shape[logits.shape.length - 1];
  if (roles.sampling && logits.dtype !== tensorOf(g, roles.logits).dtype) {
    throw new GenError('unsupported', `--sampling: the prompt pass's logits are ${logits.dtype}, the step's ${tensorOf(g, roles.logits).dtype}`);
  }
  // The sampler reads row n-1 of the pass's logits as it reads the step's: same type, one row of V codes. The names
  // differ from the step's (ids, next, logits): the templates read both inside one another's sections.
  return {
    passIds: at(pass.ids), length: pass.length, passLogits: at(pass.logits), passNext: at(pass.next),
    passNextType: typeNames(tensorOf(g, pass.next).dtype), rowBytes: vocab << typeNames(logits.dtype).shift,
  };
}

/** The sampler's view (reference/sample.ts): its block, the logits' integer codes and their count. */
function samplingView(g: Graph, block: string, logits: string, at: (name: string) => { symbol: string; offset: number }): Record<string, unknown> {
  const t = tensorOf(g, logits);
  if (!['int8', 'int16', 'int32'].includes(t.dtype)) throw new GenError('input', `--sampling: the logits '${logits}' are ${t.dtype}, not int8, int16 or int32`);
  return { block: at(block), logits: at(logits), logitsType: typeNames(t.dtype), vocab: t.shape.reduce((a, b) => a * b, 1) };
}

function ioView(g: Graph, plan: MemoryPlan, symbolOf: (t: string) => string): Record<string, unknown> {
  const entry = (name: string, i: number) => {
    const p = plan.placements.get(name)!;
    const t = tensorOf(g, name);
    const l3 = p.region === plan.far?.region;
    return { index: i, symbol: symbolOf(name), offset: l3 ? p.offset : p.offset - plan.arenaOffset, bytes: p.bytes, dtype: t.dtype, comment: sanitizeComment(name), l3 };
  };
  return {
    inputs: g.inputs.map(entry),
    outputs: g.outputs.map(entry),
    inputCount: g.inputs.length,
    outputCount: g.outputs.length,
    // Layer markers run twice per layer: the rv32 HALs keep one record per marker (runtime/c/rv32/layer_marks.c).
    layerMarks: 2 * g.nodes.length,
  };
}

/**
 * A C initialiser's body: 24 bytes a line, `  1, 2, ...,` (written as ASCII into one buffer, decoded once: images run
 * to hundreds of kilobytes, and a string per byte was most of emit). Digits by arithmetic, the line by a countdown: a
 * table of digit buffers and a modulo per byte took 7.1 ms cold / 4.8 warm for the 8-layer decoder's 353 KB image
 * against 6.0 / 3.5 this way (the same text; the two side by side in one script).
 */
function cBytes(bytes: Uint8Array): string {
  const out = Buffer.allocUnsafe(bytes.length * 5 + Math.ceil(bytes.length / 24) * 4);
  let n = 0;
  let left = 0; // bytes still to go on this line
  for (let i = 0; i < bytes.length; i++) {
    if (left === 0) {
      if (i > 0) { out[n++] = 0x2c; out[n++] = 0x0a; } // ",\n"
      out[n++] = 0x20; out[n++] = 0x20;
      left = 24;
    } else {
      out[n++] = 0x2c; out[n++] = 0x20; // ", "
    }
    left--;
    const v = bytes[i];
    if (v >= 100) {
      out[n++] = 48 + ((v / 100) | 0);
      out[n++] = 48 + (((v / 10) | 0) % 10);
    } else if (v >= 10) out[n++] = 48 + ((v / 10) | 0);
    out[n++] = 48 + (v % 10);
  }
  if (bytes.length > 0) out[n++] = 0x2c;
  return out.toString('latin1', 0, n);
}
