import { foldBiasAdd } from '../../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../../frontend/passes/fuse-elementwise.js';
import { fuseRequant } from '../../frontend/passes/fuse-requant.js';
import type { Platform } from '../types.js';
import { spinnaker2Backend } from './backend.js';
import { fuseRequantGemm } from './fuse-requant-gemm.js';
import { S2_KINDS } from './kinds.js';
import { S2 } from './timing.js';

import { spinnaker2Memories } from './memories.js';

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
  // fuseRequantGemm first (any broadcast parameters), then the core platforms' fusion for Conv (per channel).
  passes: [foldTrueIntegerDivPass, foldBiasAdd, fuseRequantGemm, fuseRequant, fuseElementwise],
  kernels: S2_KINDS,
  // The emulator's Cortex-M4 cost table (emulator/assembly/cost.ts spinnaker2Costs; docs/timing.md), kept equal by
  // test/platforms/emulator-agrees.test.ts.
  costs: {
    MAC_CONV: 2.25, MAC_DW: 2.25, MAC_GEMM: 2.25, ELEMENT: 6, REQUANT: 16, COPY_BYTE: 0.625,
    SOFTMAX_ELEM: 26, NORM_ELEM: 21, DIV: 12, CALL: 31, fork: 0, barrier: 0, join: 0,
  },
  backend: spinnaker2Backend,
};
