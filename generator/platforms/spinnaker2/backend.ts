import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenError } from '../../errors.js';
import type { Layer } from '../../frontend/select.js';
import { tensorOf, type Graph } from '../../ir/graph.js';
import { stepRoles } from '../../ir/state.js';
import { planMemory, type MemoryPlan } from '../../midend/plan.js';
import { GENERATOR_VERSION, type Emitted } from '../../backend/emit.js';
import { buildManifest } from '../../backend/manifest.js';
import { RUNTIME, TEMPLATES } from '../../backend/paths.js';
import { SymbolTable } from '../../backend/sanitize.js';
import type { Platform, PlatformBackend } from '../types.js';
import type { LayerEncoding } from './encoding.js';
import { gemmGeometry } from './gemm-geometry.js';
import { encodeGemm } from './gemm-encode.js';
import { planGemm, type GemmPlan } from './gemm-plan.js';
import { buildImage } from './image.js';
import { encodeElementwise } from './elementwise.js';
import { encodeRows } from './rows.js';
import { encodeMovement } from './movement.js';
import { encodeReduce } from './reduce.js';
import { encodeIndexed } from './indexed.js';
import { sharesInput } from '../../frontend/select.js';
import { convGeometry, poolGeometry } from './conv-geometry.js';
import { encodeConv } from './conv-plan.js';
import { describeImage, type LayerSummary } from './describe.js';
import { S2 } from './timing.js';
import { spinnaker2Memories } from './memories.js';
import { checkPeImages, type PeBuffers } from './pe-image.js';
import { addArmBuild } from './arm-build.js';
import { SRAM } from './layout.js';


/**
 * Data memory holds only what changes at run time: inputs, outputs, activations. Constants go into the layer
 * configurations, re-laid out for the tiles (gemm-encode.ts), so they are left out of this plan.
 */
function plan(g: Graph, layers: Layer[], platform: Platform, opts: { arenaSize?: number }): MemoryPlan {
  const isConst = (t: string): boolean => g.tensors.get(t)?.data !== undefined;
  const stripped: Graph = { ...g, nodes: g.nodes.map((n) => ({ ...n, inputs: n.inputs.map((i) => (i && isConst(i) ? '' : i)) })) };
  // An alias, or an in-place CacheWrite whose cache nothing else reads, shares its input's buffer (decided on the
  // graph with its constants: a constant cache is never shared).
  return planMemory(stripped, platform, (i) => sharesInput(g, layers, i), opts);
}

interface Planned {
  layer: Layer;
  enc: LayerEncoding;
  summary: LayerSummary;
}

/** What the encoders of the cores' layers report. */
interface CoreEncoded { enc: LayerEncoding; tiles: number; rows?: number; shape?: number[]; estimate: number; perWorker: number[]; sram: number }

function planLayer(l: Layer, g: Graph, platform: Platform, workers: number): Planned {
  const node = l.node;
  const site = { node: node.name, op: node.op };
  if (l.kernel === 'alias') throw new GenError('internal', 'an alias has no layer', site);
  // A layer the PEs' cores run: its summary from what its encoder reports (tiles of `rows`, or of `shape`).
  const core = (kind: LayerSummary['kind'], e: CoreEncoded): Planned => ({
    layer: l,
    enc: e.enc,
    summary: {
      kind, engine: 'core', macs: 0, tiles: e.tiles, tileShape: e.shape ?? [e.rows!], sramBytes: e.sram,
      estimate: { cycles: e.estimate }, tilesPerWorker: e.perWorker,
    },
  });
  try {
    if (l.kernel.name === 's2-gemm') {
      const geo = gemmGeometry(node, g);
      const p: GemmPlan = planGemm(geo, node, workers, { requant: platform.costs.REQUANT, element: platform.costs.ELEMENT });
      return {
        layer: l,
        enc: encodeGemm(geo, p),
        summary: {
          kind: 'gemm', engine: 'mla', macs: geo.batches * geo.M * geo.N * geo.K,
          tiles: p.tiles.length, tileShape: [p.mt, p.nt], sramBytes: p.sram.end, estimate: p.estimate,
          tilesPerWorker: p.assignment.map((a) => a.length),
        },
      };
    }
    if (l.kernel.name === 's2-elementwise') return core('elementwise', encodeElementwise(node, g, workers, platform.costs.ELEMENT));
    if (l.kernel.name === 's2-conv' || l.kernel.name === 's2-pool') {
      const geo = l.kernel.name === 's2-conv' ? convGeometry(node, g) : poolGeometry(node, g);
      const e = encodeConv(geo, node, workers, { requant: platform.costs.REQUANT, element: platform.costs.ELEMENT, copy: platform.costs.COPY_BYTE });
      return {
        layer: l,
        enc: e.enc,
        summary: {
          kind: geo.pool ? 'maxpool' : 'conv', engine: geo.pool ? 'core' : 'mla', macs: geo.pool ? 0 : geo.N * geo.CO * geo.OH * geo.OW * geo.K,
          tiles: e.tiles, tileShape: e.shape,
          sramBytes: e.sram, estimate: { cycles: e.estimate }, tilesPerWorker: e.perWorker,
        },
      };
    }
    if (l.kernel.name === 's2-move') return core('movement', { ...encodeMovement(node, g, workers, platform.costs.ELEMENT), shape: [] });
    if (l.kernel.name === 's2-reduce') return core('rows', encodeReduce(node, g, workers, { element: platform.costs.ELEMENT, div: platform.costs.DIV }));
    if (l.kernel.name === 's2-indexed') return core('movement', encodeIndexed(node, g, workers, { element: platform.costs.ELEMENT, copyByte: platform.costs.COPY_BYTE }));
    if (l.kernel.name === 's2-rows') {
      return core('rows', encodeRows(node, g, workers, { softmax: platform.costs.SOFTMAX_ELEM, norm: platform.costs.NORM_ELEM, div: platform.costs.DIV, tap: platform.costs.POOL_TAP }));
    }
  } catch (e) {
    throw e instanceof GenError ? e.withSite(site) : e;
  }
  throw new GenError('internal', `no spinnaker2 layer type '${l.kernel.name}'`, site);
}

function emit({ graph, layers, plan: data, platform }: { graph: Graph; layers: Layer[]; plan: MemoryPlan; platform: Platform }): Emitted {
  // The scheduler's loop appends the ArgMax only; a graph given a sampler (gen firmware --sampling) is refused.
  if (stepRoles(graph)?.sampling) throw new GenError('input', '--sampling: this platform\'s generation loop chooses by argmax only (sample with gen run --host-loop)', { file: graph.source });
  const dram = platform.memories[0];
  const pes = platform.cores;
  const planned = layers.filter((l) => l.kernel !== 'alias').map((l) => planLayer(l, graph, platform, pes - 1));
  const budgets = checkPeImages(platform, peBuffers(planned, pes));
  const offsetOf = (name: string): number => {
    const p = data.placements.get(name);
    if (!p) throw new GenError('internal', `tensor '${name}' has no place in data memory`);
    return p.offset;
  };
  const io = (names: string[]) => names.map((name) => ({ name, bytes: data.placements.get(name)!.bytes }));
  const image = buildImage({
    dramBase: dram.chipBase, dramBytes: dram.size, pes,
    layers: planned.map((p) => ({ id: p.layer.id, enc: p.enc })),
    dataBytes: data.used, tensorOffset: offsetOf, inputs: io(graph.inputs), outputs: io(graph.outputs),
    generation: generationOf(graph),
  });
  // The plan was made relative to data memory; the manifest gives absolute addresses.
  const dataOffset = image.data.address - dram.chipBase;
  const placed: MemoryPlan = {
    ...data,
    arenaOffset: dataOffset,
    placements: new Map([...data.placements].map(([k, p]) => [k, { ...p, offset: p.offset + dataOffset }])),
  };
  const symbols = new SymbolTable();
  const inData = (names: string[]): string[] => [...new Set(names.filter((n) => data.placements.has(n)))];
  const kernels = planned.map((p) => ({
    id: p.layer.id,
    kernel: (p.layer.kernel as { name: string }).name,
    macs: p.summary.macs,
    reads: inData(p.layer.node.inputs),
    writes: inData(p.layer.node.outputs),
  }));
  const manifest = buildManifest({
    graph, layers, plan: placed, platform, kernels, symbolOf: (t) => symbols.symbol(t, 't_'), version: GENERATOR_VERSION,
  });
  // Without the scheduler's loop (generationOf) the runtime must drive the steps from the host, one start per token:
  // with `control` in the manifest, `gen run --prompt` would read tokens the firmware never wrote.
  if (manifest.generation?.control && !generationOf(graph)) delete manifest.generation.control;
  const summaries = new Map(planned.map((p) => [p.layer.id, p.summary]));
  for (const l of manifest.layers) if (summaries.has(l.id)) l.engine = summaries.get(l.id)!.engine;
  const files = new Map<string, string | Uint8Array>();
  copyDir(join(TEMPLATES, 'spinnaker2', 'as'), 'as', files);
  copyDir(join(TEMPLATES, 'spinnaker2', 'c'), 'c', files);
  copyDir(join(RUNTIME, 'c', 'spinnaker2'), 'c/hal/spinnaker2', files);
  // The host test driver's raw input/output file handling, shared with the core platforms' (runtime/c/host).
  files.set('c/hal/host/fg_raw_io.h', readFileSync(join(RUNTIME, 'c', 'host', 'fg_raw_io.h')));
  if (budgets) addArmBuild(files, budgets, graph.name);
  for (const f of ['chip.ts', 'memory.ts', 'cost.ts', 'support.ts']) files.set(`as/hal/${f}`, readFileSync(join(RUNTIME, 'as', f)));
  files.set('memory/dram.bin', image.bytes);
  files.set('firmware.json', `${JSON.stringify({ ...manifest, spinnaker2: describeImage(image, planned.map((p) => p.summary)) }, null, 2)}\n`);
  return { files, manifest };
}

/** What each role keeps behind its image at run time: a worker the largest layer's buffers, the scheduler its blocks. */
function peBuffers(planned: Planned[], pes: number): Record<string, PeBuffers> {
  const worker: PeBuffers = { end: 0, what: 'no layer buffers' };
  for (const p of planned) {
    if (p.summary.sramBytes <= worker.end) continue;
    worker.end = p.summary.sramBytes;
    worker.what = `the buffers of layer '${p.layer.node.name}' up to ${p.summary.sramBytes}`;
  }
  const sched = SRAM.schedBlock + 4 * (pes - 1);
  return { worker, scheduler: { end: sched, what: `the layer header and a scheduler block of ${pes - 1} workers up to ${sched}` } };
}

/**
 * A decoder step graph with a control block and the cores' next token (ir/state.ts): the scheduler loops over its
 * steps as the core platforms' network.ts does (token t at position t, the next token appended after the prompt).
 * The loop writes ids and position as int32 and reads the next token of any 1- to 4-byte type.
 */
function generationOf(g: Graph) {
  const roles = stepRoles(g);
  if (!roles?.control || !roles.next) return undefined;
  if ([roles.ids, roles.position, roles.control].some((n) => tensorOf(g, n).dtype !== 'int32')) return undefined;
  const nextType = TYPE_CODES[tensorOf(g, roles.next).dtype];
  if (nextType === undefined) return undefined;
  return { control: roles.control, ids: roles.ids, position: roles.position, next: roles.next, nextType, context: roles.context };
}

/** Element type codes of the image (the elementwise layer's). */
const TYPE_CODES: Partial<Record<string, number>> = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5 };

/** Copies a folder of fixed files; templates (*.mustache) are rendered by their users instead. */
function copyDir(src: string, dest: string, files: Map<string, string | Uint8Array>): void {
  if (!existsSync(src)) return;
  for (const e of readdirSync(src, { withFileTypes: true })) {
    if (e.isDirectory()) copyDir(join(src, e.name), `${dest}/${e.name}`, files);
    else if (!e.name.endsWith('.mustache')) files.set(`${dest}/${e.name}`, readFileSync(join(src, e.name)));
  }
}

/** The chip with `pes` PEs (2..152): its memories and the workers the cost model may use. */
export const spinnaker2Backend: PlatformBackend = { plan, emit };

/**
 * The scheduler's generation loop runs a step's layers only: a model with a prompt pass (gen quantize --prompt-graph)
 * is refused before its layers are chosen (the pass's constant-position cache writes have no indexed layer here).
 */
export function refusePromptPass(graph: Graph): Graph {
  if (stepRoles(graph)?.prompt) {
    throw new GenError('unsupported', 'a step with a prompt pass (gen quantize --prompt-graph): this platform\'s generation loop runs steps only; quantize the step without --prompt-graph', { file: graph.source });
  }
  return graph;
}
