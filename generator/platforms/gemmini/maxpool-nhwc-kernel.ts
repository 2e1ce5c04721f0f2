import { attrInts } from '../../ir/attrs.js';
import type { IntType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node } from '../../ir/graph.js';
import { typeNames } from '../../kernels/common.js';
import { lowestLiteral, maxPoolWindow } from '../../kernels/pool.js';
import type { KernelContext, KernelDef, KernelView } from '../../kernels/types.js';

/**
 * 'GemminiMaxPoolNhwc' (keep-nhwc.ts): a 2-D MaxPool on an NHWC tensor between array convolutions, with the shared
 * MaxPool's semantics (pads, strides, dilations; padding never wins). Two kernels share one view and template:
 * - on the array's store unit (`gemmini-maxpool`, first choice): gemmini.h's tiled_pool. Per tile of output rows and
 *   block of 16 channels, the tile's input rows move into one half of the accumulator as int8 (config_mvin shrunk, a
 *   pixel a row) and one mvout with config_mvout's pooling writes the tile's outputs. Exact: the values are int8, and
 *   mvout at scale 1.0 passes an int8 through unchanged.
 * - on the host core (`maxpool-nhwc`): every other case, and every pool under `--pool-on host`; each output compares
 *   its whole window (ELEMENT per window position, as kernels/pool.ts's template charges).
 * The conv's own mvout cannot pool: its sums leave raw for the host core's exact requantization (conv-kernel.ts).
 */

/** Accumulator rows of one tile's input image: half of the 1,024 (HARDWARE.md "Gemmini"), the other half the next tile's. */
const HALF_ACC_ROWS = 512;
/** config_mvout's fields: 2 bits for the window, stride and pads, 8 for the image and output dimensions (docs/gemmini.md). */
const MAX_WINDOW = 3;
const MAX_DIM = 255;

/** Why the array's store unit cannot pool this node exactly, or null when it can. */
export function poolOnArrayRefusal(node: Node, g: Graph): string | null {
  if (node.op !== 'GemminiMaxPoolNhwc' || node.domain !== 'firmgen') return 'not a GemminiMaxPoolNhwc';
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  if (x.dtype !== 'int8' || y.dtype !== 'int8') return `${x.dtype} values (the store unit pools int8)`;
  if (x.shape.length !== 4) return 'not a 2-D pool';
  const autoPad = node.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value}`;
  const [, H, W] = x.shape;
  const [, HO, WO] = y.shape;
  const [KH, KW] = attrInts(node, 'kernel_shape', []);
  const [SY, SX] = attrInts(node, 'strides', [1, 1]);
  const [DY, DX] = attrInts(node, 'dilations', [1, 1]);
  const [PT, PL] = attrInts(node, 'pads', [0, 0, 0, 0]);
  if (KH !== KW || KH > MAX_WINDOW) return `a ${KH}x${KW} window (square, at most ${MAX_WINDOW})`;
  if (SY !== SX || SY > MAX_WINDOW) return `strides ${SY}x${SX} (equal, at most ${MAX_WINDOW})`;
  if (DY !== 1 || DX !== 1) return 'a dilated window';
  if (PT > MAX_WINDOW || PL > MAX_WINDOW) return `pads ${PT}/${PL} (at most ${MAX_WINDOW})`;
  if (W > MAX_DIM || WO > MAX_DIM) return `rows of ${W} or ${WO} pixels (at most ${MAX_DIM})`;
  if (KH * W > HALF_ACC_ROWS) return `${KH} rows of ${W} pixels do not fit half the accumulator`;
  // The store unit counts a window position outside the image as 0 where ONNX ignores it: equal only when no window
  // leaves the image or no value is below 0.
  const leaves = PT > 0 || PL > 0 || (HO - 1) * SY - PT + KH > H || (WO - 1) * SX - PL + KW > W;
  const lowest = x.range?.min ?? -128;
  if (leaves && lowest < 0) return `a window reaches the padding, which the store unit takes as 0, and the input may be negative (${lowest})`;
  return null;
}

/** Output rows per tile: as many as fit half the accumulator and config_mvout's 8-bit fields. */
export function poolTileRows(W: number, K: number, S: number, HO: number): number {
  const rows = Math.min(Math.floor(HALF_ACC_ROWS / W), MAX_DIM);
  return Math.max(1, Math.min(HO, MAX_DIM, Math.floor((rows - K) / S) + 1));
}

function view({ node, graph }: KernelContext, onArray: boolean): KernelView {
  const x = tensorOf(graph, node.inputs[0]);
  const y = tensorOf(graph, node.outputs[0]);
  const [N, H, W, C] = x.shape;
  const [, HO, WO] = y.shape;
  const win = maxPoolWindow(node, 2, H, W, HO, WO);
  return {
    args: [
      { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
      { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
    ],
    params: {
      N, C, H, W, HO, WO, ...win,
      onArray, TR: onArray ? poolTileRows(W, win.KH, win.SY, HO) : 0, half: HALF_ACC_ROWS,
      lowest: lowestLiteral(x.dtype as IntType),
      x: typeNames(x.dtype), y: typeNames(y.dtype),
    },
    macs: 0,
  };
}

export const gemminiMaxPoolArrayKernel: KernelDef = {
  name: 'gemmini-maxpool',
  template: 'gemmini-maxpool-nhwc',
  engine: 'accelerator',
  accepts: poolOnArrayRefusal,
  view: (ctx) => view(ctx, true),
  hal: {
    c: '#include "firmgen_hal.h"\n#include "gemmini/firmgen_gemmini.h"',
    as: "import { GEMMINI_ACC, gemmini_config_ld, gemmini_config_st, gemmini_config_st_pool, gemmini_fence, gemmini_mvin, gemmini_mvout } from './hal/gemmini';\nimport { region_chip_base } from './hal/chip';",
  },
};

export const gemminiMaxPoolNhwcKernel: KernelDef = {
  name: 'maxpool-nhwc',
  template: 'gemmini-maxpool-nhwc',
  engine: 'cores',
  accepts(node) {
    return node.op === 'GemminiMaxPoolNhwc' && node.domain === 'firmgen' ? null : 'not a GemminiMaxPoolNhwc';
  },
  view: (ctx) => view(ctx, false),
};
