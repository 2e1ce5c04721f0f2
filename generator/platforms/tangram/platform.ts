import { GenError } from '../../errors.js';
import { cv32e40pDivision, SCALAR_CORE_COSTS } from '../generic/platform.js';
import { CORE_KERNELS } from '../kernel-table.js';
import { CORE_PASSES } from '../passes.js';
import { oneOf, wholeNumber } from '../options.js';
import type { Layer } from '../../frontend/select.js';
import type { Platform } from '../types.js';
import { readTangramConfig } from './config-file.js';
import { dataflowData, dataflowPicture } from './describe.js';
import type { Graph } from '../../ir/graph.js';
import { graphDataflow, type GraphDataflow } from './graph-segments.js';
import { PROGRAM_BUDGET_BYTES, type SegmentOf, tangramEngineKernels } from './engine-kernel.js';
import { tangramElementwiseKernel } from './elementwise-kernel.js';
import { engineCount, pesPerEngine, TANGRAM_DEFAULT, type TangramHardware } from './hardware.js';
import type { Objective } from './partition.js';
import { DEFAULT_OBJECTIVE, MAX_BATCH, OBJECTIVES, tangramOptions } from './description.js';
import type { Strategy } from './segment.js';


/**
 * The Tangram-style tiled accelerator (docs/tangram.md). What a generation gives today:
 *  - the dataflow: the model's layers (from-graph.ts) searched over the engine grid with buffer sharing and
 *    alternate-loop pipelining (search.ts), written to firmware.json (`platformData`) and dataflow.txt (a picture of
 *    the grid per segment) with per-layer time and energy split by level;
 *  - the firmware: 8-bit Conv, Gemm/MatMul and MaxPool layers as per-engine programs (engine-kernel.ts, programs.ts)
 *    that the emulator's engine model runs, computing them exactly and timing engines, NoC and DRAM channels; every
 *    other layer (requantization, ReLU, Add, and what the engines do not take) on the chip's control core
 *    with the shared kernels, exact (SEMANTICS.md), except the element-wise layers inside a pipelined segment
 *    (elementwise-kernel.ts). A pipelined segment of the searched dataflow runs as one engine
 *    program at its first layer (graph-segments.ts, segment-programs.ts), its tensors kept apart by the memory plan
 *    (layerGroups); every other engine layer runs alone.
 */
function tangramPlatform(hw: TangramHardware, strategy: Strategy, batch: number): Platform {
  const programBytes = new Map<string, number>();
  // One search per lowered graph: the kernels, the memory plan and firmware.json read the same dataflow.
  const dataflows = new WeakMap<Graph, GraphDataflow>();
  const segmentOf: SegmentOf = (g, node) => dataflowOf(g).of.get(node.name);
  const dataflowOf = (g: Graph): GraphDataflow => {
    let d = dataflows.get(g);
    if (!d) {
      try {
        d = graphDataflow(g, hw, strategy, batch);
      } catch (e) {
        throw new GenError('capacity', `no Tangram dataflow fits ${engineCount(hw)} engines of ${hw.bufferBytes} bytes: ${(e as Error).message}`);
      }
      dataflows.set(g, d);
    }
    return d;
  };
  return {
    name: 'tangram',
    emulatorId: 4,
    clockHz: hw.clockHz,
    cores: 1,
    // The engines' PEs: 16x16 engines x 8x8 PEs = 16384 MACs per cycle at the default size (the profile's
    // utilisation of an engine layer is against the whole grid's peak).
    peakMacsPerCoreCycle: engineCount(hw) * pesPerEngine(hw),
    launch: 'call',
    // emulator/assembly/chips/tangram.ts: the DRAM at 0x8000_0000; ASSUMPTION: 64 MiB modelled.
    memories: [{ name: 'DRAM', chipBase: 0x8000_0000, size: 64 * 1024 * 1024 }],
    home: { memory: 'DRAM', offset: 0, size: 64 * 1024 * 1024 },
    // The core passes: a requantization fused into its Conv/Gemm runs on the engines too (engine-kernel.ts: exact
    // integer arithmetic on the whole int32 sums); ReLU, Add and unfused requantizations are the control core's.
    passes: CORE_PASSES,
    kernels: [
      ...tangramEngineKernels(hw, strategy.objective, programBytes, segmentOf),
      tangramElementwiseKernel(segmentOf, programBytes),
      ...CORE_KERNELS,
    ],
    layerGroups: (g) => dataflowOf(g).groups,
    // The control core is priced as the generic scalar core (the emulator's genericCosts(false), docs/timing.md).
    costs: SCALAR_CORE_COSTS,
    divisionCycles: cv32e40pDivision,
    image: {
      memory: 'DRAM', runtimeBytes: 16 * 1024, stackBytes: 8 * 1024, tileReserved: 0, tileLoadImage: false,
      boardFiles: [],
      hostModel: {
        define: 'FG_TANGRAM_MODEL', source: 'hal/tangram/tangram_model.c',
        what: 'the host build handing each engine layer\'s per-engine program to a functional C model of the engines (hal/tangram/tangram_model.c): the engine path, checked here',
      },
      rv32: { DRAM: 0x8000_0000 },
    },
    options: tangramOptions(strategy.objective),
    configure(self, given) {
      const nextHw = given.tangramConfig === undefined ? hw : readTangramConfig(String(given.tangramConfig), TANGRAM_DEFAULT);
      const objective: Objective = given.dataflowObjective === undefined ? strategy.objective : oneOf('--dataflow-objective', given.dataflowObjective, OBJECTIVES);
      const nextBatch = given.dataflowBatch === undefined ? batch : wholeNumber('--dataflow-batch', given.dataflowBatch, 1, MAX_BATCH, `the batch is 1..${MAX_BATCH}`);
      return given.tangramConfig === undefined && given.dataflowObjective === undefined && given.dataflowBatch === undefined
        ? self
        : tangramPlatform(nextHw, { ...strategy, objective }, nextBatch);
    },
    annotate({ graph, layers }) {
      checkProgramBudget(layers, programBytes);
      // One generation's sizes: the next generation's kernels fill the map again (a process may generate many models).
      programBytes.clear();
      if (!layers.some((l) => l.kernel !== 'alias')) return { data: { segments: [] }, files: new Map() };
      const { shapes, ids, plan, segments } = dataflowOf(graph);
      // How the firmware runs each segment of more than one layer: as one program, or layer by layer and why.
      const runs = segments.map((s) => (s === undefined ? undefined : typeof s.program === 'string' ? `layer by layer: ${s.program}` : 'one program'));
      return {
        data: { tangram: dataflowData(plan, shapes, ids, hw, strategy, batch, runs), pesPerEngine: pesPerEngine(hw) },
        files: new Map([['dataflow.txt', dataflowPicture(plan, shapes, ids, hw, runs)]]),
      };
    },
  };
}

/** The engine programs of this model's layers fit the firmware's static data, or a one-line error naming the largest. */
function checkProgramBudget(layers: Layer[], programBytes: Map<string, number>): void {
  let total = 0;
  let largest: { node: string; bytes: number } | undefined;
  for (const l of layers) {
    if (l.kernel === 'alias' || !l.kernel.name.startsWith('tangram-')) continue;
    const bytes = programBytes.get(l.node.name) ?? 0;
    total += bytes;
    if (!largest || bytes > largest.bytes) largest = { node: l.node.name, bytes };
  }
  if (total > PROGRAM_BUDGET_BYTES && largest) {
    throw new GenError('capacity', `the engine programs take ${Math.ceil(total / 1024)} KiB, more than the firmware's ${PROGRAM_BUDGET_BYTES / 1024} KiB for them (this layer's: ${Math.ceil(largest.bytes / 1024)} KiB); a smaller grid (--tangram-config) makes them smaller`, { node: largest.node });
  }
}

/** Tangram's optimised dataflows (buffer sharing, alternate-loop pipelining), searched for the least energy. */
export const tangram: Platform = tangramPlatform(TANGRAM_DEFAULT, { sharing: true, pipelining: 'allo', objective: DEFAULT_OBJECTIVE }, 1);
