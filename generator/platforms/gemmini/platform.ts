import { foldBiasAdd } from '../../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../../frontend/passes/fuse-elementwise.js';
import { lowerQuantizedPass } from '../../frontend/passes/lower-quantized.js';
import { cv32e40pDivision, SCALAR_CORE_COSTS } from '../generic/platform.js';
import { CORE_KERNELS } from '../kernel-table.js';
import type { Platform } from '../types.js';
import { gemminiConvKernel } from './conv-kernel.js';
import { oneOf } from '../options.js';
import { GEMMINI_OPTIONS } from './description.js';
import { keepNhwc } from './keep-nhwc.js';
import { offsetPools } from './offset-pools.js';
import { lowerForArray, type DepthwiseOn } from './lower-array.js';
import { gemminiMatmulKernel } from './matmul-kernel.js';
import { gemminiMaxPoolArrayKernel, gemminiMaxPoolNhwcKernel } from './maxpool-nhwc-kernel.js';

function passes(depthwiseOn: DepthwiseOn, poolsOnArray: boolean): Platform['passes'] {
  const front: Platform['passes'] = [lowerQuantizedPass, foldTrueIntegerDivPass, foldBiasAdd, (g) => lowerForArray(g, depthwiseOn), fuseElementwise, keepNhwc];
  return poolsOnArray ? [...front, offsetPools] : front;
}

/**
 * Gemmini's default int8 configuration (HARDWARE.md "Gemmini"; the emulator's model: docs/gemmini.md): a 16x16
 * systolic array beside a Rocket-class host core, both on the host's DRAM. Matrix products of int8 operands run on
 * the array (matmul-kernel.ts, loop_ws); everything else, requantization included, on the host core with the shared
 * kernels. The requantization stays on the host because the array's output scale is a float32 multiply with
 * round-half-even (SEMANTICS.md "Gemmini") where the integer dialect divides by a power of two after an integer
 * multiply: they agree only in special cases, so the array hands out int32 accumulators and the host core requantizes
 * them exactly (the RequantShift is not fused into the product: no fuseRequant pass).
 */
export const gemmini: Platform = {
  name: 'gemmini',
  emulatorId: 3,
  // ASSUMPTION: 1 GHz, the clock of Chipyard's Gemmini SoC configurations; the emulator counts cycles, not seconds.
  clockHz: 1_000_000_000,
  cores: 1,
  // The array: 16 x 16 multiply-accumulates per cycle (HARDWARE.md); the profile's utilisation is against it.
  peakMacsPerCoreCycle: 256,
  launch: 'call',
  // docs/gemmini.md "Memory": the host's DRAM at 0x8000_0000; ASSUMPTION: 64 MiB modelled.
  memories: [{ name: 'DRAM', chipBase: 0x8000_0000, size: 64 * 1024 * 1024 }],
  home: { memory: 'DRAM', offset: 0, size: 64 * 1024 * 1024 },
  // The DMA splits its requests at 64-byte boundaries (Configs.scala dma_maxbytes 64; docs/gemmini.md "Timing",
  // DMA): a row of 64 bytes off that boundary takes two requests, and with 16 in flight the reads are latency-bound, so
  // every tensor starts on one (gemmini.h aligns its matrices the same way: row_align, MAX_BYTES 64).
  tensorAlign: 64,
  passes: passes('cost', true),
  options: GEMMINI_OPTIONS,
  configure(self, given) {
    if (given.depthwiseOn === undefined && given.poolOn === undefined) return self;
    const depthwiseOn = given.depthwiseOn === undefined ? 'cost' : oneOf('--depthwise-on', given.depthwiseOn, ['cost', 'array', 'host'] as const);
    const poolsOnArray = given.poolOn === undefined || oneOf('--pool-on', given.poolOn, ['array', 'host'] as const) === 'array';
    const kernels = poolsOnArray ? self.kernels : self.kernels.filter((k) => k !== gemminiMaxPoolArrayKernel);
    return { ...self, passes: passes(depthwiseOn, poolsOnArray), kernels };
  },
  kernels: [gemminiConvKernel, gemminiMatmulKernel, gemminiMaxPoolArrayKernel, gemminiMaxPoolNhwcKernel, ...CORE_KERNELS],
  // The host core is priced as the generic scalar core (docs/gemmini.md: an in-order Rocket core; docs/timing.md).
  costs: SCALAR_CORE_COSTS,
  divisionCycles: cv32e40pDivision,
  // The C image: code, data, stack and arena in the DRAM; the rv32 build (host and qemu) runs the products in C.
  image: {
    memory: 'DRAM', runtimeBytes: 16 * 1024, stackBytes: 8 * 1024, tileReserved: 0, tileLoadImage: false,
    boardFiles: [],
    rv32: { DRAM: 0x8000_0000 },
  },
};
