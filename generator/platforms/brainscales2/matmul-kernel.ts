import { attrInt, attrNumber } from '../../ir/attrs.js';
import { tensorOf } from '../../ir/graph.js';
import type { KernelDef } from '../../kernels/types.js';
import { COLUMNS, SIGNED_ROWS } from './analog/constants.js';
import { ANALOG_OP } from './lower-analog.js';

/** A float as a literal both AssemblyScript and C read back to the same double (JS prints the shortest that does). */
function f64Literal(v: number): string {
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

/**
 * 'Bss2Matmul' (lower-analog.ts) on the analog arrays: per block of 128 rows x 256 columns (column blocks outer, row
 * blocks inner) the weights are written to array (first + t) mod 2, then every input vector runs on it; each run's
 * int8 outputs land in the block's slice of the result [row blocks, M, N]. The same calls in the same order as the
 * reference (generator/platforms/brainscales2/analog/partition.ts): the outputs are equal bit for bit.
 */
export const bss2MatmulKernel: KernelDef = {
  name: 'bss2-matmul',
  template: 'bss2-matmul',
  engine: 'accelerator',
  accepts(node) {
    return node.op === ANALOG_OP && node.domain === 'firmgen' ? null : `not a ${ANALOG_OP}`;
  },
  view({ node, graph }) {
    const x = tensorOf(graph, node.inputs[0]);
    const w = tensorOf(graph, node.inputs[1]);
    const y = tensorOf(graph, node.outputs[0]);
    const [M, K] = x.shape;
    const N = w.shape[1];
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'w', tensor: w.name, dtype: w.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        M, K, N, RB: Math.ceil(K / SIGNED_ROWS), CB: Math.ceil(N / COLUMNS), ROWS: SIGNED_ROWS, COLS: COLUMNS,
        numSends: attrInt(node, 'num_sends'), wait: attrInt(node, 'wait_between_events'),
        gain: f64Literal(attrNumber(node, 'gain')), first: attrInt(node, 'first_array'),
        chipSeed: attrInt(node, 'chip_seed') >>> 0, pattern: attrInt(node, 'fixed_pattern'),
        noiseSeed: attrInt(node, 'noise_seed') >>> 0, noiseStd: f64Literal(attrNumber(node, 'noise_std')),
      },
      macs: M * K * N,
    };
  },
  hal: {
    c: '#include "firmgen_hal.h"\n#include "brainscales2/firmgen_bss2.h"',
    as: "import { bss2_chip, bss2_configure, bss2_run } from './hal/brainscales2';",
  },
};
