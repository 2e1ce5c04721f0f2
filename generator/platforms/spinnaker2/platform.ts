import { foldBiasAdd } from '../../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../../frontend/passes/fuse-elementwise.js';
import { MAX_LEAVES } from './elementwise.js';
import { ceilPoolToPads } from './ceil-pool.js';
import { fuseRequant } from '../../frontend/passes/fuse-requant.js';
import { lowerQuantizedPass } from '../../frontend/passes/lower-quantized.js';
import { wholeNumber } from '../options.js';
import type { Platform } from '../types.js';
import { refusePromptPass, spinnaker2Backend } from './backend.js';
import { fuseRequantGemm } from './fuse-requant-gemm.js';
import { transposeReductions } from './transpose-reductions.js';
import { lowerWideMaxPool } from './wide-maxpool.js';
import { S2_KINDS } from './kinds.js';
import { S2 } from './timing.js';
import { SPINNAKER2_OPTIONS } from './description.js';

import { spinnaker2Memories } from './memories.js';
import { SRAM } from './layout.js';

/** Both roles' images include these: the entry (one role by -DS2_ROLE_*) and the helpers inlined everywhere. */
const COMMON = ['main_board.c', 's2_firmware.h'];

const MiB = 1024 * 1024;

/**
 * SpiNNaker2 (HARDWARE.md): 152 ARM Cortex-M4F PEs at 300 MHz with 128 KiB SRAM and a 16 x 4 int8 MAC array each,
 * over LPDDR4 DRAM. One scheduler PE walks a chain of layer configurations in DRAM and wakes worker PEs, which fetch
 * their tiles by DMA. The firmware is the same for every model; the generator's work is the DRAM image.
 */
export const spinnaker2: Platform = {
  name: 'spinnaker2',
  emulatorId: 2,
  clockHz: S2.clockHz,
  cores: S2.pes,
  // HARDWARE.md "MLA": 64 int8 MACs per cycle per PE.
  peakMacsPerCoreCycle: 64,
  launch: 'call',
  memories: spinnaker2Memories(S2.pes),
  home: { memory: 'DRAM', offset: 0, size: 64 * MiB },
  // fuseRequantGemm first (any broadcast parameters), then the core platforms' fusion for Conv (per channel);
  // reductions over scattered axes get their reduced axes moved last (transpose-reductions.ts); MaxPools of 16/32-bit
  // values become slices and elementwise maxima (wide-maxpool.ts), after the fusion so its chunks stay apart.
  passes: [refusePromptPass, lowerQuantizedPass, foldTrueIntegerDivPass, foldBiasAdd, fuseRequantGemm, fuseRequant, (g) => fuseElementwise(g, MAX_LEAVES), transposeReductions, ceilPoolToPads, lowerWideMaxPool],
  kernels: S2_KINDS,
  // The emulator's Cortex-M4 cost table (emulator/assembly/cost.ts spinnaker2Costs; docs/timing.md), kept equal by
  // test/platforms/emulator-agrees.test.ts.
  costs: {
    MAC_CONV: 2.25, MAC_DW: 2.25, MAC_GEMM: 2.25, ELEMENT: 6, MOVE_ELEM: 6, POOL_TAP: 6, REQUANT: 16, COPY_BYTE: 0.625,
    SOFTMAX_ELEM: 26, NORM_ELEM: 21, DIV: 12, CALL: 31, fork: 0, barrier: 0, join: 0,
    // Its own kernels charge neither (the SIMD conv loop and the fused expressions are the cluster cores').
    CONV_UNIT: 0, ELEM_OP: 0, CONV_ROW: 0, GATHER_ROW: 0, REQUANT_WIDE: 0, REQUANT_SPLIT: 0, GEMM_UNIT: 0, POOL_ROW: 0, ROW_WORD: 0, GEMM_BLOCK: 0,
    // Its kernels price their MACs and reductions as MAC_CONV and ELEMENT; the classes of the cores' kernels the same
    // (MAC_GEMM_LONE: MAC_GEMM's count twice, the cores' 4x2 block with one row as both rows).
    MAC_SCALAR: 2.25, REDUCE_ELEM: 6, LOOKUP: 6, MAC_GEMM_SCALAR: 2.25, MAC_GEMM_KDOT: 2.25, MAC_GEMM_LONE: 4.5,
    // A step of the cores' 2x2 pool as its 8 taps (its own pooling rows charge POOL_TAP).
    POOL_PAIR: 48, MAC_GEMM_COL: 2.25, GEMM_COL: 0, CLIP_TAKEN: 0, CLIP_TEST: 0, ELEM_LOAD: 0, CONV_BLOCK: 0, SHARE: 0, REDUCE_OUT: 0, LANE_SIGN: 0, ROW_SIGN: 0, CONV_ACC: 0, TILE: 0, MISALIGNED: 0, MAC_GEMM_TAIL: 2.25, LAYER: 0, GEMM_BT_QUAD: 0, SOFTMAX_WIDE: 0, SOFTMAX_SUM_WIDE: 0, SOFTMAX_RECIP: 0, GEMM_SPLIT: 0, TRANSFER: 0, ROW_EDGE: 0, ROW_EDGE_STRIDED: 0, ROW_LOOP: 0, NORM_ROW: 0, ELEM_RUN: 0, NORM_SUM_WIDE: 0, CODE_BYTE: 0, CODE_LAYER: 0, CODE_TILES: 0, CODE_SHAPE: 0, CODE_NEXT: 0, SOFTMAX_ZDIV: 0, NPU_JOB: 0, NPU_TILE: 0, CODE_RUN: 0, SKELETON: 0, DW_BAND: 0, DW_ROW: 0, DW_WORD: 0, DW_LONE: 0, GATHER_WORD: 0, ROW_OUT: 16, CONV_OUT: 16, GATHER_QUAD: 0,
    // The QDQ row ops (no kernel here): an iSoftmax or iLayerNorm entry and a division.
    TSOFTMAX_ELEM: 26 + 12, QNORM_ROW: 0, QNORM_ELEM: 21 + 12,
  },
  backend: spinnaker2Backend,
  options: SPINNAKER2_OPTIONS,
  configure(self, given) {
    if (given.pes === undefined) return self;
    const pes = wholeNumber('--pes', given.pes, 2, S2.pes, `SpiNNaker2 has 2 to ${S2.pes} PEs (one scheduler, the rest workers)`);
    return { ...self, cores: pes, memories: spinnaker2Memories(pes) };
  },
  // The ARM build (make arm; docs/c-builds.md): an image per role in the first SRAM.reserved bytes of a PE's SRAM,
  // checked at generation by pe-image.ts. runtimeBytes: the board HAL, startup and vectors, newlib-nano's memcpy and
  // memset and libgcc's 64-bit division measure 1.9 KiB with arm-none-eabi-gcc 12 -O2. stackBytes: gcc -fstack-usage
  // gives 0.6 KiB for the deepest chain (main, worker_on_irq, elementwise_run, memcpy) plus 0.1 KiB for an
  // interrupt's frame with the FPU state; 2 KiB leaves room.
  image: {
    memory: 'PE0', runtimeBytes: 3072, stackBytes: 2048, tileReserved: 0, tileLoadImage: false, boardFiles: [],
    pe: {
      window: SRAM.reserved,
      roles: [
        { name: 'scheduler', elf: 's2_scheduler.elf', sources: ['scheduler.c', ...COMMON] },
        { name: 'worker', elf: 's2_worker.elf', sources: ['worker.c', 'gemm.c', 'elementwise.c', 'rows.c', 'im2col.c', 'movement.c', 'indexed.c', ...COMMON] },
      ],
    },
  },
};
