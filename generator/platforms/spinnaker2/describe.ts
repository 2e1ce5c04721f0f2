import type { DramImage } from './image.js';
import { GLOBAL, HEADER, LAYER_ELEMENTWISE, LAYER_FINISH, LAYER_GEMM, LAYER_ROWS, LAYER_CONV, LAYER_MOVE, MAGIC, TIME_RUN, TIME_SCHED, TIME_SLOT, TIME_WORKER, VERSION } from './layout.js';

/** What the generator decided for one layer, for firmware.json and the profile. */
export interface LayerSummary {
  kind: 'gemm' | 'elementwise' | 'rows' | 'conv' | 'maxpool' | 'movement';
  engine: string;
  macs: number;
  tiles: number;
  tileShape: number[];
  tilesPerWorker: number[];
  /** End of the layer's buffers in a worker's SRAM (offset from its base; at most 128 KiB). */
  sramBytes: number;
  estimate: Record<string, number>;
}

const TYPE_NAMES: Record<number, string> = { [LAYER_FINISH]: 'finish', [LAYER_GEMM]: 'gemm', [LAYER_ELEMENTWISE]: 'elementwise', [LAYER_ROWS]: 'rows', [LAYER_CONV]: 'conv', [LAYER_MOVE]: 'movement' };

const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;

/**
 * firmware.json's `spinnaker2` section: the DRAM image byte for byte. Every area with its address and size, the
 * field offsets of the fixed structures (so a reader needs nothing else), and per layer where its header, parameter
 * block, scheduler block, worker blocks and constants are. docs/spinnaker2.md explains the fields.
 */
export function describeImage(img: DramImage, summaries: LayerSummary[]): Record<string, unknown> {
  return {
    format: { magic: hex(MAGIC), version: VERSION, endianness: 'little', word: 'u32', doc: 'docs/spinnaker2.md' },
    image: { file: 'memory/dram.bin', bytes: img.bytes.length },
    areas: {
      global: { address: img.global.address, bytes: img.global.bytes, fields: GLOBAL },
      time: {
        address: img.time.address, bytes: img.time.bytes, slotBytes: TIME_SLOT, run: img.time.run,
        layerBlockBytes: img.time.layerBytes,
        stamps: { run: Object.keys(TIME_RUN), scheduler: Object.keys(TIME_SCHED), worker: Object.keys(TIME_WORKER) },
        counter: 'the PE cycle counter, 32 bits, 300 MHz',
      },
      layers: { address: img.chain.address, bytes: img.chain.bytes, header: HEADER },
      data: { address: img.data.address, bytes: img.data.bytes },
    },
    io: img.io,
    layers: img.layers.map((l, i) => ({
      id: l.id,
      type: TYPE_NAMES[l.type] ?? String(l.type),
      typeId: l.type,
      workers: l.workers,
      address: l.header,
      bytes: l.bytes,
      next: l.next,
      time: l.time,
      params: l.params,
      scheduler: l.scheduler,
      workerBlocks: l.workerBlocks,
      constants: l.constants,
      ...(i < summaries.length ? { plan: summaries[i] } : {}),
    })),
  };
}
