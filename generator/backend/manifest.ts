import type { Graph } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import type { Layer } from '../frontend/select.js';
import type { MemoryPlan } from '../midend/plan.js';
import type { Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';

/** out/firmware.json: what the runtime, tests and users read about a generated firmware (docs/firmware-abi.md). */
export interface ManifestTensor {
  name: string;
  symbol: string;
  role: 'input' | 'output' | 'const' | 'activation';
  dtype: string;
  shape: number[];
  region: string;
  offset: number;
  address: number;
  bytes: number;
}

export interface Manifest {
  model: string;
  source: string;
  platform: string;
  generator: string;
  clockHz: number;
  cores: number;
  regions: { name: string; address: number; size: number }[];
  memory: { region: string; arenaOffset: number; arenaSize: number; used: number; lowerBound: number };
  images: { region: string; file: string; offset: number }[];
  inputs: string[];
  outputs: string[];
  tensors: ManifestTensor[];
  /** Peak int8 MACs per cycle of one core of the kernel engine (the profile's utilisation is measured against it). */
  peakMacsPerCoreCycle: number;
  layers: ManifestLayer[];
}

export interface ManifestLayer {
  id: number;
  name: string;
  op: string;
  nodes: string[];
  kernel: string;
  engine: string;
  macs: number;
  /** Tensors the layer's kernel reads and writes (each once, in argument order); empty for an alias. */
  reads: string[];
  writes: string[];
}

export function buildManifest(a: {
  graph: Graph;
  layers: Layer[];
  plan: MemoryPlan;
  platform: Platform;
  kernels: { id: number; kernel: string; macs: number; reads: string[]; writes: string[] }[];
  symbolOf: (t: string) => string;
  version: string;
}): Manifest {
  const { graph, plan, platform } = a;
  const home = memoryOf(platform, plan.region);
  const roleOf = (name: string): ManifestTensor['role'] => {
    if (graph.inputs.includes(name)) return 'input';
    if (graph.outputs.includes(name)) return 'output';
    return plan.placements.get(name)!.kind === 'const' ? 'const' : 'activation';
  };
  const byId = new Map(a.kernels.map((k) => [k.id, k]));
  return {
    model: graph.name,
    source: graph.source,
    platform: platform.name,
    generator: `firmgen ${a.version}`,
    clockHz: platform.clockHz,
    cores: platform.cores,
    peakMacsPerCoreCycle: platform.peakMacsPerCoreCycle,
    regions: platform.memories.map((m) => ({ name: m.name, address: m.chipBase, size: m.size })),
    memory: { region: plan.region, arenaOffset: plan.arenaOffset, arenaSize: plan.arenaSize, used: plan.used, lowerBound: plan.lowerBound },
    images: [{ region: plan.region, file: `memory/${plan.region.toLowerCase()}.bin`, offset: 0 }],
    inputs: [...graph.inputs],
    outputs: [...graph.outputs],
    tensors: [...plan.placements].map(([name, p]) => {
      const t = tensorOf(graph, name);
      return {
        name,
        symbol: a.symbolOf(name),
        role: roleOf(name),
        dtype: t.dtype,
        shape: [...t.shape],
        region: p.region,
        offset: p.offset,
        address: home.chipBase + p.offset,
        bytes: p.bytes,
      };
    }),
    layers: a.layers.map((l) => ({
      id: l.id,
      name: l.node.name,
      op: l.node.op,
      nodes: l.node.fusedFrom ?? [l.node.name],
      kernel: l.kernel === 'alias' ? 'alias' : l.kernel.name,
      engine: l.kernel === 'alias' ? 'none' : 'cores',
      macs: byId.get(l.id)?.macs ?? 0,
      reads: byId.get(l.id)?.reads ?? [],
      writes: byId.get(l.id)?.writes ?? [],
    })),
  };
}
