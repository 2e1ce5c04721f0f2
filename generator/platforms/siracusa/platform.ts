import { CORE_KERNELS } from '../kernel-table.js';
import { boundByPosition } from '../../frontend/passes/bound-by-position.js';
import { CORE_PASSES } from '../passes.js';
import type { Platform } from '../types.js';
import { cv32e40pDivision } from '../generic/platform.js';
import { HAND_COUNTS } from './hand-costs.js';
import { CODE_RATIOS, MEASURED } from './measured-costs.js';
import { nMajorWeights } from '../../frontend/passes/n-major-weights.js';
import { configureSiracusa } from './engines.js';
import { SIRACUSA_OPTIONS } from './description.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Siracusa (../shared/HARDWARE.md): 8-core PULP cluster, L1 TCDM 256 KiB @0x1000_0000, L2 2 MiB @0x1C00_0000
 * (pulp-sdk link script), L3 off-chip HyperRAM (16 MiB class; its chip address is this project's assumption),
 * neural memory MRAM/SRAM 4 MiB each @0x1040_0000 / @0x1080_0000. Clock 360 MHz (Siracusa paper).
 * Untiled: tensors live in L2's shared 1984 KiB; the two 32 KiB private banks at its start are left to the
 * fabric controller's code and stack.
 */
export const siracusa: Platform = {
  name: 'siracusa',
  emulatorId: 1,
  clockHz: 360_000_000,
  cores: 8,
  // HARDWARE.md "int8 kernel throughput": SIMD peak 4 MAC/cycle/core (one pv.sdotsp.b per cycle).
  peakMacsPerCoreCycle: 4,
  launch: 'cluster-fork',
  memories: [
    { name: 'L1', chipBase: 0x1000_0000, size: 256 * KiB, bytesPerCycle: 8 },
    { name: 'L2', chipBase: 0x1C00_0000, size: 2 * MiB },
    { name: 'L3', chipBase: 0x8000_0000, size: 16 * MiB },
    { name: 'NMS_MRAM', chipBase: 0x1040_0000, size: 4 * MiB },
    { name: 'NMS_SRAM', chipBase: 0x1080_0000, size: 4 * MiB },
  ],
  home: { memory: 'L2', offset: 64 * KiB, size: 1984 * KiB },
  passes: [...CORE_PASSES, boundByPosition, nMajorWeights],
  kernels: CORE_KERNELS,
  options: SIRACUSA_OPTIONS,
  configure: configureSiracusa,
  // The emulator's Siracusa cost table: measured on the ISS where the calibration reaches (npm run fit:costs), hand
  // counts elsewhere (docs/timing.md; test/platforms/emulator-agrees.test.ts keeps the two sides equal).
  costs: { ...HAND_COUNTS, ...MEASURED },
  divisionCycles: cv32e40pDivision,
  codeRatios: CODE_RATIOS,
  // Cluster DMA (mchan v7): 8 bytes/cycle each way, ~14 cycles latency, 17-bit length (HARDWARE.md).
  tiling: { memory: 'L1', dma: { bytesPerCycle: 8, latency: 14, maxTransfer: 131071 } },
  // HyperRAM DMA to L3 (emulator/assembly/chips/siracusa.ts siracusaL3Dma: the figures, their sources and
  // assumptions; test/platforms keeps the two equal).
  far: { memory: 'L3', setup: 50, burstLatency: 33, burstBytes: 1024, bytesNum: 332, bytesDen: 360 },
  // The C image on the board (pulp-sdk chips/siracusa/link.ld): the fabric controller's data and code fill the two
  // private L2 banks (64 KiB) and spill into the shared banks when larger; the arena is PI_L2 data (.l2_data, from
  // 0x1C01_0000); L1 data (the tile buffers, .bss_l1) also takes its size in L2 as a load image. runtimeBytes is an
  // assumption, not a measurement (no PULP toolchain here): pulpos kernel, cluster driver, minimal libc and hostfs
  // with the 2 KiB FC stack. L1 keeps 12 KiB for the cluster stacks (main_pulp.c: 4 KiB for core 0, 1 KiB for each
  // of the 7 others) and the SDK's own L1 data. The rv32 build (qemu virt) places L2 and L1 at the start of its RAM.
  image: {
    memory: 'L2', runtimeBytes: 32 * KiB, stackBytes: 8 * KiB, tileReserved: 12 * KiB, tileLoadImage: true,
    // The cluster cores and the fabric controller are CV32E40P-class RI5CY cores with XpulpV2 (HARDWARE.md).
    xpulp: true,
    // `gen run --on iss`: the 8 cluster cores and the fabric controller as harts (runtime/c/siracusa/hal_iss.c).
    issCluster: {
      hal: 'siracusa/hal_iss.c', cores: 8, l1: 'L1', l2: 'L2', devices: ['siracusa/neureka_iss.c', 'siracusa/l3_iss.c'],
      // The cluster's peripherals at their chip addresses (hal_iss.c, neureka_iss.c, l3_iss.c use the same): event
      // unit and mchan (pulp-sdk archi/chips/siracusa memory map), N-EUREKA (HARDWARE.md), and the HyperRAM DMA,
      // whose register block and address are firmgen's own (HARDWARE.md gives none; docs/iss.md).
      mmio: [
        { kind: 'event-unit', name: 'event unit', base: 0x1020_4000, size: 0x400 },
        { kind: 'cluster-dma', name: 'cluster DMA', base: 0x1020_4400, size: 0x400 },
        { kind: 'npu', name: 'N-EUREKA', base: 0x1020_1000, size: 0x400 },
        { kind: 'far-dma', name: 'HyperRAM DMA', base: 0x1a10_2000, size: 0x100 },
      ],
      far: 'L3',
      // .fg_nms_mram and .fg_nms_sram of the rv32 link script (link_rv32.ld), 4 MiB each.
      neural: { mram: 0x8400_0000, sram: 0x8440_0000, size: 0x40_0000 },
    },
    boardFiles: ['Makefile.pulp', 'CMakeLists.txt'],
    rv32: { L2: 0x8000_0000, L1: 0x8020_0000, L3: 0x8480_0000 },
  },
};
