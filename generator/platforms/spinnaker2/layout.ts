/**
 * The SpiNNaker2 DRAM image format (version 1) and the PE SRAM map: every offset the generator writes and the
 * firmware reads. The firmware's copy is firmware-templates/spinnaker2/{as/layout.ts,c/s2_layout.h}; a test keeps the
 * three equal. Byte-exact description with pictures: docs/spinnaker2.md. All words are little-endian u32 (i32 where
 * marked), all addresses DRAM chip addresses.
 */

/** "FGS2" as bytes in memory. */
export const MAGIC = 0x3253_4746;
export const VERSION = 1;

/** Area 1, global configuration, at the DRAM base: a 64-byte header, the worker coordinates, the I/O table. */
export const GLOBAL = {
  magic: 0,
  version: 4,
  /** Coordinate of the scheduler PE (coordinate(): QPE << 8 | PE in its QPE). */
  scheduler: 8,
  /** Worker PEs W, and the address of their W coordinates. */
  workers: 12,
  coords: 16,
  /** Compute layers L (the finish layer not counted) and the address of the first layer configuration. */
  layers: 20,
  firstLayer: 24,
  /** Address of the time-measurement area and the bytes of one layer's block in it. */
  timeArea: 28,
  timeLayerBytes: 32,
  /** Data memory: address and bytes. */
  dataBase: 36,
  dataBytes: 40,
  /** Graph inputs and outputs, and the address of their table: (address, bytes) per input, then per output. */
  inputs: 44,
  outputs: 48,
  ioTable: 52,
  /** Bytes of the whole image file (configuration areas; data memory is not part of the file). */
  imageBytes: 56,
  /** Address of the generation block (below), 0 when the scheduler runs the chain once. */
  generation: 60,
  bytes: 64,
} as const;

/**
 * The generation block of a decoder step graph (docs/llm.md): the scheduler's own loop over the steps, as the core
 * platforms' network.ts runs it. Addresses of the control block ([steps, prompt length, tokens...], int32), of the
 * token id and position inputs (int32), of the ArgMax output and its type code, and the context.
 */
export const GENERATION = { control: 0, ids: 4, position: 8, next: 12, nextType: 16, context: 20, bytes: 24 } as const;

/**
 * Area 2, time measurement: a 16-byte scheduler record, then one block per layer (compute layers in chain order, then
 * the finish layer) of (1 + W) slots of 16 bytes: slot 0 the scheduler, slot 1 + j worker j of the layer. Each slot is
 * four u32 cycle stamps of the PE's 32-bit cycle counter (below).
 */
export const TIME_SLOT = 16;
/** The scheduler record: boot (first instruction), first layer begins, finish layer begins, end (all workers stopped). */
export const TIME_RUN = { boot: 0, first: 4, finish: 8, end: 12 } as const;
/** Scheduler slot of a layer: begin (before its header is fetched), workers woken, all completions in, end. */
export const TIME_SCHED = { begin: 0, woken: 4, done: 8, end: 12 } as const;
/** Worker slot: interrupt taken, configuration loaded, tiles done (results in DRAM), completion sent. */
export const TIME_WORKER = { wake: 0, configured: 4, computed: 8, signal: 12 } as const;

/** Area 3, a layer configuration: this header, then parameters, scheduler block, worker blocks, constants. */
export const HEADER = {
  type: 0,
  workers: 4,
  /** Address of the next layer configuration (0 after the finish layer). */
  next: 8,
  /** The layer's id in firmware.json (0xFFFF_FFFF for the finish layer). */
  id: 12,
  /** Address of this layer's block in the time-measurement area. */
  time: 16,
  /** Bytes of the parameter block P (right after the header; every worker reads it). */
  paramBytes: 20,
  /** Bytes of the scheduler block S (after the parameters): one coordinate per worker of the layer. */
  schedBytes: 24,
  /** Bytes of one worker block B (w of them after the scheduler block, worker j at + j * B). */
  workerBytes: 28,
  bytes: 32,
} as const;

export const LAYER_FINISH = 0;
export const LAYER_GEMM = 1;
export const LAYER_ELEMENTWISE = 2;
export const LAYER_ROWS = 3;
export const LAYER_CONV = 4;
export const LAYER_MOVE = 5;
/** Copies whose place is read at run time: Gather by run-time indices, CacheWrite at a run-time position (indexed.ts). */
export const LAYER_INDEXED = 6;

/** A DMA descriptor in a worker block: DRAM address, SRAM offset (from the PE's SRAM base), bytes, rows (0: 1-D). */
export const DMA = { dram: 0, sram: 4, bytes: 8, rowLength: 12, rowStride: 16, size: 20 } as const;

/**
 * Transfers a kernel issues before it waits for them: a PE keeps at most two batches in flight (the write-backs of
 * two tiles, or one tile's in batches). ASSUMPTION: HARDWARE.md gives no depth for the PE DMA's command queue; the
 * emulator holds 2048 transfers issued and not waited for (emulator/assembly/pe-dma.ts) and faults beyond, so two
 * batches and a tile's input stay well under it.
 */
export const DMA_BATCH = 512;

/** A worker block starts with its tile count; the tile descriptors follow at + 8. */
export const WORKER = { tiles: 0, first: 8 } as const;

/**
 * PE SRAM map (offsets from the PE's SRAM base). ASSUMPTION: the firmware's code, stack and static data fit in the
 * first 32 KiB of the 128 KiB (HARDWARE.md "PE memory": code + data share the SRAM); the rest is the firmware's
 * buffer area: time stamps, the layer configuration, then tile buffers from the offset the parameters give.
 */
export const SRAM = {
  bytes: 128 * 1024,
  reserved: 32 * 1024,
  /** The PE's slot of the current layer (four stamps), and the scheduler's run record. */
  stamps: 0x8000,
  runStamps: 0x8010,
  /** Worker: the layer header, then the parameters, then its worker block (4-byte aligned). */
  header: 0x8020,
  params: 0x8040,
  /** Scheduler: the global configuration's header, then the layer header and its scheduler block. */
  global: 0x8020,
  schedHeader: 0x8080,
  /** Scheduler: the generation block, then an 8-byte scratch for the words it moves. */
  generation: 0x8060,
  genScratch: 0x8078,
  schedBlock: 0x80a0,
} as const;

/** The interrupt key a worker gets: the scheduler's PE number in bits 16..31, its index j in the layer in 0..15. */
export function irqKey(schedulerPe: number, j: number): number {
  return (schedulerPe << 16) | j;
}

export const align = (n: number, a: number): number => Math.ceil(n / a) * a;

/** SRAM offset of a worker's copy of its worker block. */
export function workerBlockSram(paramBytes: number): number {
  return SRAM.params + align(paramBytes, 4);
}

/** PE number to its coordinate word: QPE index << 8 | PE within the QPE (4 PEs per QPE, HARDWARE.md). */
export function coordinate(pe: number): number {
  return ((pe >> 2) << 8) | (pe & 3);
}

export function peOfCoordinate(c: number): number {
  return ((c >>> 8) << 2) | (c & 3);
}
