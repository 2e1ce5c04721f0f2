import { attrInt, attrInts } from '../../ir/attrs.js';
import { tensorOf } from '../../ir/graph.js';
import { typeNames } from '../../kernels/common.js';
import type { KernelDef } from '../../kernels/types.js';
import { convTile } from './conv-tiles.js';

/**
 * A 'GemminiConv' (lower-array.ts: NHWC int8 input, HWIO int8 weights, int32 bias per output channel) on the array by
 * loop_conv_ws, one loop per tile (conv-tiles.ts) and batch image. The loop's own moves out go through the output
 * scale (int8 results only), while the host core requantizes exactly from the int32 sums (platform.ts): so the loop
 * runs without bias or output (partial sums stay in the accumulator: gemmini.h's sp_tiled_conv with output NULL), the
 * firmware moves the bias in before a tile's first input-channel step (one int32 row repeated over the pixels, main
 * memory stride 0) and moves the sums out raw (int32, local address bit 29) after its last, or at scale 1.0 into an
 * int8 output whose range fits (exact: every sum is an integer inside int8). With no output the loop leaves its C
 * half where it is (Spike's and gemmini.h's static alternates only when the loop has an output): at accumulator row 0.
 */
export const gemminiConvKernel: KernelDef = {
  name: 'gemmini-conv',
  template: 'gemmini-conv',
  engine: 'accelerator',
  accepts(node) {
    return node.op === 'GemminiConv' && node.domain === 'firmgen' ? null : 'not a GemminiConv';
  },
  view({ node, graph }) {
    const x = tensorOf(graph, node.inputs[0]);
    const w = tensorOf(graph, node.inputs[1]);
    const y = tensorOf(graph, node.outputs[0]);
    const bias = node.inputs[2] ? node.inputs[2] : undefined;
    const [N, H, W, C] = x.shape;
    const dw = attrInt(node, 'depthwise', 0) === 1;
    // HWIO, or depthwise [C, KH, KW] (one output channel per input channel)
    const [KH, KW, O] = dw ? [w.shape[1], w.shape[2], C] : [w.shape[0], w.shape[1], w.shape[3]];
    const [, OH, OW] = y.shape;
    // the loop's stride is the horizontal one; a different vertical one is stepped by the firmware, a row per loop
    const [SH, S] = attrInts(node, 'strides');
    const [D] = attrInts(node, 'dilations');
    const [PT, PL, PB, PR] = attrInts(node, 'pads');
    const shape = { C, O, OH, OW, KH, KW, stride: S, rowStride: SH, dilation: D };
    const tile = convTile(dw ? { ...shape, C: 1, O: 1 } : shape);
    if (!tile) throw new Error(`gemmini-conv ${node.name}: no tile fits (lower-array.ts checks this)`);
    const yInt8 = y.dtype === 'int8';
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: 'int8', write: false },
        { field: 'w', tensor: w.name, dtype: 'int8', write: false },
        ...(bias ? [{ field: 'b', tensor: bias, dtype: 'int32' as const, write: false }] : []),
        { field: 'y', tensor: y.name, dtype: yInt8 ? 'int8' : 'int32', write: true },
      ],
      params: {
        N, H, W, C, O, OH, OW, KH, KW, S, SH, D, PT, PL, PB, PR,
        TR: tile.orows, TC: tile.ocols, TO: tile.ochs, TK: tile.kchs,
        // Pixels side by side in a scratchpad row for few input channels (gemmini.h's max_pixels_per_row), not with
        // a dilated kernel (the repeated pixels are the next columns, not the next taps).
        pixels: D === 1 && (dw || C <= 8) ? Math.min(Math.floor(16 / (dw ? 1 : C)), KW) : 1,
        dw,
        bias: bias !== undefined,
        yInt8, cBytes: yInt8 ? 1 : 4,
        // accumulator rows read raw (int32: bits 31 and 29) or through the scale 1.0 (int8: bit 31)
        outLocal: yInt8 ? '0x8000_0000' : '0xa000_0000', outLocalC: yInt8 ? '0x80000000' : '0xa0000000',
        y: typeNames(yInt8 ? 'int8' : 'int32'),
        dilKH: (KH - 1) * D + 1, dilKW: (KW - 1) * D + 1,
      },
      macs: N * OH * OW * O * (dw ? 1 : C) * KH * KW,
    };
  },
  hal: {
    c: '#include "firmgen_hal.h"\n#include "gemmini/firmgen_gemmini.h"',
    as: "import { gemmini_config_ex, gemmini_config_ld, gemmini_config_st, gemmini_fence, gemmini_loop_conv_ws, gemmini_mvin, gemmini_mvout } from './hal/gemmini';\nimport { region_chip_base } from './hal/chip';",
  },
};
