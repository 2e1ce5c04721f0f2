/* The DRAM image format and the PE SRAM map, as the firmware reads them. The generator's copy is
   generator/platforms/spinnaker2/layout.ts (with the meaning of every field); docs/spinnaker2.md draws it. A test
   keeps the copies equal, so every constant here is a plain `#define NAME value`. */
#ifndef S2_LAYOUT_H
#define S2_LAYOUT_H

#define MAGIC 0x32534746u
#define VERSION 1u

/* Global configuration, at the DRAM base. */
#define G_MAGIC 0u
#define G_VERSION 4u
#define G_SCHEDULER 8u
#define G_WORKERS 12u
#define G_COORDS 16u
#define G_LAYERS 20u
#define G_FIRST_LAYER 24u
#define G_TIME_AREA 28u
#define G_TIME_LAYER_BYTES 32u
#define G_GENERATION 60u
#define G_BYTES 64u

/* The generation block (the scheduler's loop over a decoder's steps). */
#define GEN_CONTROL 0u
#define GEN_IDS 4u
#define GEN_POSITION 8u
#define GEN_NEXT 12u
#define GEN_NEXT_TYPE 16u
#define GEN_CONTEXT 20u
#define GEN_BYTES 24u

/* Time stamps: slots of four u32. */
#define TIME_SLOT 16u
#define RUN_BOOT 0u
#define RUN_FIRST 4u
#define RUN_FINISH 8u
#define RUN_END 12u
#define SCHED_BEGIN 0u
#define SCHED_WOKEN 4u
#define SCHED_DONE 8u
#define SCHED_END 12u
#define WORKER_WAKE 0u
#define WORKER_CONFIGURED 4u
#define WORKER_COMPUTED 8u
#define WORKER_SIGNAL 12u

/* Layer header. */
#define H_TYPE 0u
#define H_WORKERS 4u
#define H_NEXT 8u
#define H_ID 12u
#define H_TIME 16u
#define H_PARAM_BYTES 20u
#define H_SCHED_BYTES 24u
#define H_WORKER_BYTES 28u
#define H_BYTES 32u

#define LAYER_FINISH 0u
#define LAYER_GEMM 1u
#define LAYER_ELEMENTWISE 2u
#define LAYER_ROWS 3u
#define LAYER_CONV 4u
#define LAYER_MOVE 5u
#define LAYER_INDEXED 6u

/* DMA descriptor in a worker block. */
#define DMA_DRAM 0u
#define DMA_SRAM 4u
#define DMA_BYTES 8u
#define DMA_ROW_LENGTH 12u
#define DMA_ROW_STRIDE 16u
#define DMA_SIZE 20u
/* Transfers a kernel issues before it waits for them (two batches at most in flight per PE). */
#define DMA_BATCH 512u

#define WORKER_TILES 0u
#define WORKER_FIRST 8u

/* PE SRAM map (offsets from the PE's SRAM base). */
#define SRAM_STAMPS 0x8000u
#define SRAM_RUN_STAMPS 0x8010u
#define SRAM_HEADER 0x8020u
#define SRAM_PARAMS 0x8040u
#define SRAM_GLOBAL 0x8020u
#define SRAM_SCHED_HEADER 0x8080u
#define SRAM_GENERATION 0x8060u
#define SRAM_GEN_SCRATCH 0x8078u
#define SRAM_SCHED_BLOCK 0x80a0u

#endif
