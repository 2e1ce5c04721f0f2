// The DRAM image format and the PE SRAM map, as the firmware reads them. The generator's copy is
// generator/platforms/spinnaker2/layout.ts (with the meaning of every field); docs/spinnaker2.md draws it. A test
// keeps the two equal, so every constant here is a plain `export const NAME: u32 = value;`.

export const MAGIC: u32 = 0x3253_4746;
export const VERSION: u32 = 1;

// Global configuration, at the DRAM base.
export const G_MAGIC: u32 = 0;
export const G_VERSION: u32 = 4;
export const G_SCHEDULER: u32 = 8;
export const G_WORKERS: u32 = 12;
export const G_COORDS: u32 = 16;
export const G_LAYERS: u32 = 20;
export const G_FIRST_LAYER: u32 = 24;
export const G_TIME_AREA: u32 = 28;
export const G_TIME_LAYER_BYTES: u32 = 32;
export const G_GENERATION: u32 = 60;
export const G_BYTES: u32 = 64;

// The generation block (the scheduler's loop over a decoder's steps).
export const GEN_CONTROL: u32 = 0;
export const GEN_IDS: u32 = 4;
export const GEN_POSITION: u32 = 8;
export const GEN_NEXT: u32 = 12;
export const GEN_NEXT_TYPE: u32 = 16;
export const GEN_CONTEXT: u32 = 20;
export const GEN_BYTES: u32 = 24;

// Time stamps: slots of four u32.
export const TIME_SLOT: u32 = 16;
export const RUN_BOOT: u32 = 0;
export const RUN_FIRST: u32 = 4;
export const RUN_FINISH: u32 = 8;
export const RUN_END: u32 = 12;
export const SCHED_BEGIN: u32 = 0;
export const SCHED_WOKEN: u32 = 4;
export const SCHED_DONE: u32 = 8;
export const SCHED_END: u32 = 12;
export const WORKER_WAKE: u32 = 0;
export const WORKER_CONFIGURED: u32 = 4;
export const WORKER_COMPUTED: u32 = 8;
export const WORKER_SIGNAL: u32 = 12;

// Layer header.
export const H_TYPE: u32 = 0;
export const H_WORKERS: u32 = 4;
export const H_NEXT: u32 = 8;
export const H_ID: u32 = 12;
export const H_TIME: u32 = 16;
export const H_PARAM_BYTES: u32 = 20;
export const H_SCHED_BYTES: u32 = 24;
export const H_WORKER_BYTES: u32 = 28;
export const H_BYTES: u32 = 32;

export const LAYER_FINISH: u32 = 0;
export const LAYER_GEMM: u32 = 1;
export const LAYER_ELEMENTWISE: u32 = 2;
export const LAYER_ROWS: u32 = 3;
export const LAYER_CONV: u32 = 4;
export const LAYER_MOVE: u32 = 5;
export const LAYER_INDEXED: u32 = 6;

// DMA descriptor in a worker block.
export const DMA_DRAM: u32 = 0;
export const DMA_SRAM: u32 = 4;
export const DMA_BYTES: u32 = 8;
export const DMA_ROW_LENGTH: u32 = 12;
export const DMA_ROW_STRIDE: u32 = 16;
export const DMA_SIZE: u32 = 20;
// Transfers a kernel issues before it waits for them (two batches at most in flight per PE).
export const DMA_BATCH: u32 = 512;

export const WORKER_TILES: u32 = 0;
export const WORKER_FIRST: u32 = 8;

// PE SRAM map (offsets from the PE's SRAM base).
export const SRAM_STAMPS: u32 = 0x8000;
export const SRAM_RUN_STAMPS: u32 = 0x8010;
export const SRAM_HEADER: u32 = 0x8020;
export const SRAM_PARAMS: u32 = 0x8040;
export const SRAM_GLOBAL: u32 = 0x8020;
export const SRAM_SCHED_HEADER: u32 = 0x8080;
export const SRAM_GENERATION: u32 = 0x8060;
export const SRAM_GEN_SCRATCH: u32 = 0x8078;
export const SRAM_SCHED_BLOCK: u32 = 0x80a0;
